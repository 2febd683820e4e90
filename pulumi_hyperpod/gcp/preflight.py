"""Google Cloud's preflight, in the pipeline's shared slot (core/cloud.py): what Cluster Toolkit's
validators check before a deployment, read through Compute Engine's API (compute/v1):

- **machine type offered in the zone** (`machineTypes.get`): a pool that gets nodes in a zone that
  does not offer its machine type is refused (`gcp-machine-type`), before the create or PATCH
  fails halfway;
- **named reservation exists** (`reservations.get`): a pool consuming a SPECIFIC_RESERVATION that
  is not there is refused (`gcp-reservation`);
- **regional quotas** (`regions.get`: each metric's limit and the project's usage): the vCPUs
  (`CPUS`, and the family's `N2_CPUS`-style metric when the region lists one) and the GPUs
  (`NVIDIA_B200_GPUS`, `PREEMPTIBLE_…` for SPOT pools) the plan adds, from the machine type's own
  shape (vCPUs, accelerators). A plan that does not fit is refused (`gcp-quota`); one above the
  policy's warning margin is warned about. Nodes consuming a reservation use its capacity, not
  the quota.

It reads only. A read that fails (permissions, network) is a warning that says what was not
checked, never an "ok" (unknown is not safe, but not a refusal either: the service will say).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.gcp.planner.codes import RefusalRule
from pulumi_hyperpod.plans.model import Plan, Refusal
from pulumi_hyperpod.plans.sections import QuotaCheck, QuotaSection
from pulumi_hyperpod.core.preflight import section
from pulumi_hyperpod.gcp.client import GcpApiError
from pulumi_hyperpod.gcp.spec.names import gpu_quota_metric
from pulumi_hyperpod.plans.policy import Policy

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.gcp.clients import TrainingClusterClient
    from pulumi_hyperpod.gcp.spec import ClusterSpec, NodePool

QUOTA_RULE, MACHINE_TYPE_RULE, RESERVATION_RULE = RefusalRule.QUOTA, RefusalRule.MACHINE_TYPE, RefusalRule.RESERVATION
ADDING = ("create", "grow")


def preflight(plan: Plan, desired: ClusterSpec | None, observed: Any, client: TrainingClusterClient, policy: Policy | None = None) -> Plan:
    """The plan with its preflight section, and the refusals of what does not fit."""
    margin = (policy or Policy()).quota_warning_margin
    adds = _adds(plan, desired)
    if desired is None or not adds:
        return _with(plan, QuotaSection(status="not-needed"), [])
    name = desired.resource_name()
    refusals: list[Refusal] = []
    warnings: list[str] = []
    shapes: dict[str, dict[str, Any]] = {}
    for pool, _count in adds:
        shape = _machine_type(client, name.project, pool, refusals, warnings)
        if shape is not None:
            shapes[pool.id] = shape
        _reservations(client, name.project, pool, refusals, warnings)
    quotas = _quotas(client, name.project, name.location, adds, shapes, margin, refusals, warnings)
    return _with(plan.refuse(*refusals), quotas, warnings)


def _adds(plan: Plan, desired: ClusterSpec | None) -> list[tuple[NodePool, int]]:
    """(pool, nodes it adds) for every pool the plan creates or grows (every pool of a replacement)."""
    if desired is None:
        return []
    found = []
    for row in plan.groups:
        pool = desired.pool(row.group)
        if pool is None or row.action not in ADDING:
            continue
        new = (row.target_after or 0) if plan.action == "replace" else (row.target_after or 0) - (row.target_before or 0)
        if new > 0:
            found.append((pool, new))
    return found


def _machine_type(
    client: TrainingClusterClient, project: str, pool: NodePool, refusals: list[Refusal], warnings: list[str]
) -> dict[str, Any] | None:
    machine_type = pool.machine_spec.machine_type
    if pool.zone is None:
        warnings.append(f"{pool.id}: no zone, so {machine_type} was not checked against a zone's offer")
        return None
    try:
        return dict(client.get_machine_type(project, pool.zone, machine_type))
    except GcpApiError as error:
        if error.status == "NOT_FOUND":
            refusals.append(
                Refusal(
                    MACHINE_TYPE_RULE,
                    f"{pool.id}: zone {pool.zone} does not offer machine type "
                    f"{machine_type}; choose a zone that does (gcloud compute "
                    "machine-types list) or another machine type",
                    pool.id,
                )
            )
        else:
            warnings.append(f"{pool.id}: machine type {machine_type} in {pool.zone} not checked ({error.status}: {error.message[:120]})")
        return None


def _reservations(client: TrainingClusterClient, project: str, pool: NodePool, refusals: list[Refusal], warnings: list[str]) -> None:
    affinity = pool.machine_spec.reservation_affinity
    if affinity is None or affinity.reservation_affinity_type != "SPECIFIC_RESERVATION":
        return
    for value in affinity.values:
        parts = value.split("/")
        if len(parts) == 6:  # projects/P/zones/Z/reservations/N
            where = (parts[1], parts[3], parts[5])
        elif pool.zone is not None:
            where = (project, pool.zone, value)
        else:
            warnings.append(f"{pool.id}: reservation {value} not checked (a short name needs the pool's zone)")
            continue
        try:
            client.get_reservation(*where)
        except GcpApiError as error:
            if error.status == "NOT_FOUND":
                refusals.append(
                    Refusal(
                        RESERVATION_RULE,
                        f"{pool.id}: reservation projects/{where[0]}/zones/{where[1]}/"
                        f"reservations/{where[2]} does not exist; create it, or name "
                        "one that does",
                        pool.id,
                    )
                )
            else:
                warnings.append(f"{pool.id}: reservation {value} not checked ({error.status}: {error.message[:120]})")


def _quotas(
    client: TrainingClusterClient,
    project: str,
    region: str,
    adds: list[tuple[NodePool, int]],
    shapes: dict[str, dict[str, Any]],
    margin: float,
    refusals: list[Refusal],
    warnings: list[str],
) -> QuotaSection:
    needs: dict[str, tuple[int, list[str], list[str]]] = {}  # metric → (amount, pools, machine types)

    def need(metric: str, amount: int, pool: NodePool) -> None:
        total, pools, types = needs.get(metric, (0, [], []))
        needs[metric] = (total + amount, [*pools, pool.id], [*types, pool.machine_spec.machine_type])

    for pool, count in adds:
        shape = shapes.get(pool.id)
        if shape is None or pool.provisioning_model == "RESERVATION" or _reserved(pool):
            continue  # not offered (refused above), or drawn from a reservation's capacity
        cpus = int(shape.get("guestCpus") or 0) * count
        need("CPUS", cpus, pool)
        need(pool.machine_spec.machine_type.split("-")[0].upper() + "_CPUS", cpus, pool)
        for accelerator in shape.get("accelerators") or ():
            need(
                gpu_quota_metric(str(accelerator.get("guestAcceleratorType")), pool.provisioning_model == "SPOT"),
                int(accelerator.get("guestAcceleratorCount") or 0) * count,
                pool,
            )
    if not needs:
        return QuotaSection(status="not-needed", region=region)
    try:
        listed = {q["metric"]: q for q in client.get_region(project, region).get("quotas") or ()}
    except GcpApiError as error:
        warnings.append(
            f"regional quotas in {region} not checked: they could not be read ({error.status}: "
            f"{error.message[:120]}); check them (IAM & Admin → Quotas) before applying"
        )
        return QuotaSection(status="unreadable", region=region, error=f"{error.status}: {error.message[:200]}")
    checks = []
    for metric, (amount, pools, types) in sorted(needs.items()):
        quota = listed.get(metric)
        if quota is None and metric != "CPUS" and metric.endswith("_CPUS"):
            continue  # the family has no quota of its own in this region: CPUS counts it
        in_use = int(float(quota.get("usage") or 0)) if quota else 0
        limit = float(quota["limit"]) if quota and quota.get("limit") is not None else None
        check = QuotaCheck(
            quota_name=metric,
            quota_code=None,
            quota=limit,
            source="region quota",
            instance_type=", ".join(dict.fromkeys(types)),
            groups=tuple(dict.fromkeys(pools)),
            in_use=in_use,
            after=in_use + amount,
            adds=amount,
            status=_status(limit, in_use, amount, margin),
        )
        checks.append(check)
        pools_text = ", ".join(check.groups)
        if check.status == "over":
            refusals.append(
                Refusal(
                    QUOTA_RULE,
                    f"{metric} in {region}: {in_use:g} in use + {amount} for {pools_text} = "
                    f"{check.after:g}, above the quota of {limit:g}; request an increase "
                    "(IAM & Admin → Quotas) or lower the count",
                    pools[0] if len(check.groups) == 1 else None,
                )
            )
        elif check.status in ("near", "over-already"):
            warnings.append(f"{metric} in {region}: {check.after:g} of {limit:g} after this plan ({pools_text})")
        elif check.status == "unknown":
            warnings.append(f"{metric}: no such quota listed for {region}; {amount} more needed by {pools_text}, not checked")
    return QuotaSection(
        status="checked",
        region=region,
        checks=tuple(checks),
        title=f"Regional quotas in {region} (Compute Engine: the project's usage + this plan)",
    )


def _reserved(pool: NodePool) -> bool:
    affinity = pool.machine_spec.reservation_affinity
    return affinity is not None and affinity.reservation_affinity_type == "SPECIFIC_RESERVATION"


def _status(limit: float | None, in_use: int, amount: int, margin: float) -> str:
    if limit is None:
        return "unknown"
    after = in_use + amount
    if after > limit:
        return "over" if amount > 0 else "over-already"
    return "near" if after > margin * limit else "ok"


def _with(plan: Plan, quotas: QuotaSection, warnings: list[str]) -> Plan:
    return dataclasses.replace(plan, preflight=section(plan, quotas, [], warnings))
