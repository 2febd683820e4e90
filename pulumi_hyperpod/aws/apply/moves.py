"""Apply's MoveClusterNodes (plans/steps.py "move-nodes"; aws/planner/moves.py plans it).

- The request carries a ClientToken derived from the plan — its cluster, the step's groups and nodes,
  and the two groups' TargetCounts the step starts from — never chosen at random: a retry of the same
  step (botocore's retries, a re-run after a crash) "returns the original response. It doesn't start a
  new move" (the operation's documentation, within 8 hours).
- Each node the service refuses (the response's `Failed`: NodeIdNotFound, InvalidNodeStatus,
  NodeIdInUse, NodeInstanceTypeMismatch) is a failure of the run, one line each; a whole request the
  service refuses (below the source's MinCount, a cluster not InService) is an ApplyError.
- The step waits for its declared completion: each accepted node listed in the target group (the
  hand-off, after DetachInProgress), so the calls after it see the counts the move left. A fleet's
  move (fleet/moves.py) names another cluster of the account and region as its target: the node
  detaches in this cluster and is looked for in that one. Its
  lifecycle scripts run on (AttachInProgress): the final observation holds it to `nodes-moved`.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.aws.observe import observe

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.apply.executor import _Run
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.plans import Plan, Step

OPERATION = "MoveClusterNodes"


def client_token(plan: Plan, step: Step, targets: dict[str, int]) -> str:
    """The same step from the same counts is one request (see the module's docstring)."""
    source, target = step.request["SourceInstanceGroupName"], step.request["TargetInstanceGroupName"]
    arn = plan.basis.identity if plan.basis is not None else plan.cluster_name
    material = json.dumps(
        [arn, OPERATION, source, target, sorted(step.request.get("NodeIds") or ()), targets.get(source), targets.get(target)],
        sort_keys=True,
    )
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def move_nodes(run: _Run, step: Step, verify: bool) -> None:
    source, target = step.request["SourceInstanceGroupName"], step.request["TargetInstanceGroupName"]
    request = {**step.request, "ClientToken": client_token(run.plan, step, run.expected.targets)}
    run.sent.setdefault(run.step, set()).update(step.request.get("NodeIds") or ())
    response = run.call(OPERATION, request, verify)
    accepted = list(response.get("Successful") or [])
    for failure in response.get("Failed") or []:
        run.result.failures.append(
            f"{OPERATION} {failure.get('NodeId')}: {failure.get('Code')} ({failure.get('Message', '')}); it stays in {source}"
        )
    if not accepted:
        return
    run.say(f"moving {len(accepted)} node(s) from {source} to {target}: {', '.join(accepted)}")
    if source in run.expected.targets:  # the service lowers the source's count when it accepts the move
        run.expected.targets[source] = max(run.expected.targets[source] - len(accepted), 0)
    handed = _wait_handed_off(run, accepted, target, elsewhere(step))
    if target in run.expected.targets:  # and raises the target's as each node joins it
        run.expected.targets[target] += len(handed)


def elsewhere(step: Step) -> str | None:
    """The target cluster's ARN when the step moves nodes to another cluster (None: within its own)."""
    target = step.request.get("TargetClusterArn")
    return target if target != step.request.get("SourceClusterArn") else None


def _wait_handed_off(run: _Run, accepted: list[str], target: str, target_cluster: str | None) -> list[str]:
    """Poll until no accepted node is still detaching (DetachInProgress), or the deadline; the nodes
    listed in the target group then (of the target cluster when it is another). One that is not (the
    move was cancelled: the target group went meanwhile) is a failure, named."""
    while True:
        state = observe(run.client, run.name)
        run.last_state = state
        there = observe(run.client, target_cluster) if target_cluster else state
        nodes = {key: _node(there, key) or _node(state, key) for key in accepted}
        handed = [key for key in accepted if (node := _node(there, key)) is not None and node.group == target]
        detaching = [key for key, node in nodes.items() if node is not None and node.status == "DetachInProgress"]
        if not detaching or run.remaining() <= 0:
            break
        run.sleep(min(run.poll_seconds if run.poll_seconds is not None else 30.0, run.remaining()))
    run.say(f"{len(handed)} node(s) joined {target}")
    for key in sorted(set(accepted) - set(handed)):
        node = nodes[key]
        where = "gone" if node is None else f"{node.status} in {node.group}"
        late = " at the deadline" if key in detaching else ""
        run.result.failures.append(f"{OPERATION} {key}: not in {target}{late} ({where})")
    return handed


def _node(state: ClusterState | None, key: str) -> Any:
    return state.node(key) if state is not None else None


def not_moved(step: Step, state: ClusterState | None, sent: frozenset[str]) -> list[str]:
    """`nodes-moved`: each node the step named is listed in its target group and not in Failure (one
    still attaching, its lifecycle scripts running, is in flight, not short). `state`: the target
    cluster as observed (the step's own cluster, or the other one of a fleet's move)."""
    if state is None:
        return []
    target = step.request.get("TargetInstanceGroupName")
    short = []
    for key in sorted(sent):
        node = state.node(key)
        if node is None:
            short.append(f"{key} is gone after {OPERATION}")
        elif node.group != target:
            short.append(f"{key} is still in {node.group} ({node.status}) after {OPERATION}, not in {target}")
        elif node.status == "Failure":
            short.append(f"{key} is in Failure in {target} after {OPERATION}: {node.message or 'no reason given'}")
    return short
