"""Node repair as planned steps: BatchRebootClusterNodes and BatchReplaceClusterNodes.

What is repaired: the nodes named by policy.replace_node_ids / reboot_node_ids (`--replace`,
`--reboot`), and with policy.failed_nodes == "replace" every node in Failure. Each call names at
most the model's limit of nodes (NodeIds / NodeLogicalIds: 25); logical ids only on Continuous
clusters (the model's documentation), instance ids otherwise.

Guarded like a scale-in (a refused plan lists no steps): a node must exist; a Slurm controller is
never replaced (the model's documentation for BatchReplaceClusterNodes.NodeIds: "you cannot replace
instances that are configured as Slurm controller nodes"); protected nodes are never taken down;
Login nodes only with policy.allow_login_disruption; at most policy.max_unavailable_fraction of a
group at once. A replacement says that it destroys the node's volumes, root and secondary. Pure.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Callable

from pulumi_hyperpod.aws.planner.policy import aws_policy
from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.observe import ClusterState, NodeState
from pulumi_hyperpod.plans.model import Refusal, Step
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.aws.planner.codes import RefusalRule, StepReason

CONTROLLER_RULE = (
    'a Slurm controller node cannot be replaced (BatchReplaceClusterNodes, the service model: "you cannot '
    'replace instances that are configured as Slurm controller nodes")'
)
VOLUMES = "its instance volumes (root and secondary) are destroyed: data on them is lost"


class Repairs:
    """What the planner folds in (a plain class: the planner's working record, as software.Rollouts)."""

    __slots__ = ("notes", "refusals", "replaced", "steps")

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.refusals: list[Refusal] = []
        self.notes: list[str] = []
        self.replaced: set[str] = set()  # node keys a replacement takes care of (not scale-in victims)


def per_call(operation: str) -> int:
    """Nodes per call, from the model (NodeIds and NodeLogicalIds share it)."""
    return min(servicemodel.limit(f"{operation}Request", "NodeIds"), servicemodel.limit(f"{operation}Request", "NodeLogicalIds"))


def plan_repairs(observed: ClusterState, policy: Policy, role: Callable[[str], str | None]) -> Repairs:
    hyperpod = aws_policy(policy)
    result = Repairs()
    result.refusals.extend(conflicts(observed, policy))
    if result.refusals:
        return result
    replace = list(hyperpod.replace_node_ids)
    if hyperpod.failed_nodes == "replace":
        failed = [n for n in observed.nodes if n.status == "Failure" and n.key]
        for node in failed:
            if role(node.group) == "Controller" and observed.orchestrator_kind == "Slurm":
                result.notes.append(f"{node.key} ({node.group}) is in Failure; {CONTROLLER_RULE}: left as it is")
            elif _named_by(node, hyperpod.reboot_node_ids):
                result.notes.append(f"{node.key} ({node.group}) is in Failure and rebooted as asked (--reboot), not replaced")
            elif not _named_by(node, replace):
                replace.append(node.key)
    _plan(observed, policy, role, "BatchReplaceClusterNodes", sorted(replace), result)
    _plan(observed, policy, role, "BatchRebootClusterNodes", sorted(hyperpod.reboot_node_ids), result)
    if hyperpod.failed_nodes == "leave":
        failed = [n.key for n in observed.nodes if n.status == "Failure" and n.key]
        if failed:
            result.notes.append(
                f"{len(failed)} node(s) in Failure left as they are (policy.failed_nodes: leave): "
                + ", ".join(failed[:10])
                + (" …" if len(failed) > 10 else "")
            )
    return result


CONFLICT = RefusalRule.CONFLICTING_NODE_REQUESTS
# the per-node requests of a policy, as the CLI names them: a node is named by at most one of them
REQUESTS = (("reboot_node_ids", "--reboot"), ("replace_node_ids", "--replace"), ("remove_first", "remove_first"))


def _named_by(node: NodeState, ids) -> bool:
    return node.key in ids or node.instance_id in ids or (node.logical_id or "") in ids


def conflicts(observed: ClusterState, policy: Policy) -> list[Refusal]:
    """A node two per-node requests name — by the same id, or by its instance id and its logical id —
    is refused, naming both: rebooting a node and replacing it, or removing it first and repairing
    it, cannot both be what was meant."""
    asked: dict[str, list[tuple[str, str, NodeState]]] = {}
    for member, flag in REQUESTS:
        for given in sorted(getattr(policy, member)):
            node = observed.node(given)
            if node is not None:
                asked.setdefault(node.key, []).append((flag, given, node))
    refusals = []
    for key, requests in sorted(asked.items()):
        flags = list(dict.fromkeys(flag for flag, _, _ in requests))
        if len(flags) > 1:
            node = requests[0][2]
            said = " and ".join(f"{flag} {given}" for flag, given, _ in requests)
            refusals.append(
                Refusal(
                    CONFLICT, f"{said} name the same node {key} ({node.group}): one plan asks one thing of a node; drop one", node.group
                )
            )
    return refusals


def plan_conflicts(observed: ClusterState, repairs: list[Step], rollouts: list[Step], deleted: set[str]) -> list[Refusal]:
    """A repair of a node the same plan takes down otherwise: its group deleted, or its image rolled
    (the rollout restarts it already). Refused, naming both: repair it in a plan of its own."""
    rolled = {key for step in rollouts for batch in step.batches for key in batch}
    refusals = []
    for step in repairs:
        verb = step.kind.removesuffix("-nodes")
        for key in (key for batch in step.batches for key in batch):
            node = observed.node(key)
            group = node.group if node is not None else None
            if group in deleted:
                why = f"its group {group} is deleted by this plan"
            elif key in rolled:
                why = "the plan's software rollout restarts it already"
            else:
                continue
            refusals.append(Refusal(CONFLICT, f"--{verb} {key}: {why}; {verb} it in a plan of its own", group))
    return refusals


def _plan(observed: ClusterState, policy: Policy, role, operation: str, wanted: list[str], result: Repairs) -> None:
    if not wanted:
        return
    verb = "replace" if operation == "BatchReplaceClusterNodes" else "reboot"
    nodes: list[NodeState] = []
    for node_id in wanted:
        node = observed.node(node_id)
        refusal = _refusal(observed, policy, role, verb, node_id, node)
        if refusal is not None:
            result.refusals.append(refusal)
        elif node not in nodes:
            nodes.append(node)
    result.refusals.extend(_share_refusals(observed, policy, verb, nodes))
    if result.refusals:
        return
    if verb == "replace":
        result.replaced.update(n.key for n in nodes)
    size = per_call(operation)
    for start in range(0, len(nodes), size):
        chunk = nodes[start : start + size]
        request: dict[str, Any] = {"ClusterName": observed.name}
        ids = [n.instance_id for n in chunk if n.instance_id]
        logical = [n.logical_id for n in chunk if not n.instance_id]
        if ids:
            request["NodeIds"] = ids
        if logical:
            request["NodeLogicalIds"] = logical
        reasons = [f"{verb} {n.key} ({n.group}, {n.status})" + (f": {VOLUMES}" if verb == "replace" else "") for n in chunk]
        if verb == "replace":
            reasons.append("new instances with the same configuration; their lifecycle scripts run again")
        failed = all(n.status == "Failure" for n in chunk) and aws_policy(policy).failed_nodes == "replace"
        result.steps.append(
            Step(
                operation,
                request,
                tuple(reasons),
                batches=(tuple(n.key for n in chunk),),  # one call: these go down together
                kind=f"{verb}-nodes",
                codes=(StepReason.FAILED_NODE if failed else StepReason.requested(verb),),
            )
        )


def _refusal(observed: ClusterState, policy: Policy, role, verb: str, node_id: str, node: NodeState | None) -> Refusal | None:
    if node is None:
        return Refusal(RefusalRule.UNKNOWN_NODE, f"--{verb} {node_id}: no such node in cluster {observed.name}")
    group = node.group
    if node.status == "ShuttingDown":
        return Refusal(RefusalRule.NODE_LEAVING, f"--{verb} {node_id}: the node is ShuttingDown", group)
    if verb == "replace" and observed.orchestrator_kind == "Slurm" and role(group) == "Controller":
        return Refusal(
            RefusalRule.CONTROLLER_REPLACE,
            f"--replace {node_id}: {node_id} is in {group}, the Slurm Controller group; {CONTROLLER_RULE}",
            group,
        )
    if (
        node_id in policy.protected_node_ids
        or node.instance_id in policy.protected_node_ids
        or (node.logical_id or "") in policy.protected_node_ids
    ):
        return Refusal(
            RefusalRule.PROTECTED_NODE,
            f"--{verb} {node_id}: the node is protected; a protected node is never taken down "
            "by a plan (take it out of policy.protected_node_ids / --protect first)",
            group,
        )
    if role(group) == "Login" and not aws_policy(policy).allow_login_disruption:
        return Refusal(
            RefusalRule.LOGIN_DISRUPTION,
            f"--{verb} {node_id}: {group} holds the Login nodes users connect through; set policy.allow_login_disruption to allow it",
            group,
        )
    if not node.instance_id and not observed.continuous:
        return Refusal(
            RefusalRule.NOT_LAUNCHED,
            f"--{verb} {node_id}: the node has no instance yet, and NodeLogicalIds are only taken on Continuous clusters",
            group,
        )
    return None


def _share_refusals(observed: ClusterState, policy: Policy, verb: str, nodes: list[NodeState]) -> list[Refusal]:
    hyperpod = aws_policy(policy)
    refusals = []
    for group in sorted({n.group for n in nodes}):
        have = observed.group(group)
        size = max(have.target_count if have else 0, len(observed.nodes_of(group)), 1)
        count = sum(1 for n in nodes if n.group == group)
        if count / size > hyperpod.max_unavailable_fraction:
            refusals.append(
                Refusal(
                    RefusalRule.MAX_UNAVAILABLE_FRACTION,
                    f"{group}: to {verb} {count} of its {size} nodes at once "
                    f"({count / size:.0%}) is more than policy.max_unavailable_fraction "
                    f"({hyperpod.max_unavailable_fraction:.0%})",
                    group,
                )
            )
    return refusals
