"""Lifecycle consistency: a scale-out that builds new nodes differently from the ones already there.

A lifecycle script runs once, when a node is created (seed 004, "Lifecycleの冪等性"): after the
script — or anything else that decides how a node is built (`spec.BUILD_FIELDS`) — changes, the
nodes a scale-out adds are configured one way and the existing nodes another. Two sources:
- the group: the plan itself changes a build field of a group it grows (desired vs DescribeCluster);
- the nodes: DescribeClusterNode reports what each node was built with (LifeCycleConfig,
  ThreadsPerCore, InstanceStorageConfigs, CurrentImageId) — a change applied earlier and followed
  by this scale-out. Bounded: at most `sample` nodes per group, the oldest and the newest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from pulumi_hyperpod.aws.planner.compare import same
from pulumi_hyperpod.plans.findings import ConsistencyFinding
from pulumi_hyperpod.aws.spec import BUILD_FIELDS
from pulumi_hyperpod.aws.preflight.quotas import describe_error

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.plans import GroupChange, Plan
    from pulumi_hyperpod.aws.spec import ClusterSpec

SAMPLE = 20
# build field → where DescribeClusterNode reports it (ExecutionRole is not reported per node)
_NODE_FIELDS = {
    "LifeCycleConfig": "LifeCycleConfig",
    "ThreadsPerCore": "ThreadsPerCore",
    "InstanceStorageConfigs": "InstanceStorageConfigs",
    "ImageId": "CurrentImageId",
}
ADVICE = (
    "a node runs its lifecycle script once, when it is created, so one group would hold nodes configured two ways; "
    "put the new nodes in a separate instance group (a separate Slurm partition), or replace the old nodes "
    "(or run the new script on them) so every node has the same configuration"
)


def check_consistency(
    plan: Plan, desired: ClusterSpec, observed: ClusterState, sagemaker: SageMakerClient, sample: int = SAMPLE
) -> list[ConsistencyFinding]:
    """One finding per growing group whose existing nodes were built differently from its new ones."""
    if plan.action != "update":
        return []
    findings = []
    for change in plan.groups:
        want = desired.group(change.group)
        if want is None or change.target_before is None or change.delta <= 0:
            continue
        finding = _group(change, want.build_config(), observed, sagemaker, sample)
        if finding is not None:
            findings.append(ConsistencyFinding.from_dict(finding))
    return findings


def _group(
    change: GroupChange, wanted: dict[str, Any], observed: ClusterState, sagemaker: SageMakerClient, sample: int
) -> dict[str, Any] | None:
    nodes = sorted(
        (n for n in observed.nodes_of(change.group) if n.launched and n.status != "ShuttingDown"),
        key=lambda n: (n.launch_time is None, n.launch_time, n.instance_id),
    )
    if not nodes:
        return None
    chosen = nodes if len(nodes) <= sample else nodes[: sample // 2] + nodes[-(sample - sample // 2) :]
    changed_here = [f for f in change.config_changes if f in BUILD_FIELDS]
    differing: dict[str, set[str]] = {}  # instance id → fields
    error = None
    for node in chosen:
        try:
            details = sagemaker.describe_cluster_node(ClusterName=observed.name, NodeId=node.instance_id)["NodeDetails"]
        except (ClientError, BotoCoreError) as failure:
            error = f"node build configurations not read ({describe_error(failure)}): judged from the group's configuration only"
            differing = {}
            break
        fields = {
            f
            for f, reported in _NODE_FIELDS.items()
            if f in wanted and reported in details and not same(details[reported], wanted[f], True)
        }
        if fields:
            differing[node.instance_id] = fields
    per_node = {f for fields in differing.values() for f in fields}
    unreported = {f for f in changed_here if f not in _NODE_FIELDS}  # ExecutionRole: every existing node predates it
    if error is not None:
        fields, old = sorted(changed_here), len(nodes)
    else:
        fields, old = sorted(unreported | per_node), len(nodes) if unreported else len(differing)
    if not fields:
        return None
    is_sample = error is None and not unreported and len(chosen) < len(nodes)
    return {
        "group": change.group,
        "fields": fields,
        "changed_by_this_plan": changed_here,
        "existing_nodes": len(nodes),
        "old_nodes": old,
        "new_nodes": change.delta,
        "sampled": len(chosen) if error is None else 0,
        "is_sample": is_sample,
        "old_node_ids": sorted(differing)[:10],
        "new_config": {f: wanted[f] for f in fields if f in wanted},
        "note": error,
        "message": _message(change.group, fields, old, change.delta, len(nodes), len(chosen), is_sample),
    }


def _message(group: str, fields: list[str], old: int, new: int, existing: int, sampled: int, is_sample: bool) -> str:
    if is_sample:
        built = f"{old} of the {sampled} nodes sampled (oldest and newest of {existing}) were built"
    else:
        built = f"{old} existing node(s) were built"
    return (
        f"{group}: {', '.join(fields)} differs — {built} with the old configuration, the {new} node(s) this plan adds "
        f"will be built with the new one; {ADVICE}"
    )
