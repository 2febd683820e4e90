"""Translation between Pulumi property bags and the core's models — the provider's only logic.

Inputs (what `check` returns and the next `diff` compares):
    spec      the CreateCluster request in its canonical API (PascalCase) form
    backend, region, profile, policy, wait, timeout, adopt      (see settings.py)
Outputs: the inputs, plus what the cluster looks like (`state_outputs`) and where it lives
(`location`). Per-group counts only — never a per-node list, so a 20,000-node cluster keeps a
small state.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from pulumi.runtime import rpc

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.spec.request import api_request, checked_request
from pulumi_hyperpod.provider.settings import SETTING_KEYS, Location, check_settings
from pulumi_hyperpod.provider.unknowns import is_unknown, under, unknown_paths

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.spec import ClusterSpec


def plain(value: Any) -> Any:
    """A property value as the core expects it: the engine's numbers are doubles (3 arrives as
    3.0, which the service model rejects as a count), secrets arrive wrapped, None means unset."""
    if rpc.is_rpc_secret(value):
        return plain(rpc.unwrap_rpc_secret(value))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {k: plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def has_secret(value: Any) -> bool:
    if rpc.is_rpc_secret(value):
        return True
    if isinstance(value, Mapping):
        return any(has_secret(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return any(has_secret(v) for v in value)
    return False


def spec_value(bag: Mapping[str, Any]) -> Any:
    """The stored spec, unwrapped (a spec that held a secret is stored as one secret)."""
    return plain(bag.get("spec"))


def canonical_spec(raw: Any) -> tuple[Any, list[tuple[str, str]]]:
    """The spec in API form and its failures as (property path, reason).

    A spec with values not known yet (preview) is checked for everything but those values and
    kept in the same API spelling, sentinels in place. A spec holding a secret Output is kept
    whole as a secret, so the value never reaches the state in plain text.
    """
    spec, failures = _canonical(raw)
    if spec is not None and not failures and has_secret(raw):
        spec = rpc.wrap_rpc_secret(spec)
    return spec, failures


def _canonical(raw: Any) -> tuple[Any, list[tuple[str, str]]]:
    if is_unknown(raw):
        return raw, []
    if raw is None:
        return None, [("spec", "is required: pass spec=, spec_file=, or cluster_name= and instance_groups=")]
    if not isinstance(raw, Mapping):
        return None, [("spec", f"must be an object in the AWS CLI --cli-input-json form, got {type(raw).__name__}")]
    # checked as ClusterSpec checks it, without building the models: a check needs no pydantic
    request, violations = checked_request(plain(raw))
    if not violations:
        return api_request(request), []
    unknown = unknown_paths(request)
    problems = [v for v in violations if not (unknown and under(v.path, unknown))]
    if problems:
        return None, [(f"spec.{v.path}" if v.path else "spec", v.rule) for v in problems]
    return request, []


def check_inputs(news: Mapping[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    spec, failures = canonical_spec(news.get("spec"))
    settings, more = check_settings(plain({k: news[k] for k in SETTING_KEYS if k in news}), is_unknown)
    inputs = {"spec": spec, **settings} if spec is not None else dict(settings)
    return inputs, failures + more


def settings_inputs(bag: Mapping[str, Any]) -> dict[str, Any]:
    return {key: bag[key] for key in SETTING_KEYS if key in bag}


def spec_of(bag: Mapping[str, Any]) -> ClusterSpec:
    """The spec of checked, fully known inputs."""
    from pulumi_hyperpod.aws.spec.models import ClusterSpec  # noqa: PLC0415 - the spec's models: the program side imports this module and must not load them (test_import_hygiene)

    return ClusterSpec.from_dict(plain(bag["spec"]))


def cluster_name(bag: Mapping[str, Any]) -> str | None:
    spec = spec_value(bag)
    name = spec.get("ClusterName") if isinstance(spec, Mapping) else None
    return name if isinstance(name, str) and not is_unknown(name) else None


def running_instance_types(state: ClusterState, group: Any) -> list[str]:
    """The types the group's nodes run on — for a flexible group, which of its types the service
    found capacity for — in the group's priority order; [] while none runs. Nodes leaving or
    unhealthy are not counted."""
    from pulumi_hyperpod.aws.observe.state import GONE, UNHEALTHY  # noqa: PLC0415 - the observed state (aws.observe): the program side imports this module and must not load it

    running = {
        n.instance_type
        for n in state.nodes
        if n.group == group.name and n.launched and n.instance_type and n.status not in GONE | UNHEALTHY
    }
    ordered = [t for t in group.instance_types if t in running]
    return ordered + sorted(running.difference(ordered))


def state_outputs(state: ClusterState, location: Location) -> dict[str, Any]:
    groups = {
        g.name: {
            "target_count": g.target_count,
            "current_count": g.current_count,
            "min_count": g.min_count,
            "status": g.status or "",
            "node_type": g.node_type or "",
            "instance_types": running_instance_types(state, g),
        }
        for g in state.groups
    }
    outputs = {
        "cluster_name": state.name,
        "arn": state.arn,
        "status": state.status,
        "continuous": state.continuous,
        "orchestrator": state.orchestrator_kind,
        "groups": groups,
        "node_count": sum(g.current_count for g in state.groups),
        "target_count": sum(g.target_count for g in state.groups),
        "pending_count": sum(g.pending for g in state.groups),
        "location": location.to_outputs(),
    }
    if state.failure_message:
        outputs["failure_message"] = state.failure_message
    return outputs


def outputs(inputs: Mapping[str, Any], state: ClusterState, location: Location) -> dict[str, Any]:
    return {**settings_inputs(inputs), "spec": inputs["spec"], **state_outputs(state, location)}


@lru_cache(maxsize=2)
def _group_members(restricted: bool = False) -> frozenset[str]:
    """The members of a group (or a restricted group) in CreateCluster — read when first needed (a
    `pulumi refresh` that found a group added outside Pulumi), not at import."""
    shape = "ClusterRestrictedInstanceGroupSpecification" if restricted else "ClusterInstanceGroupSpecification"
    return frozenset(servicemodel.shape(shape).members)


def observed_spec(spec: Mapping[str, Any], state: ClusterState) -> dict[str, Any]:
    """The spec as the cluster now is: the desired spec with each group's count (TargetCount —
    in Continuous mode a launch still pending is not drift), MinCount and membership as observed.

    `read` returns it as inputs and outputs, so `pulumi refresh` shows a change made outside
    Pulumi (an UpdateCluster, a BatchDeleteClusterNodes) and the next diff sees it.
    """
    secret = has_secret(spec)
    spec = plain(spec)
    continuous = state.continuous
    result = dict(spec)
    # restricted groups are kept in their own list, as DescribeCluster reports them
    for member, restricted in (("InstanceGroups", False), ("RestrictedInstanceGroups", True)):
        groups = []
        seen = set()
        for group in spec.get(member) or []:
            name = group.get("InstanceGroupName")
            have = state.group(name) if isinstance(name, str) else None
            if have is None or have.restricted != restricted:
                continue  # deleted outside Pulumi
            seen.add(name)
            entry = dict(group)
            entry["InstanceCount"] = have.target_count
            if not restricted and have.min_count != _effective_min(group, continuous):
                entry["MinInstanceCount"] = have.min_count
            groups.append(entry)
        for have in state.groups:
            if have.name not in seen and have.restricted == restricted:  # added outside Pulumi
                groups.append(_group_from_described(have))
        if groups or member in spec:
            result[member] = groups
    return rpc.wrap_rpc_secret(result) if secret else result


def _effective_min(group: Mapping[str, Any], continuous: bool) -> int:
    if group.get("MinInstanceCount") is not None:
        return int(group["MinInstanceCount"])
    node_type = (group.get("SlurmConfig") or {}).get("NodeType")
    if continuous and node_type in ("Controller", "Login"):
        return min(1, group.get("InstanceCount") or 0)
    return 0


def _group_from_described(have: Any) -> dict[str, Any]:
    described = dict(have.described)
    skip = ("InstanceRequirements", "InstanceCount", "MinInstanceCount", "EnvironmentConfig")
    entry = {k: v for k, v in described.items() if k in _group_members(have.restricted) and k not in skip}
    if have.restricted and (described.get("EnvironmentConfig") or {}).get("FSxLustreConfig"):
        # EnvironmentConfigDetails in the request's form (its S3OutputPath is the service's)
        entry["EnvironmentConfig"] = {"FSxLustreConfig": described["EnvironmentConfig"]["FSxLustreConfig"]}
    entry["InstanceGroupName"] = have.name
    entry["InstanceCount"] = have.target_count
    if have.min_count:
        entry["MinInstanceCount"] = have.min_count
    if described.get("InstanceRequirements"):
        entry.pop("InstanceType", None)
        entry["InstanceRequirements"] = {"InstanceTypes": list(have.instance_types)}
    return entry
