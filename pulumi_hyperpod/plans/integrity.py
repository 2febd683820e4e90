"""What a plan's steps may be, whoever wrote the file it came from: every step acts on the plan's
own cluster, only with the operations its action takes, and each scale-in names exactly the nodes
its victims list, each reboot or replacement exactly the nodes its batches list, and each step is of
the kind its operation is (the kind decides the disruption the guards and policies read:
plans/disruption.py). A saved plan's hash detects edits but anyone can recompute it; this check keeps
an edited step from reaching another cluster or turning an update into a deletion."""

from __future__ import annotations

from typing import Any

from pulumi_hyperpod.plans.model import Plan, Step

# the operations each action's steps are made of (planner.py), in the order they may come
OPERATIONS = {
    "create": ("CreateCluster",),
    "update": (
        "UpdateCluster",
        "DrainNodes",
        "BatchAddClusterNodes",
        "BatchDeleteClusterNodes",
        "UpdateClusterSoftware",
        "BatchRebootClusterNodes",
        "BatchReplaceClusterNodes",
        "AddTags",
        "DeleteTags",
    ),
    "replace": ("DeleteCluster", "CreateCluster"),
    "delete": ("DeleteCluster",),
    "none": (),
}
TAGGING = frozenset({"AddTags", "DeleteTags"})
# the kind of step each operation is (plans/steps.py): an edited kind would change the disruption the
# guards and the policies read, so a step of another kind than its operation's is not this tool's
OPERATION_KINDS = {
    "CreateCluster": "create-cluster",
    "UpdateCluster": "update-cluster",
    "DeleteCluster": "delete-cluster",
    "DrainNodes": "drain",
    "BatchAddClusterNodes": "add-nodes",
    "BatchDeleteClusterNodes": "remove-nodes",
    "UpdateClusterSoftware": "update-software",
    "BatchRebootClusterNodes": "reboot-nodes",
    "BatchReplaceClusterNodes": "replace-nodes",
    "AddTags": "tag",
    "DeleteTags": "untag",
}
REPAIRS = ("BatchRebootClusterNodes", "BatchReplaceClusterNodes")  # name the cluster by its ARN (ResourceArn), not ClusterName


def step_problems(plan: Plan, create_request: dict[str, Any] | None = None) -> list[str]:
    """Why the steps cannot be this plan's; empty when they can. `create_request`: the CreateCluster
    request the plan's spec makes, which a create step must be."""
    allowed = OPERATIONS.get(plan.action, ())
    problems = []
    for number, step in enumerate(plan.steps, 1):
        where = f"step {number} ({step.operation})"
        if step.operation not in allowed:
            article = "an" if plan.action[0] in "aeiou" else "a"
            problems.append(f"{where}: {article} {plan.action} plan makes no {step.operation} call")
            continue
        if OPERATION_KINDS.get(step.operation, step.kind) != step.kind:
            problems.append(f"{where}: is of kind {OPERATION_KINDS[step.operation]}, not {step.kind}")
        if step.operation in TAGGING:
            if plan.basis is None or step.request.get("ResourceArn") != plan.basis.identity:
                problems.append(f"{where}: tags resource {step.request.get('ResourceArn')!r}, not the plan's cluster")
            continue
        if step.request.get("ClusterName") != plan.cluster_name:
            problems.append(f"{where}: acts on cluster {step.request.get('ClusterName')!r}, the plan is for {plan.cluster_name!r}")
        if step.operation == "BatchDeleteClusterNodes":
            named = list(step.request.get("NodeIds") or []) + list(step.request.get("NodeLogicalIds") or [])
            if sorted(named) != sorted(victim.node_id for victim in step.victims):
                problems.append(f"{where}: the nodes it names are not the nodes its victims list says go")
        if step.operation == "DrainNodes":
            deleted = {victim.node_id for later in plan.steps[number:] for victim in later.victims}
            drained = {node.get("NodeId") for node in step.request.get("Nodes") or ()}
            if not drained <= deleted:
                problems.append(f"{where}: it drains nodes no later step of the plan removes")
            elif sorted(map(str, drained)) != sorted(i for b in step.batches for i in b):
                problems.append(f"{where}: the nodes it names are not the nodes its batches say are drained")
        if step.operation in REPAIRS and sorted(_request_nodes(step)) != sorted(i for b in step.batches for i in b):
            problems.append(f"{where}: the nodes it names are not the nodes its batches say go down")
        if step.operation in (*REPAIRS, "UpdateClusterSoftware"):
            problems += _unknown_nodes(plan, step, where)
        if step.operation == "CreateCluster" and create_request is not None and step.request != create_request:
            problems.append(f"{where}: its request is not the one the plan's spec makes")
    if plan.action == "replace" and [step.operation for step in plan.steps] != list(OPERATIONS["replace"]):
        problems.append("a replace plan deletes the cluster, then creates it: exactly those two steps")
    return problems


def _unknown_nodes(plan: Plan, step: Step, where: str) -> list[str]:
    """A reboot, replacement or rollout names only nodes of the cluster the plan was made against."""
    known = {key for key, _, _ in plan.basis.node_states()} if plan.basis is not None else set()
    named = [*_request_nodes(step), *(i for b in step.batches for i in b)]
    strangers = sorted(set(named) - known)
    return [f"{where}: names node(s) {', '.join(strangers[:5])} the plan was not made against"] if strangers else []


def _request_nodes(step: Step) -> list[str]:
    return [str(node) for field in ("NodeIds", "NodeLogicalIds") for node in step.request.get(field) or ()]


def disruption_problems(plan: Plan, stated: list[Any]) -> list[str]:
    """A plan file's `disruption` of each step (None: not stated, a file older than the member) must
    be what its kind declares for it (plans/disruption.py): it is derived, and a policy that read an
    edited one would judge a plan other than the one apply runs."""
    from pulumi_hyperpod.plans.disruption import of_step

    problems = []
    for number, (step, said) in enumerate(zip(plan.steps, stated), 1):
        if said is not None and said != of_step(step, plan).to_dict():
            problems.append(
                f"step {number} ({step.operation}): its disruption is not the one a {step.kind} step of this plan has; make the plan again"
            )
    return problems
