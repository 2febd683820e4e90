"""What a HyperPod plan's steps may be, whoever wrote the file it came from: HyperPod's operations as
data for the neutral checks (plans/integrity.py: each step of an operation its plan's action takes, of
its operation's kind), and what HyperPod's requests name: every step acts on the plan's own cluster,
each scale-in names exactly the nodes its victims list, each drain, reboot or replacement exactly the
nodes its batches list, each move exactly the nodes its victims list within the plan's own cluster,
and nodes only of the cluster the plan was made against."""

from __future__ import annotations

from typing import Any

from pulumi_hyperpod.aws.planner.codes import StepReason
from pulumi_hyperpod.plans.integrity import CloudOperations, kind_problem, operation_problem
from pulumi_hyperpod.plans.model import Plan, Step

OPERATIONS = CloudOperations(
    # the operations each action's steps are made of (aws/planner), in the order they may come
    by_action={
        "create": ("CreateCluster", "CreateClusterExtension"),
        "update": (
            "UpdateCluster",
            "DrainNodes",
            "MoveClusterNodes",
            "BatchAddClusterNodes",
            "BatchDeleteClusterNodes",
            "UpdateClusterSoftware",
            "BatchRebootClusterNodes",
            "BatchReplaceClusterNodes",
            "AddTags",
            "DeleteTags",
            "CreateClusterExtension",
            "UpdateClusterExtension",
            "DeleteClusterExtension",
        ),
        "replace": ("DeleteCluster", "CreateCluster"),
        "delete": ("DeleteCluster",),
        "none": (),
    },
    kinds={
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
        "MoveClusterNodes": "move-nodes",
        "CreateClusterExtension": "create-extension",
        "UpdateClusterExtension": "update-extension",
        "DeleteClusterExtension": "delete-extension",
    },
)
TAGGING = frozenset({"AddTags", "DeleteTags"})
EXTENSIONS = frozenset({"CreateClusterExtension", "UpdateClusterExtension", "DeleteClusterExtension"})  # name the cluster by its ARN
REPAIRS = ("BatchRebootClusterNodes", "BatchReplaceClusterNodes")  # name the cluster by its ARN (ResourceArn), not ClusterName


def step_problems(plan: Plan, create_request: dict[str, Any] | None = None) -> list[str]:
    """Why the steps cannot be this plan's; empty when they can. `create_request`: the CreateCluster
    request the plan's spec makes, which a create step must be."""
    problems = []
    for number, step in enumerate(plan.steps, 1):
        where = f"step {number} ({step.operation})"
        not_made = operation_problem(plan, step, where, OPERATIONS)
        if not_made:
            problems.append(not_made)
            continue
        problems += filter(None, [kind_problem(step, where, OPERATIONS)])
        if step.operation in TAGGING:
            if plan.basis is None or step.request.get("ResourceArn") != plan.basis.identity:
                problems.append(f"{where}: tags resource {step.request.get('ResourceArn')!r}, not the plan's cluster")
            continue
        if step.operation == "MoveClusterNodes":
            problems += _move_problems(plan, step, where)
            continue
        if step.operation in EXTENSIONS:
            problems += filter(None, [_extension_problem(plan, step, where)])
            continue
        problems += _request_problems(plan, number, step, where, create_request)
    if plan.action == "replace" and [step.operation for step in plan.steps] != list(OPERATIONS.by_action["replace"]):
        problems.append("a replace plan deletes the cluster, then creates it: exactly those two steps")
    return problems


def _extension_problem(plan: Plan, step: Step, where: str) -> str | None:
    """An extension step acts on the plan's cluster: its ARN, or on a new cluster none yet (apply
    gives it the ARN CreateCluster answers)."""
    arn = step.request.get("ClusterArn")
    if plan.action == "create":
        return None if arn is None else f"{where}: names cluster {arn!r}; a new cluster's extension is given its ARN at apply"
    if plan.basis is None or arn != plan.basis.identity:
        return f"{where}: acts on cluster {arn!r}, not the plan's cluster"
    return None


def _request_problems(plan: Plan, number: int, step: Step, where: str, create_request: dict[str, Any] | None) -> list[str]:
    problems = []
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
    return problems


def _move_problems(plan: Plan, step: Step, where: str) -> list[str]:
    """A move acts from the plan's cluster (its ARN) to a group of it or (a fleet's move, fleet/moves.py,
    coded `fleet-move`) of another cluster of its account and region, from the group its victims are in, and names exactly
    the nodes its victims list (aws/planner/moves.py)."""
    problems = []
    identity = plan.basis.identity if plan.basis is not None else None
    if step.request.get("SourceClusterArn") != identity:
        problems.append(f"{where}: SourceClusterArn is {step.request.get('SourceClusterArn')!r}, not the plan's cluster")
    target = str(step.request.get("TargetClusterArn"))
    fleet = StepReason.FLEET_MOVE in step.codes and identity is not None and target.rsplit("/", 1)[0] == identity.rsplit("/", 1)[0]
    if target != identity and not fleet:
        problems.append(f"{where}: TargetClusterArn is {target!r}, neither the plan's cluster nor another of its account and region")
    if sorted(_request_nodes(step)) != sorted(victim.node_id for victim in step.victims):
        problems.append(f"{where}: the nodes it names are not the nodes its victims list says move")
    if {victim.group for victim in step.victims} - {step.request.get("SourceInstanceGroupName")}:
        problems.append(f"{where}: it moves nodes of a group other than its SourceInstanceGroupName")
    return problems + _unknown_nodes(plan, step, where)


def _unknown_nodes(plan: Plan, step: Step, where: str) -> list[str]:
    """A reboot, replacement or rollout names only nodes of the cluster the plan was made against."""
    known = {key for key, _, _ in plan.basis.node_states()} if plan.basis is not None else set()
    named = [*_request_nodes(step), *(i for b in step.batches for i in b)]
    strangers = sorted(set(named) - known)
    return [f"{where}: names node(s) {', '.join(strangers[:5])} the plan was not made against"] if strangers else []


def _request_nodes(step: Step) -> list[str]:
    return [str(node) for field in ("NodeIds", "NodeLogicalIds") for node in step.request.get(field) or ()]
