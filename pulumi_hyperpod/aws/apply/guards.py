"""The policy's guards, checked again on each call apply sends, whatever the Plan object says.

The planner refuses what the policy forbids; but a Plan is data, and data can be edited (a saved plan
resealed with a recomputed hash, a Plan built by hand, a program's bug). So the executor asks here,
before the first call and again right before each mutating call on the cluster as just observed:

- never a Controller node named for removal (the service chooses which controller goes, through
  the count, and only when the policy allows it); never a Controller group deleted;
- never a Login node or the Login group unless policy.allow_login_scale_in;
- never a protected node taken down, by any step, whatever its kind: the step's disruption is read
  from its kind's declaration (plans/steps.py, plans/disruption.py) — not removed, replaced, rebooted,
  rolled onto a new image or drained; not in a deleted group, not in a cluster being deleted, not
  in a group whose count is lowered by more than the launches it still has pending (the service
  would choose which node goes);
- on a Slurm cluster, never a group emptied whose role nothing states (unknown is not safe);
- no node named twice in one plan, no UpdateCluster/CreateCluster/DeleteCluster made twice;
- a replacement only when policy.allow_replacement.

A node's role is taken from every source there is — the live cluster's SlurmConfig.NodeType, the
roles learnt from the lifecycle bundle, the plan's own group table — and the strictest wins, so an
edited plan can add a guard but never take one away. Pure: the executor does the observing.
"""

from __future__ import annotations

from collections import Counter
from typing import Any
from collections.abc import Mapping

from pulumi_hyperpod.aws.planner.policy import aws_policy
from pulumi_hyperpod.aws.planner.codes import RefusalRule
from pulumi_hyperpod.aws.spec.grouplists import group_entries
from pulumi_hyperpod.aws.observe import ClusterState, NodeState
from pulumi_hyperpod.plans import Plan, Policy, Refusal
from pulumi_hyperpod.plans.disruption import VERBS, of_plan, shortened
from pulumi_hyperpod.aws.planner.integrity import OPERATIONS
from pulumi_hyperpod.plans.steps import Disruption, declaration

RULE = RefusalRule.APPLY_GUARD
_ONCE = ("CreateCluster", "UpdateCluster", "DeleteCluster")  # the planner makes each at most once
_STRICTNESS = {"Controller": 2, "Login": 1}


def plan_refusals(plan: Plan, policy: Policy) -> list[Refusal]:
    """What no state can make right: a node named twice, a step made twice, a replacement not allowed."""
    refusals = []
    named = Counter(node for step in plan.steps if step.operation == "BatchDeleteClusterNodes" for node in _named(step.request))
    twice = sorted(node for node, times in named.items() if times > 1)
    if twice:
        refusals.append(Refusal(RULE, f"node(s) {_shown(twice)} are named for removal more than once; a plan names each node once"))
    refusals += taken_down(plan, policy)  # refused, not quietly swapped for another node: the plan said these go
    refusals += taken_twice(plan)
    made = Counter(step.operation for step in plan.steps if step.operation in _ONCE)
    for operation, times in sorted(made.items()):
        if times > 1:
            refusals.append(Refusal(RULE, f"{operation} is made twice ({times} times); a plan makes it once at most"))
    if plan.action == "replace" and not policy.allow_replacement:
        refusals.append(
            Refusal(RULE, f"replacing cluster {plan.cluster_name} deletes all its nodes; set policy.allow_replacement to allow it")
        )
    return refusals


def taken_down(plan: Plan, policy: Policy) -> list[Refusal]:
    """Every step's disruption, from its kind's declaration, as the plan states it: no step takes a
    protected node down (a removal, a replacement, a reboot, a rollout, a drain; the cluster deleted).
    A count the service fulfils is judged on the live cluster, call by call (step_refusals): the
    launches still pending there are the nodes it may take first."""
    guarded = policy.protected_node_ids
    if not guarded:
        return []
    refusals = []
    for number, (step, disruption) in enumerate(zip(plan.steps, of_plan(plan), strict=True), 1):
        hit = [key for key in disruption.nodes if key in guarded]
        if hit:
            refusals.append(
                Refusal(RULE, f"step {number} ({step.operation}) {VERBS[disruption.effect]} protected node(s) {shortened(hit)}; {NEVER}")
            )
    return refusals


NEVER = "a protected node is never taken down by a plan (destroyed, restarted or drained)"


def taken_twice(plan: Plan) -> list[Refusal]:
    """No node destroyed or restarted by more than one step (a reboot and a replacement of it, a
    repair of a node a scale-in removes): conflicting requests, whatever made the plan. A drain goes
    with the removal after it, so it is not counted."""
    steps_of: dict[str, list[str]] = {}
    for number, (step, disruption) in enumerate(zip(plan.steps, of_plan(plan), strict=True), 1):
        if disruption.effect in ("destroyed", "restarted"):
            for key in dict.fromkeys(disruption.nodes):
                steps_of.setdefault(key, []).append(f"{number} ({step.operation})")
    return [
        Refusal(RULE, f"node {key} is taken down by more than one step (steps {', '.join(numbers)}); a plan asks one thing of a node")
        for key, numbers in sorted(steps_of.items())
        if len(numbers) > 1
    ]


def step_refusals(
    operation: str,
    request: Mapping[str, Any],
    state: ClusterState | None,
    policy: Policy,
    *,
    roles: Mapping[str, str] | None = None,
    plan: Plan | None = None,
    targets: Mapping[str, int] | None = None,
) -> list[Refusal]:
    """Why this call may not be sent to the cluster as `state` shows it; [] when it may. `targets`:
    the TargetCounts the cluster has before this call (what a lowered InstanceCount is measured from)."""
    if state is None:
        return []
    kind = OPERATIONS.kinds.get(operation)
    if kind is None:  # unknown is not safe: a call no kind declares has no known disruption
        return [Refusal(RULE, f"{operation} is no step kind's call (plans/steps.py): its disruption is not known")]
    disruption = declaration(kind).disruption
    guard = _Guard(state, policy, dict(roles or {}), plan)
    if disruption.scope == "victims" and disruption.effect == "destroyed":
        return guard.removal(_named(request))
    if disruption.scope in ("victims", "named"):
        refusals = guard.down(operation, disruption, guard.named_nodes(operation, request))
        return refusals + (guard.software(request) if kind == "update-software" else [])
    if disruption.scope == "chosen-by-service":
        return guard.update(request, dict(targets or {}))
    if disruption.scope == "all":
        protected = guard.protected(state.nodes)
        return [Refusal(RULE, f"deleting cluster {state.name} would remove protected node(s) {_shown(protected)}")] if protected else []
    return []


class _Guard:
    def __init__(self, state: ClusterState, policy: Policy, roles: dict[str, str], plan: Plan | None):
        self.state, self.policy, self.roles = state, policy, roles
        self.planned = {g.group: g.node_type for g in (plan.groups if plan is not None else ()) if g.node_type}

    def role(self, group: str) -> str | None:
        have = self.state.group(group)
        said = [have.node_type if have is not None else None, self.roles.get(group), self.planned.get(group)]
        known = [role for role in said if role]
        return max(known, key=lambda role: _STRICTNESS.get(role, 0)) if known else None

    def protected(self, nodes) -> list[str]:
        guarded = self.policy.protected_node_ids
        return sorted(n.key for n in nodes if n.key and (n.instance_id in guarded or (n.logical_id or "") in guarded))

    def software(self, request: Mapping[str, Any]) -> list[Refusal]:
        """On Slurm a rollout takes every node of the groups it names down at once (all groups when it
        names none): the controller only with policy.allow_controller_disruption, and a group of
        unknown role could be it."""
        if self.state.orchestrator_kind != "Slurm" or aws_policy(self.policy).allow_controller_disruption:
            return []
        names = [e["InstanceGroupName"] for e in request.get("InstanceGroups") or ()] or [g.name for g in self.state.groups]
        running = {n.group for n in self.state.nodes if n.status != "ShuttingDown"}
        down = [name for name in names if name in running and self.role(name) in ("Controller", None)]
        if not down:
            return []
        return [
            Refusal(
                RefusalRule.CONTROLLER_DISRUPTION,
                f"UpdateClusterSoftware takes every node of {', '.join(down)} down at once, the Slurm controller's "
                "(or a group whose role is not known); set policy.allow_controller_disruption to allow it",
                down[0],
            )
        ]

    def named_nodes(self, operation: str, request: Mapping[str, Any]) -> list[NodeState | str]:
        """The nodes a call takes down, as the cluster shows them now (an id it does not know stays an
        id): the ids it names, or for a rollout every node of the groups it names (the service
        patches the Running ones; which those are may change before it gets to them)."""
        if operation == "UpdateClusterSoftware":
            groups = [entry.get("InstanceGroupName") for entry in request.get("InstanceGroups") or ()]
            return [node for group in groups if group for node in self.state.nodes_of(group)]
        return [self.state.node(node_id) or node_id for node_id in _named(request)]

    def down(self, operation: str, disruption: Disruption, nodes: list[NodeState | str]) -> list[Refusal]:
        guarded = self.policy.protected_node_ids
        hit = sorted(
            {n for n in nodes if isinstance(n, str) and n in guarded}
            | {key for key in self.protected([n for n in nodes if not isinstance(n, str)])}
        )
        if not hit:
            return []
        return [Refusal(RULE, f"{operation} {VERBS[disruption.effect]} protected node(s) {_shown(hit)} ({disruption.how}); {NEVER}")]

    def removal(self, named: list[str]) -> list[Refusal]:
        refusals = []
        for node_id in named:
            node = self.state.node(node_id)
            group = node.group if node is not None else None
            role = self.role(group) if group is not None else None
            if node_id in self.policy.protected_node_ids or (node is not None and self.protected([node])):
                refusals.append(Refusal(RULE, f"{node_id} is a protected node; a protected node is never removed", group))
            elif role == "Controller":
                refusals.append(
                    Refusal(RULE, f"{node_id} is a Slurm Controller node ({group}); controller nodes are never named for removal", group)
                )
            elif role == "Login" and not self.policy.allow_login_scale_in:
                refusals.append(
                    Refusal(RULE, f"{node_id} is a Login node ({group}); set policy.allow_login_scale_in to allow removing it", group)
                )
        return refusals + self.emptied(named)

    def emptied(self, named: list[str]) -> list[Refusal]:
        """On a Slurm cluster, every node of a group whose role nothing states: it could be the controller."""
        if self.state.orchestrator_kind != "Slurm":
            return []
        groups = {node.group for node in map(self.state.node, named) if node is not None}
        refusals = []
        for group in sorted(groups - {g for g in groups if self.role(g)}):
            live = {n.key for n in self.state.nodes_of(group) if n.status not in ("ShuttingDown", "DetachInProgress")}
            if live and live <= set(named):
                refusals.append(
                    Refusal(
                        RULE,
                        f"removing every node of {group}, whose Slurm role is not known: it could be the controller or the login nodes",
                        group,
                    )
                )
        return refusals

    def update(self, request: Mapping[str, Any], targets: dict[str, int]) -> list[Refusal]:
        refusals = [refusal for name in request.get("InstanceGroupsToDelete") or () for refusal in self.group_deletion(name)]
        for entry in group_entries(request):
            name = entry.get("InstanceGroupName")
            before = targets.get(name)
            if before is None or entry.get("InstanceCount") is None or entry["InstanceCount"] >= before:
                continue
            refusals += self.lowered(name, before, entry["InstanceCount"])
        return refusals

    def group_deletion(self, name: str) -> list[Refusal]:
        role, have = self.role(name), self.state.group(name)
        if have is None or have.status == "Deleting":
            return []
        if role == "Controller":
            return [Refusal(RULE, f"deleting group {name}: it is the Slurm Controller group", name)]
        if role == "Login" and have.target_count and not self.policy.allow_login_scale_in:
            return [Refusal(RULE, f"deleting group {name} removes the Login nodes; set policy.allow_login_scale_in to allow it", name)]
        if role is None and self.state.orchestrator_kind == "Slurm":
            return [
                Refusal(RULE, f"deleting group {name}: its Slurm role is not known, it could be the controller or the login nodes", name)
            ]
        protected = self.protected(self.state.nodes_of(name))
        if protected:
            return [Refusal(RULE, f"deleting group {name} would remove protected node(s) {_shown(protected)}", name)]
        return []

    def lowered(self, name: str, before: int, after: int) -> list[Refusal]:
        role = self.role(name)
        if role == "Controller" and not aws_policy(self.policy).allow_controller_scale_in:
            return [
                Refusal(
                    RULE,
                    f"{name}: lowering the Controller count {before} → {after}; set policy.allow_controller_scale_in to allow it",
                    name,
                )
            ]
        if role == "Login" and not self.policy.allow_login_scale_in:
            return [
                Refusal(RULE, f"{name}: lowering the Login count {before} → {after}; set policy.allow_login_scale_in to allow it", name)
            ]
        if after == 0 and role is None and self.state.orchestrator_kind == "Slurm":
            return [Refusal(RULE, f"{name}: scaling to 0 a group whose Slurm role is not known", name)]
        nodes = [n for n in self.state.nodes_of(name) if n.status not in ("ShuttingDown", "DetachInProgress")]
        pending = max(before - len(nodes), 0)  # launches with no node yet: lowering those names no node
        protected = self.protected(nodes)
        if protected and before - after > pending:
            return [
                Refusal(
                    RULE,
                    f"{name}: lowering the count {before} → {after} lets the service choose which nodes go, and the "
                    f"group has protected node(s) {_shown(protected)}",
                    name,
                )
            ]
        return []


def _named(request: Mapping[str, Any]) -> list[str]:
    return [str(node) for node in list(request.get("NodeIds") or []) + list(request.get("NodeLogicalIds") or [])]


def _shown(ids: list[str], most: int = 5) -> str:
    return ", ".join(ids[:most]) + (f" and {len(ids) - most} more" if len(ids) > most else "")
