"""Fleet moves: nodes one cluster's plan deletes that another cluster's plan, in the same account and
region, would add of the same instance type are moved instead (MoveClusterNodes with another
TargetClusterArn; docs/fleet.md "Fleet moves", docs/capacity.md "Node moves").

Read from the stacks' plans, never recomputed: a source is a group a plan shrinks, with the Running
victims its remove step names (the victim rules chose them: idle first, never a protected node); a
target is a group a plan grows, by what its own moves do not bring already. What the plans do not
carry is read from the two clusters (`observe`): both EKS, Continuous and InService (the operation's
own conditions, aws/cross_moves.py `why_not`), both groups InService and not restricted,
each victim's instance type one the target group runs, and the source group keeping its MinCount of
Running nodes. At most min(removed, added) move; the rest is still deleted and added by the stacks'
`up`s, which find the moved nodes' counts already changed.

Only stacks of one wave pair: `fleet apply` makes a wave's moves right before its `up`s, and a move
into a later wave's cluster would change it before its wave's gates allow. Pure, but for `observe`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pulumi_hyperpod.fleet.summary import DEFAULT_ACCOUNT, StackPlans

Observe = Callable[[str, str], Any]  # (stack, cluster name) → aws.observe ClusterState, or None
MOVE_REMOVES = frozenset({"remove-nodes"})  # the step kinds whose victims leave the cluster


@dataclass(frozen=True)
class End:
    """One side of a fleet move: a stack's cluster's instance group."""

    stack: str
    cluster: str
    group: str
    arn: str

    def __str__(self) -> str:
        return f"{self.stack}/{self.cluster}/{self.group}"


@dataclass(frozen=True)
class MovedNode:
    node_id: str
    reason: str  # why this node (the victim rules' reason) and why it moves


@dataclass(frozen=True)
class FleetMove:
    """Nodes of one source group that go to one target group of another cluster."""

    source: End
    target: End
    instance_type: str
    nodes: tuple[MovedNode, ...]
    min_count: int = 0  # the source group's MinCount, which the move keeps

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": _end(self.source),
            "target": _end(self.target),
            "instance_type": self.instance_type,
            "nodes": [{"node_id": n.node_id, "reason": n.reason} for n in self.nodes],
            "kept": f"{len(self.nodes)} × {self.instance_type} moved, not released and re-requested",
            "guards": [
                f"{self.source.group} keeps at least its MinCount ({self.min_count}) of Running nodes",
                "only Running nodes the source's victim rules chose move (never a protected node)",
                "re-checked before the call: the source cluster as planned, both clusters InService, EKS, Continuous",
            ],
        }


@dataclass(frozen=True)
class _Source:
    stack: StackPlans
    cluster: str
    group: str
    min_after: int | None
    victims: tuple[Mapping[str, Any], ...]  # Running, launched, in the plan's order


@dataclass(frozen=True)
class _Target:
    stack: StackPlans
    cluster: str
    group: str
    adds: int
    instance_types: tuple[str, ...]


def _place(stack: StackPlans) -> tuple[str, str]:
    return stack.account or DEFAULT_ACCOUNT, stack.region


def sources(stacks: Iterable[StackPlans]) -> list[_Source]:
    """Each group a plan shrinks and the Running victims its remove steps name."""
    found = []
    for stack in stacks:
        for plan in _movable_plans(stack):
            shrinking = {g["group"]: g for g in plan.get("groups") or () if g.get("action") == "shrink"}
            victims = [
                v
                for step in plan.get("steps") or ()
                if step.get("kind") in MOVE_REMOVES
                for v in step.get("victims") or ()
                if v.get("group") in shrinking and v.get("status") == "Running" and not v.get("logical")
            ]
            for name, group in shrinking.items():
                mine = tuple(v for v in victims if v["group"] == name)
                if mine:
                    found.append(_Source(stack, str(plan["cluster_name"]), name, group.get("min_after"), mine))
    return found


def targets(stacks: Iterable[StackPlans]) -> list[_Target]:
    """Each group a plan grows, by what it still adds after its own moves into it."""
    found = []
    for stack in stacks:
        for plan in _movable_plans(stack):
            moved_in: dict[str, int] = {}
            for step in plan.get("steps") or ():
                if step.get("kind") == "move-nodes":
                    group = str(step["request"].get("TargetInstanceGroupName"))
                    moved_in[group] = moved_in.get(group, 0) + len(step["request"].get("NodeIds") or ())
            for group in plan.get("groups") or ():
                if group.get("action") != "grow" or group.get("target_before") is None:
                    continue
                adds = int(group["target_after"]) - int(group["target_before"]) - moved_in.get(group["group"], 0)
                if adds > 0:
                    found.append(_Target(stack, str(plan["cluster_name"]), group["group"], adds, tuple(group.get("instance_types") or ())))
    return found


def _movable_plans(stack: StackPlans) -> list[Mapping[str, Any]]:
    """The plans that change a cluster in place and are not refused (a stack whose preview failed has none)."""
    if stack.error:
        return []
    return [p for p in stack.plans if p.get("action") == "update" and not p.get("refusals") and p.get("cluster_name")]


def pair(stacks: Sequence[StackPlans], wave_of: Mapping[str, str], observe: Observe) -> tuple[list[FleetMove], list[str]]:
    """The fleet's moves and a note for each pair that could not move, and why. `wave_of`: stack → wave."""
    moves: list[FleetMove] = []
    notes: list[str] = []
    seen: dict[tuple[str, str], Any] = {}

    def state(stack: str, cluster: str) -> Any:
        if (stack, cluster) not in seen:
            seen[stack, cluster] = observe(stack, cluster)
        return seen[stack, cluster]

    wanting = targets(stacks)
    left = {(t.stack.stack, t.cluster, t.group): t.adds for t in wanting}
    for source in sources(stacks):
        taken = 0
        for target in wanting:
            if _place(target.stack) != _place(source.stack) or (target.stack.stack, target.cluster) == (source.stack.stack, source.cluster):
                continue
            key = (target.stack.stack, target.cluster, target.group)
            if not left[key]:
                continue
            pair_name = f"{source.stack.stack}/{source.cluster}/{source.group} → {target.stack.stack}/{target.cluster}/{target.group}"
            if wave_of.get(source.stack.stack) != wave_of.get(target.stack.stack):
                notes.append(
                    f"{pair_name}: no move: the stacks are in different waves ({wave_of.get(source.stack.stack)}, "
                    f"{wave_of.get(target.stack.stack)}); fleet moves are made within one wave, right before its ups"
                )
                continue
            source_state, target_state = state(source.stack.stack, source.cluster), state(target.stack.stack, target.cluster)
            why = _why_not(source_state, target_state, source, target)
            if why:
                notes.append(f"{pair_name}: no move: {why}")
                continue
            room = _room(source_state, source) - taken
            movable = [
                v
                for v in source.victims
                if v["node_id"] not in {n.node_id for m in moves for n in m.nodes}
                and (node := source_state.node(v["node_id"])) is not None
                and node.status == "Running"
                and node.instance_type in _types(target_state, target)
            ]
            chosen = movable[: max(min(len(movable), left[key], room), 0)]
            if not chosen:
                if room <= 0 and movable:
                    notes.append(f"{pair_name}: no move: {source.group} keeps its MinCount of Running nodes")
                continue
            taken += len(chosen)
            left[key] -= len(chosen)
            for kind in dict.fromkeys(str(source_state.node(v["node_id"]).instance_type) for v in chosen):
                nodes = tuple(
                    MovedNode(
                        v["node_id"], f"moves to {target.stack.stack}/{target.cluster}/{target.group}; {v.get('reason') or ''}".rstrip("; ")
                    )
                    for v in chosen
                    if source_state.node(v["node_id"]).instance_type == kind
                )
                moves.append(
                    FleetMove(
                        End(source.stack.stack, source.cluster, source.group, source_state.arn),
                        End(target.stack.stack, target.cluster, target.group, target_state.arn),
                        kind,
                        nodes,
                        _minimum(source_state, source),
                    )
                )
    return moves, notes


def _why_not(source_state: Any, target_state: Any, source: _Source, target: _Target) -> str | None:
    """Why no node of `source` can move to `target` (None: some can): the clusters, the groups, the types."""
    from pulumi_hyperpod.aws.cross_moves import why_not  # noqa: PLC0415 - HyperPod's planner only when a fleet can move

    for cluster, name in ((source_state, source.cluster), (target_state, target.cluster)):
        if cluster is None:
            return f"cluster {name} is not source_state"
        why = why_not(cluster)
        if why:
            return why
    for cluster, group in ((source_state, source.group), (target_state, target.group)):
        observed = cluster.group(group)
        if observed is None or observed.status != "InService" or observed.restricted:
            return f"group {group} of cluster {cluster.name} is {'not source_state' if observed is None else 'restricted' if observed.restricted else observed.status}"
    if not _types(target_state, target):
        return f"group {target.group} of cluster {target.cluster} runs none of the instance types it would be given"
    return None


def _minimum(state: Any, source: _Source) -> int:
    """The source group's MinCount as the plan leaves it."""
    return int(source.min_after if source.min_after is not None else state.group(source.group).min_count or 0)


def _room(state: Any, source: _Source) -> int:
    """Running nodes above the source group's MinCount."""
    running = sum(1 for n in state.nodes_of(source.group) if n.status == "Running")
    return max(running - _minimum(state, source), 0)


def _types(state: Any, target: _Target) -> tuple[str, ...]:
    group = state.group(target.group)
    have = tuple(group.instance_types or (group.instance_type,)) if group is not None else ()
    return tuple(t for t in target.instance_types if t in have)


def _end(end: End) -> dict[str, str]:
    return {"stack": end.stack, "cluster": end.cluster, "group": end.group, "cluster_arn": end.arn}


def section(moves: Sequence[FleetMove], notes: Sequence[str], enabled: bool) -> dict[str, Any]:
    """The fleet plan's `moves` section: each move, the capacity they keep, and why a pair did not move."""
    kept: dict[str, int] = {}
    for move in moves:
        kept[move.instance_type] = kept.get(move.instance_type, 0) + len(move.nodes)
    return {
        "enabled": enabled,
        "moves": [m.to_dict() for m in moves],
        "kept": [f"{n} × {kind} moved, not released and re-requested" for kind, n in kept.items()],
        "cost": "the moved instances keep running: the fleet pays nothing extra for them (one cluster's cost falls by what the other's rises)"
        if moves
        else None,
        "notes": list(notes),
    }


def waves_by_stack(fleet: Any) -> dict[str, str]:
    """Stack → the wave it is rolled out in (a fleet file without waves: one wave of every stack)."""
    if not fleet.waves:
        return {s.name: "all" for s in fleet.stacks}
    return {name: wave.name for wave in fleet.waves for name in wave.stacks}


class Observer:
    """The clusters as read for the pairing, one client per stack (gates.py's `stack_client`): what
    `fleet apply` checks each move's source cluster against before it moves (the move's premise)."""

    def __init__(self, stacks: Sequence[Any], client_for: Callable[[Any], Any] | None = None) -> None:
        from pulumi_hyperpod.fleet.gates import stack_client  # noqa: PLC0415 - botocore only when a fleet can move

        self.by_name = {s.name: s for s in stacks}
        self.client_for = client_for or stack_client
        self.clients: dict[str, Any] = {}
        self.states: dict[tuple[str, str], Any] = {}

    def client(self, stack: str) -> Any:
        if stack not in self.clients:
            self.clients[stack] = self.client_for(self.by_name[stack])
        return self.clients[stack]

    def __call__(self, stack: str, cluster: str) -> Any:
        from pulumi_hyperpod.aws.observe import observe  # noqa: PLC0415 - with the pairing

        if (stack, cluster) not in self.states:
            self.states[stack, cluster] = observe(self.client(stack), cluster)
        return self.states[stack, cluster]


def apply_moves(moves: Sequence[FleetMove], observer: Observer, timeout: float = 3600.0, **clock: Any) -> list[Any]:
    """A wave's moves, before its `up`s, per (source cluster, target cluster) by HyperPod's executor
    (aws/cross_moves.py), with the source cluster as read when the moves were planned as the premise: a
    source cluster that changed since is not moved. One result `moves` per source cluster, as a gate's:
    failed stops the wave. `clock`: the executor's sleep and monotonic (a test's simulated clock)."""
    from pulumi_hyperpod.aws.cross_moves import move_across  # noqa: PLC0415 - the executor only when nodes move
    from pulumi_hyperpod.core.contract import ApplyError, PlanRefused, PlanStale  # noqa: PLC0415 - with the executor
    from pulumi_hyperpod.fleet.gates import FAILED, PASSED, GateResult  # noqa: PLC0415 - with the executor

    results: list[Any] = []
    pairs: dict[tuple[str, str, str], list[FleetMove]] = {}
    for move in moves:
        pairs.setdefault((move.source.stack, move.source.cluster, move.target.arn), []).append(move)
    for (stack, cluster, target_arn), these in pairs.items():
        where = ", ".join(f"{len(m.nodes)} to {m.target}" for m in these)
        asked = [(m.source.group, m.target.group, m.instance_type, [(n.node_id, n.reason) for n in m.nodes]) for m in these]
        try:
            failures = move_across(observer.client(stack), observer(stack, cluster), asked, target_arn, timeout, **clock)
        except (PlanStale, PlanRefused, ApplyError) as error:  # ConcurrentChange is an ApplyError
            results.append(GateResult("moves", stack, cluster, FAILED, f"{where}: {error}"))
            continue
        outcome, detail = (FAILED, f"{where}: {'; '.join(failures)}") if failures else (PASSED, f"moved {where}")
        results.append(GateResult("moves", stack, cluster, outcome, detail))
    return results


def saved_refusal(path: str) -> str | None:
    """Why a saved fleet plan (already checked by savedplan.load) is not applied: it has fleet moves.
    Its stacks' pinned plans delete and add the nodes it would move, and a pinned plan is applied as
    reviewed, so the moves it shows could not be what `fleet apply --plan` does."""
    import json  # noqa: PLC0415 - only a saved plan is read

    with open(path, encoding="utf-8") as file:
        planned = (json.load(file).get("moves") or {}).get("moves") or []
    if not planned:
        return None
    count = sum(len(m.get("nodes") or ()) for m in planned)
    return (
        f"{path}: the saved fleet plan moves {count} node(s) between clusters, and a saved plan's stacks apply their pinned "
        "deletes and adds as reviewed: save it with `hyperpod fleet plan FLEET --no-moves --out FILE`, or apply without --plan"
    )
