"""Node moves: a group lowered while another is raised that can take the same nodes (docs/capacity.md,
"Node moves").

MoveClusterNodes hands running nodes from one instance group to another: "The underlying instances
aren't terminated. Each node keeps its instance ID, its NodeLogicalId, its network interfaces and IP
addresses, and its capacity" (the operation's documentation, botocore's sagemaker model). So where a
plan would delete nodes of one group and ask for as many new ones in another, it moves what can move
and deletes and adds only the rest: the capacity is kept, not released and re-requested.

What the documentation requires, and what this planner asks before it proposes a move:

- "Both clusters must be InService, use Amazon EKS orchestration, and use Continuous as the
  NodeProvisioningMode" — the observed cluster (and the spec: a plan that leaves Continuous
  replaces the cluster);
- "The source and target instance groups must also use compatible configurations" — the node's
  instance type is one the target group runs, both groups exist, are InService, and neither is a
  restricted group;
- "The request fails if moving the eligible nodes would reduce the source instance group below its
  minimum instance count" — a source group keeps at least its MinCount (as it will be when the move
  is sent: after the plan's UpdateCluster) of Running nodes;
- only Running nodes move (the service refuses others: InvalidNodeStatus), named by NodeIds, at
  most 50 per call.

The nodes that move are the scale-in's own victims (aws/planner/victims.py, workload_order.py: idle
first, never a protected node): of the nodes the source group loses, the Running ones move first,
an unhealthy or never-launched victim is still deleted. Pure.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.aws.planner.codes import StepReason
from pulumi_hyperpod.aws.planner.policy import aws_policy
from pulumi_hyperpod.aws.spec import ClusterSpec
from pulumi_hyperpod.plans.model import Step, Victim
from pulumi_hyperpod.plans.policy import Policy

OPERATION = "MoveClusterNodes"
MOST_PER_CALL = 50  # NodeIds: "You can specify up to 50 instance IDs" (the model's MoveClusterNodeIds)


@dataclass(frozen=True, slots=True)
class Move:
    """Nodes of one source group that go to one target group."""

    source: str
    target: str
    nodes: tuple[Victim, ...]
    instance_types: tuple[str, ...]  # of the nodes, in order: what the plan says is kept


@dataclass
class Moves:
    """The moves a plan makes, and what is left of its scale-ins and scale-outs."""

    moves: list[Move] = field(default_factory=list)
    victims: list[Victim] = field(default_factory=list)  # still deleted
    scale_out: dict[str, int] = field(default_factory=dict)  # still added
    notes: list[str] = field(default_factory=list)

    def moved_from(self, group: str) -> int:
        return sum(len(m.nodes) for m in self.moves if m.source == group)

    def moved_to(self, group: str) -> int:
        return sum(len(m.nodes) for m in self.moves if m.target == group)


def why_not(desired: ClusterSpec, observed: ClusterState) -> str | None:
    """Why no node of this cluster can move (None: nodes can)."""
    if not desired.continuous and observed.orchestrator_kind == "Eks":
        return f"cluster {observed.name} does not use NodeProvisioningMode Continuous, which MoveClusterNodes needs"
    return cluster_why_not(observed)


def cluster_why_not(observed: ClusterState) -> str | None:
    """Why no node can move into or out of this cluster as observed (None: nodes can): EKS, Continuous, InService."""
    if observed.orchestrator_kind != "Eks":
        return f"cluster {observed.name} is orchestrated by {observed.orchestrator_kind}; MoveClusterNodes needs Amazon EKS"
    if not observed.continuous:
        return f"cluster {observed.name} does not use NodeProvisioningMode Continuous, which MoveClusterNodes needs"
    if observed.status != "InService":
        return f"cluster {observed.name} is {observed.status}; MoveClusterNodes needs it InService"
    return None


def plan_moves(desired: ClusterSpec, observed: ClusterState, policy: Policy, victims: list[Victim], scale_out: dict[str, int]) -> Moves:
    """Pair each group that loses nodes with the groups that gain them: move what can move."""
    result = Moves(victims=list(victims), scale_out=dict(scale_out))
    losing = list(dict.fromkeys(v.group for v in victims))
    if not losing or not scale_out or not aws_policy(policy).allow_node_moves or why_not(desired, observed) is not None:
        return result
    nodes = {n.key: n for n in observed.nodes}
    order = [g.name for g in desired.groups]
    for source in sorted(losing, key=lambda name: order.index(name) if name in order else len(order)):
        room = _room(desired, observed, source)
        for target in [name for name in order if result.scale_out.get(name)]:
            types = _types(desired, observed, target)
            if not types or target == source:
                continue
            movable = [
                v
                for v in result.victims
                if v.group == source
                and not v.logical
                and v.status == "Running"
                and getattr(nodes.get(v.node_id), "instance_type", None) in types
            ]
            chosen = movable[: min(len(movable), result.scale_out[target], room)]
            if not chosen:
                continue
            room -= len(chosen)
            result.scale_out[target] -= len(chosen)
            if not result.scale_out[target]:
                del result.scale_out[target]
            taken = {v.node_id for v in chosen}
            result.victims = [v for v in result.victims if v.node_id not in taken]
            moving = tuple(dataclasses.replace(v, reason=f"moves to {target}; {v.reason}") for v in chosen)
            result.moves.append(Move(source, target, moving, tuple(str(nodes[v.node_id].instance_type) for v in chosen)))
        if room <= 0 and any(v.group == source for v in result.victims):
            result.notes.append(
                f"{source}: no more nodes move out (the source group keeps its MinCount of Running nodes); the rest are deleted"
            )
    return result


def _room(desired: ClusterSpec, observed: ClusterState, source: str) -> int:
    """How many nodes may leave `source` by a move: its Running nodes above its MinCount, as it will be
    when the move is sent (after the plan's UpdateCluster), and only from a group that is InService."""
    have, want = observed.group(source), _wanted(desired, source)
    if have is None or want is None or have.status != "InService" or have.restricted:
        return 0
    minimum = want.min_instance_count if want.min_instance_count is not None else have.min_count
    running = sum(1 for n in observed.nodes_of(source) if n.status == "Running")
    return max(running - (minimum or 0), 0)


def _types(desired: ClusterSpec, observed: ClusterState, target: str) -> tuple[str, ...]:
    """The instance types `target` takes (empty: it takes no moved node: new, busy or restricted)."""
    have, want = observed.group(target), _wanted(desired, target)
    if have is None or want is None or have.status != "InService" or have.restricted or want.restricted:
        return ()
    return tuple(t for t in want.instance_types if t in (have.instance_types or (have.instance_type,)))


def _wanted(desired: ClusterSpec, name: str) -> Any:
    return next((g for g in desired.groups if g.name == name), None)


def move_steps(cluster_arn: str, moves: Moves, target_arn: str | None = None) -> list[Step]:
    """One MoveClusterNodes per (source, target) pair, at most 50 nodes a call, named by NodeIds; into
    the same cluster, or (`target_arn`: a fleet's move, fleet/moves.py) another of its account and region."""
    steps = []
    for move in moves.moves:
        for start in range(0, len(move.nodes), MOST_PER_CALL):
            part = move.nodes[start : start + MOST_PER_CALL]
            steps.append(
                Step(
                    OPERATION,
                    {
                        "SourceClusterArn": cluster_arn,
                        "SourceInstanceGroupName": move.source,
                        "TargetClusterArn": target_arn or cluster_arn,
                        "TargetInstanceGroupName": move.target,
                        "NodeIds": [v.node_id for v in part],
                    },
                    (f"{move.source} → {move.target}: {kept(move.instance_types[start : start + MOST_PER_CALL])}",),
                    part,
                    kind="move-nodes",
                    codes=(
                        StepReason.MOVE,
                        *([StepReason.FLEET_MOVE] if target_arn else []),
                        *dict.fromkeys(v.code for v in part if v.code),
                    ),
                )
            )
    return steps


def kept(instance_types: tuple[str, ...]) -> str:
    """ "2 × ml.p5.48xlarge moved, not released and re-requested"."""
    counts: dict[str, int] = {}
    for name in instance_types:
        counts[name] = counts.get(name, 0) + 1
    return ", ".join(f"{n} × {name}" for name, n in counts.items()) + " moved, not released and re-requested"


def cost_note(moves: Moves) -> str:
    """What the moves cost: nothing more — the groups' counts change, the instances stay."""
    total = sum(len(m.nodes) for m in moves.moves)
    return (
        f"{total} node(s) move between groups (MoveClusterNodes): the same instances keep running, so the moves "
        "cost nothing extra (one group's count falls by what the other's rises)"
    )
