"""Import: a cluster Pulumi did not create, read by its id (the cluster name or its ARN).

`pulumi import hyperpod:index:Cluster NAME ID` and the `import` resource option call `Read` with
the id alone. The inputs handed back are the CreateCluster request the cluster answers to, as
`check` would store it for a program declaring that cluster: DescribeCluster's members of the
request, each group with its TargetCount as `InstanceCount` (the same translation `pulumi refresh`
uses for a group added outside Pulumi), and the settings at their defaults. So a program that
declares the cluster as it is shows no change after the import.

What DescribeCluster does not return cannot be read: `Tags` (ListTags) — a program with tags shows
one update after the import. Values the service fills in when the request leaves them out are left
out here too (NodeRecovery `Automatic`, Orchestrator `{"Slurm": {}}`, a group's MinInstanceCount at its default), so a program
that spells them out also shows one update; neither changes the cluster.
"""

from __future__ import annotations

from typing import Any

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.native import core
from pulumi_hyperpod.aws.planner.compare import restricted_config  # the planner's reading of the Output shape, used only here

# Service defaults DescribeCluster reports for a request that left the member out.
_SERVICE_DEFAULTS = {"NodeRecovery": "Automatic", "Orchestrator": {"Slurm": {}}}
_NOT_READ = ("InstanceGroups", "RestrictedInstanceGroups", "RestrictedInstanceGroupsConfig", "Tags", "ClusterName")


def arn_region(id_: str) -> str | None:
    """arn:aws:sagemaker:REGION:ACCOUNT:cluster/ID → REGION."""
    parts = id_.split(":")
    return parts[3] if id_.startswith("arn:") and len(parts) > 5 and parts[3] else None


def spec_from_state(state: ClusterState) -> dict[str, Any]:
    members = servicemodel.input_shape("CreateCluster").members
    described = dict(state.describe)
    request: dict[str, Any] = {"ClusterName": state.name}
    for key, value in described.items():
        if key in members and key not in _NOT_READ and value not in (None, [], {}) and _SERVICE_DEFAULTS.get(key) != value:
            request[key] = value

    shared = restricted_config(described.get("RestrictedInstanceGroupsConfig"))
    if shared:
        request["RestrictedInstanceGroupsConfig"] = shared
    groups, restricted = [], []
    for group in state.groups:
        entry = core.group_from_described(group)
        if group.restricted:
            restricted.append(entry)
            continue
        if "MinInstanceCount" in entry:
            without = {k: v for k, v in entry.items() if k != "MinInstanceCount"}
            if entry["MinInstanceCount"] == core.effective_min(without, state.continuous):
                entry = without
        groups.append(entry)
    if groups:  # a cluster of restricted groups only has none to give (the model: at least one when given)
        request["InstanceGroups"] = groups
    if restricted:
        request["RestrictedInstanceGroups"] = restricted
    spec, failures = core.spec_canonical(request)
    if failures:  # the cluster as described does not pass our own rules: keep it as read, say why
        raise core.ProviderError(
            f"cluster {state.name} cannot be imported: its description does not make a valid spec: "
            + "; ".join(f"{path}: {reason}" for path, reason in failures)
        )
    return spec


def imported(provider: Any, id_: str) -> tuple[str, dict[str, Any], dict[str, Any]] | None:
    """(id, outputs, inputs) of the cluster `id_` names, in the dynamic provider's bag form; None
    when there is no such cluster (or the ARN names another cluster of that name)."""
    region = arn_region(id_)
    state, location = core.observe_by_id(provider, id_, region)  # DescribeCluster takes a name or an ARN
    if state is None or (region is not None and state.arn != id_):
        return None
    inputs: dict[str, Any] = {"spec": spec_from_state(state), **core.default_settings()}
    default_region = core.locate(provider).region
    if location.region != default_region:
        inputs["region"] = location.region
    outputs = {**inputs, **core.state_outputs(state, location)}
    return state.arn, outputs, inputs
