"""Service quotas: would the plan run more instances than the account may?

HyperPod's quotas (developer guide, "SageMaker HyperPod quotas"; service code `sagemaker`):
"<instance type> for cluster usage" per instance type, across every cluster of the account and
region; "Maximum number instances allowed per SageMaker HyperPod cluster" (L-2CE978FC); and
"Total number of instances allowed across SageMaker HyperPod clusters" (L-3308CCC7). Per-type
quotas are matched by name: their codes differ per type and are not derivable from it.

Capacity that is not on-demand is counted apart, never against the on-demand quota: a Spot group's
instances against "<instance type> for spot cluster usage" (matched by name; when the account has no
such quota the check says "not checked"), a training plan's against nothing per type — the plan
reserved them (ReservedCapacity) — but both count toward the per-cluster and across-clusters totals.

Values: ListServiceQuotas (applied), else ListAWSDefaultServiceQuotas (the AWS default). Usage:
every cluster of the region (ListClusters + DescribeCluster) by TargetCount — what each will run —
with the planned cluster counted at its planned target. A flexible group's launched instances
count by their type; its capacity still to come is checked against the headroom of its types in
priority order (HyperPod moves on to the next type when one runs out).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable, Mapping

from botocore.exceptions import BotoCoreError, ClientError

from pulumi_hyperpod.aws.planner.codes import RefusalRule
from pulumi_hyperpod.aws.spec.grouplists import group_entries
from pulumi_hyperpod.plans.model import Refusal
from pulumi_hyperpod.plans.sections import QuotaSection
from pulumi_hyperpod.aws.cost.estimate import capacity_kind, priced_as  # one rule for how capacity is bought

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient, ServiceQuotasClient
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.plans import Plan, Policy
    from pulumi_hyperpod.aws.spec import ClusterSpec

SERVICE_CODE = "sagemaker"
RULE = RefusalRule.SERVICE_QUOTA
PER_CLUSTER = ("L-2CE978FC", "Maximum number instances allowed per SageMaker HyperPod cluster")
ACROSS_CLUSTERS = ("L-3308CCC7", "Total number of instances allowed across SageMaker HyperPod clusters")
# the developer guide's prose also says "Maximum number of instances allowed per ..."
_ALIASES = {"maximum number of instances allowed per sagemaker hyperpod cluster": PER_CLUSTER[0]}
UNKNOWN_TYPE = "(unknown type)"


def type_quota_name(instance_type: str) -> str | None:
    """The per-type quota an instance key counts against (cost.estimate.priced_as keys: `ml.g5.xlarge
    (Spot)`); None for a training plan's instances, which its reservation covers."""
    base, _, kind = instance_type.partition(" (")
    if kind == "Spot)":
        return f"{base} for spot cluster usage"
    if kind:
        return None
    return f"{instance_type} for cluster usage"


def _kind_key(instance_type: str, group: Mapping[str, Any]) -> str:
    return priced_as(instance_type, capacity_kind(group))


def describe_error(error: Exception) -> str:
    if isinstance(error, ClientError):
        detail = error.response.get("Error", {})
        return f"{error.operation_name}: {detail.get('Code')}: {detail.get('Message')}"
    return f"{type(error).__name__}: {error}"


# ---- reading ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Quota:
    code: str
    name: str
    value: float
    source: str  # "applied" | "AWS default"


class QuotaTable:
    def __init__(self, quotas: Iterable[Quota]) -> None:
        self.by_code: dict[str, Quota] = {}
        self.by_name: dict[str, Quota] = {}
        for quota in quotas:
            self.by_code.setdefault(quota.code, quota)
            self.by_name.setdefault(quota.name.lower(), quota)

    def find(self, name: str, code: str | None = None) -> Quota | None:
        code = code or _ALIASES.get(name.lower())
        return (self.by_code.get(code) if code else None) or self.by_name.get(name.lower())


def read_quotas(client: ServiceQuotasClient, wanted: list[tuple[str, str | None]]) -> QuotaTable:
    """The applied values, falling back to AWS defaults only when a wanted quota has none."""
    applied = [Quota(q["QuotaCode"], q["QuotaName"], q["Value"], "applied") for q in _every(client, "list_service_quotas")]
    table = QuotaTable(applied)
    if all(table.find(name, code) for name, code in wanted):
        return table
    defaults = [Quota(q["QuotaCode"], q["QuotaName"], q["Value"], "AWS default") for q in _every(client, "list_aws_default_service_quotas")]
    return QuotaTable(applied + defaults)


def _every(client: ServiceQuotasClient, operation: str) -> list[dict]:
    pages = client.get_paginator(operation).paginate(ServiceCode=SERVICE_CODE)
    return [quota for page in pages for quota in page.get("Quotas") or ()]


# ---- counting --------------------------------------------------------------------------------------
def described_usage(describe: Mapping[str, Any]) -> dict[str, int]:
    """Instances per type a described cluster runs or will run (TargetCount)."""
    counts: dict[str, int] = {}
    # restricted groups run instances of the same types under the same quotas
    for group in group_entries(describe):
        target = group.get("TargetCount", group.get("CurrentCount")) or 0
        if group.get("InstanceType"):
            _add(counts, _kind_key(group["InstanceType"], group), target)
            continue
        launched = 0
        for detail in group.get("InstanceTypeDetails") or ():
            count = int(detail.get("CurrentCount") or 0)
            _add(counts, _kind_key(detail["InstanceType"], group), count)
            launched += count
        requirements = group.get("InstanceRequirements") or {}
        types = requirements.get("DesiredInstanceTypes") or requirements.get("CurrentInstanceTypes") or [UNKNOWN_TYPE]
        _add(counts, _kind_key(types[0], group), max(target - launched, 0))
    return {t: c for t, c in counts.items() if c}


def other_clusters(sagemaker: SageMakerClient, name: str) -> tuple[dict[str, int], list[str], list[str]]:
    """Usage per type of every other cluster in the region; (usage, counted names, skipped notes)."""
    usage: dict[str, int] = {}
    counted, skipped = [], []
    for page in sagemaker.get_paginator("list_clusters").paginate():
        for summary in page.get("ClusterSummaries") or ():
            other = summary["ClusterName"]
            if other == name:
                continue
            if summary.get("ClusterStatus") == "Deleting":
                skipped.append(f"{other} (Deleting)")
                continue
            describe = sagemaker.describe_cluster(ClusterName=summary["ClusterArn"])
            for instance_type, count in described_usage(describe).items():
                _add(usage, instance_type, count)
            counted.append(other)
    return usage, counted, skipped


def planned_usage(
    desired: ClusterSpec, observed: ClusterState | None, fresh: bool
) -> tuple[dict[str, int], list[tuple[str, int, tuple[str, ...]]]]:
    """The planned cluster: instances per type, and each flexible group's capacity still to come."""
    fixed: dict[str, int] = {}
    flexible: list[tuple[str, int, tuple[str, ...]]] = []
    for group in desired.groups:
        api = group.to_api()
        if group.instance_type:
            _add(fixed, _kind_key(group.instance_type, api), group.instance_count)
            continue
        have = observed.group(group.name) if observed is not None and not fresh else None
        room = group.instance_count
        for detail in (have.described.get("InstanceTypeDetails") or ()) if have is not None else ():
            kept = min(int(detail.get("CurrentCount") or 0), room)
            _add(fixed, _kind_key(detail["InstanceType"], api), kept)
            room -= kept
        if room:
            flexible.append((group.name, room, tuple(_kind_key(t, api) for t in group.instance_types)))
    return fixed, flexible


def steps_peak(plan: Plan, desired: ClusterSpec, observed: ClusterState | None) -> dict[str, int]:
    """The most instances of each type the cluster's fixed-type groups hold at once while the plan's
    steps run, by TargetCount as the service counts a request: an UpdateCluster that raises a count
    comes before the BatchDeleteClusterNodes that lowers another (aws/planner/rules.py's order), so a
    split the deletes and adds make holds both for a while — the service refuses that raise past a
    quota. A move (MoveClusterNodes) lowers one group as it raises the other: it holds nothing more."""
    if observed is None or plan.action != "update":
        return {}
    kinds = {g.name: _kind_key(g.instance_type, g.to_api()) for g in desired.groups if g.instance_type}
    kinds.update({g.name: _kind_key(g.instance_type, g.described) for g in observed.groups if g.instance_type and g.name not in kinds})
    counts = {g.name: g.target_count for g in observed.groups if g.status != "Deleting"}

    def total() -> dict[str, int]:
        usage: dict[str, int] = {}
        for name, count in counts.items():
            if name in kinds:
                _add(usage, kinds[name], count)
        return usage

    peak = total()
    for step in plan.steps:
        request = step.request
        if step.operation == "UpdateCluster":
            counts.update({e["InstanceGroupName"]: e["InstanceCount"] for e in group_entries(request)})
            for name in request.get("InstanceGroupsToDelete") or ():
                counts.pop(name, None)
        elif step.operation == "BatchAddClusterNodes":
            for entry in request.get("NodesToAdd") or ():
                counts[entry["InstanceGroupName"]] = counts.get(entry["InstanceGroupName"], 0) + entry["IncrementTargetCountBy"]
        elif step.operation == "BatchDeleteClusterNodes":
            for victim in step.victims:
                counts[victim.group] = max(counts.get(victim.group, 0) - 1, 0)
        elif step.operation == "MoveClusterNodes":
            moved = len(request.get("NodeIds") or ())
            source, target = request["SourceInstanceGroupName"], request["TargetInstanceGroupName"]
            counts[source] = max(counts.get(source, 0) - moved, 0)
            counts[target] = counts.get(target, 0) + moved
        for key, count in total().items():
            peak[key] = max(peak.get(key, 0), count)
    return peak


def _peak_refusals(
    plan: Plan,
    desired: ClusterSpec,
    observed: ClusterState | None,
    limits: Mapping[str, Quota | None],
    others: Mapping[str, int],
    used: Mapping[str, int],
    region: str,
) -> list[Refusal]:
    """A type whose quota the final counts fit but the steps' order passes on the way (steps_peak)."""
    refusals = []
    for key, held in sorted(steps_peak(plan, desired, observed).items()):
        quota, at_once = limits.get(key), others.get(key, 0) + held
        if quota is None or at_once <= quota.value or at_once <= used.get(key, 0) or used.get(key, 0) > quota.value:
            continue
        refusals.append(
            Refusal(
                RULE,
                f"{quota.name} ({quota.code}) is {quota.value:g} in {region}: the plan ends at {used.get(key, 0)}, but its "
                f"UpdateCluster raises counts before its BatchDeleteClusterNodes lowers others, so {at_once} are held at once "
                f"→ {at_once} > {quota.value:g} and the service refuses the raise. Before applying, {ask({'quota_code': quota.code, 'quota_name': quota.name})}, "
                "or lower the counts in one plan and raise them in the next",
            )
        )
    return refusals


def _add(counts: dict[str, int], key: str, count: int) -> None:
    if count:
        counts[key] = counts.get(key, 0) + count


# ---- checking --------------------------------------------------------------------------------------
def check_quotas(
    plan: Plan,
    desired: ClusterSpec,
    observed: ClusterState | None,
    sagemaker: SageMakerClient,
    quotas: ServiceQuotasClient | None,
    policy: Policy,
    region: str,
) -> tuple[QuotaSection, list[Refusal], list[str]]:
    """The quota part of the section, the refusals, and the warnings."""
    fresh = observed is None or plan.action == "replace"
    before = described_usage(observed.describe) if observed is not None else {}
    after, flexible = planned_usage(desired, observed, fresh)
    section: dict[str, Any] = {"status": "checked", "region": region, "checks": []}
    if quotas is None:
        return QuotaSection.from_dict({**section, "status": "unreadable", "error": "no Service Quotas client"}), [], []
    try:
        others, counted, skipped = other_clusters(sagemaker, plan.cluster_name)
    except (ClientError, BotoCoreError) as error:
        others, counted, skipped = {}, [], []
        section["clusters_error"] = f"other clusters not counted: {describe_error(error)}"
    section["clusters_counted"], section["clusters_skipped"] = counted, skipped
    types = sorted(set(after) | set(before) | {t for _, _, ts in flexible for t in ts})
    wanted = [(type_quota_name(t), None) for t in types if t != UNKNOWN_TYPE and type_quota_name(t)] + [
        (PER_CLUSTER[1], PER_CLUSTER[0]),
        (ACROSS_CLUSTERS[1], ACROSS_CLUSTERS[0]),
    ]
    try:
        table = read_quotas(quotas, wanted)
    except (ClientError, BotoCoreError) as error:
        return QuotaSection.from_dict({**section, "status": "unreadable", "error": describe_error(error)}), [], []

    limits = {t: table.find(type_quota_name(t)) if type_quota_name(t) else None for t in types}
    used = {t: others.get(t, 0) + after.get(t, 0) for t in types}
    refusals: list[Refusal] = []
    for group, pending, priority in flexible:  # new capacity lands on the first type with room
        for instance_type in priority:
            quota = limits.get(instance_type)
            room = math.inf if quota is None else max(quota.value - used[instance_type], 0)
            taken = int(min(room, pending))
            used[instance_type] += taken
            pending -= taken
        if pending:
            refusals.append(
                Refusal(
                    RULE,
                    f"{group}: {pending} more instance(s) of {' / '.join(priority)} do not fit under their "
                    f"'for cluster usage' quotas in {region}. Before applying, request an increase in "
                    "Service Quotas (service code sagemaker; it can take weeks, so ask early), or lower "
                    "the count, or add other instance types to the group's InstanceRequirements",
                    group,
                )
            )
    for t in types:
        in_use = others.get(t, 0) + before.get(t, 0)
        if not in_use and not used[t]:
            continue
        groups = [g.name for g in desired.groups if t in {_kind_key(i, g.to_api()) for i in g.instance_types}]
        if type_quota_name(t) is None:  # a training plan's reserved instances: no per-type quota applies
            continue
        section["checks"].append(_check(type_quota_name(t), limits.get(t), in_use, used[t], t, groups))
    refusals += _peak_refusals(plan, desired, observed, limits, others, used, region)
    total_before, total_after = sum(before.values()), sum(after.values()) + sum(p for _, p, _ in flexible)
    section["checks"].append(_check(PER_CLUSTER[1], table.find(PER_CLUSTER[1], PER_CLUSTER[0]), total_before, total_after, None, []))
    other_total = sum(others.values())
    section["checks"].append(
        _check(
            ACROSS_CLUSTERS[1],
            table.find(ACROSS_CLUSTERS[1], ACROSS_CLUSTERS[0]),
            other_total + total_before,
            other_total + total_after,
            None,
            [],
        )
    )
    warnings: list[str] = []
    clusters = 1 + len(counted)
    for check in section["checks"]:
        check["status"] = _status(check, policy.quota_warning_margin)
        if check["status"] == "over":
            refusals.append(Refusal(RULE, _over_text(check, region, clusters), check["groups"][0] if len(check["groups"]) == 1 else None))
        elif check["status"] in ("near", "over-already"):
            warnings.append(_near_text(check, region, clusters))
        elif check["status"] == "unknown" and check["adds"] > 0:
            warnings.append(f"no quota named '{check['quota_name']}' in Service Quotas ({region}): {check['instance_type']} not checked")
    return QuotaSection.from_dict(section), refusals, warnings


def _check(name: str, quota: Quota | None, in_use: int, after: int, instance_type: str | None, groups: list[str]) -> dict[str, Any]:
    return {
        "quota_name": quota.name if quota else name,
        "quota_code": quota.code if quota else None,
        "quota": quota.value if quota else None,
        "source": quota.source if quota else None,
        "instance_type": instance_type,
        "groups": groups,
        "in_use": in_use,
        "after": after,
        "adds": after - in_use,
    }


def _status(check: Mapping[str, Any], margin: float) -> str:
    quota, after = check["quota"], check["after"]
    if quota is None:
        return "unknown"
    if after > quota:
        return "over" if check["adds"] > 0 else "over-already"
    if after > margin * quota:
        return "near"
    return "ok"


def _what(check: Mapping[str, Any]) -> str:
    code = f" ({check['quota_code']})" if check["quota_code"] else ""
    return f"{check['quota_name']}{code}"


def ask(check: Mapping[str, Any]) -> str:
    return (
        f"request an increase of {check['quota_code'] or repr(check['quota_name'])} in Service Quotas "
        "(service code sagemaker; it can take weeks, so ask early)"
    )


def _over_text(check: Mapping[str, Any], region: str, clusters: int) -> str:
    remedy = "lower the count"
    if check["instance_type"]:
        remedy += ", or use a flexible group (InstanceRequirements) with other instance types"
    return (
        f"{_what(check)} is {check['quota']:g} in {region}: {check['in_use']} in use across {clusters} cluster(s), "
        f"this plan asks for {check['adds']} more → {check['after']} > {check['quota']:g}. "
        f"Before applying, {ask(check)}, or {remedy}"
    )


def _near_text(check: Mapping[str, Any], region: str, clusters: int) -> str:
    share = check["after"] / check["quota"] if check["quota"] else 1.0
    over = "is already over" if check["after"] > check["quota"] else f"would be at {share:.0%} of"
    return (
        f"{_what(check)}: {check['after']} instances across {clusters} cluster(s) {over} the quota "
        f"({check['quota']:g} in {region}); the next scale-out may fail: {ask(check)}"
    )
