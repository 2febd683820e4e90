"""Applying node-lifecycle steps: UpdateClusterSoftware, BatchRebootClusterNodes, BatchReplaceClusterNodes.

- A rollout is followed to its end before the next step (the service takes no other software update,
  and an all-or-nothing cluster no other write, while it runs), by the service's own status: each
  named group's SoftwareUpdateStatus is no longer Pending, InProgress or RollbackInProgress and the
  cluster is InService (`waiters.software_update_waiter`). A group whose update ended otherwise than
  Succeeded (an alarm rolled it back: RollbackComplete) or that does not run the image asked for is a
  failure naming the cluster's last event about it.
- A repair re-reads the nodes it names right before the call: a node gone since the plan is skipped
  and said so; the per-node failures the service reports are failures of the run. A replacement is
  followed until the new instances are Running (lifecycle scripts and deep health checks included) or
  fail, within the deadline.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.aws.apply.waiters import SOFTWARE_UPDATE_WAITER, software_update_waiter
from pulumi_hyperpod.aws.observe import observe
from pulumi_hyperpod.aws.planner.software import runs_image
from pulumi_hyperpod.core.contract import ApplyError

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans import Step
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.apply.executor import _Run

SETTLED = frozenset({"Running", "Failure"})


def update_cluster_software(run: _Run, step: Step, verify: bool) -> None:
    run.call("UpdateClusterSoftware", step.request, verify)
    nodes = sum(len(batch) for batch in step.batches)
    run.say(f"software update started: {nodes} node(s) in {len(step.batches)} batch(es)")
    names = [entry["InstanceGroupName"] for entry in step.request.get("InstanceGroups") or ()]
    response = run._wait(SOFTWARE_UPDATE_WAITER, config=software_update_waiter(names))
    short = software_shortfalls(step, {g.get("InstanceGroupName"): g for g in response.get("InstanceGroups") or ()})
    if short:
        reason = _last_software_event(run) or "the service gave no reason"
        run.result.failures.extend(f"{line} ({reason})" for line in short)
    if not run.result.failures:
        run.say("software update completed")


def image_shortfalls(step: Step, state: ClusterState) -> list[str]:
    """The groups of a rollout that did not end on the image it asked for (its completion: plans/steps.py)."""
    return software_shortfalls(step, {g.name: g.described for g in state.groups})


def software_shortfalls(step: Step, described: dict[str, dict[str, Any]]) -> list[str]:
    """Per group a rollout names (DescribeCluster's entries by name): how its update ended otherwise
    than Succeeded (the service says: RollbackComplete, Failed), or the image it runs when not the one asked."""
    wanted = step.request.get("ImageId")
    lines = []
    for entry in step.request.get("InstanceGroups") or ():
        name = entry["InstanceGroupName"]
        group = described.get(name)
        if group is None:
            continue
        status = group.get("SoftwareUpdateStatus")
        if status is not None and status != "Succeeded":
            lines.append(f"UpdateClusterSoftware {name}: SoftwareUpdateStatus {status}")
            continue
        short = runs_image(group, wanted, entry.get("ImageReleaseVersion"))
        if short:
            lines.append(f"UpdateClusterSoftware {name}: {'; '.join(short)} after the update")
    return lines


def _last_software_event(run: _Run) -> str | None:
    try:
        events = (
            run.client.list_cluster_events(ClusterName=run.name, ResourceType="Cluster", SortOrder="Descending", MaxResults=20).get(
                "Events"
            )
            or []
        )
    except Exception:  # events exist only on Continuous clusters; the failure stands without one
        return None
    return next((e.get("Description") for e in events if "software update" in (e.get("Description") or "")), None)


def batch_repair(run: _Run, step: Step, verify: bool) -> None:
    """BatchRebootClusterNodes / BatchReplaceClusterNodes on the nodes still there."""
    state = run.verify_unmoved() if verify else observe(run.client, run.name)
    request: dict[str, Any] = {"ClusterName": step.request["ClusterName"]}
    followed: list[str] = []
    for field in ("NodeIds", "NodeLogicalIds"):
        present = []
        for node_id in step.request.get(field) or ():
            node = state.node(node_id) if state is not None else None
            if node is None or node.status == "ShuttingDown":
                run.say(f"{node_id}: gone since the plan was made; not {_verb(step)}ed")
                continue
            present.append(node_id)
            followed.append(node.logical_id or node_id)
        if present:
            request[field] = present
    if len(request) == 1:
        return
    response = run.call(step.operation, request, verify=False)
    done = list(response.get("Successful") or []) + list(response.get("SuccessfulNodeLogicalIds") or [])
    run.say(f"{_verb(step)}ing {len(done)} node(s)")
    for failure in (response.get("Failed") or []) + (response.get("FailedNodeLogicalIds") or []):
        node = failure.get("NodeId") or failure.get("NodeLogicalId")
        run.result.failures.append(f"{step.operation} {node}: {failure.get('ErrorCode')} ({failure.get('Message', '')})")
    if step.operation == "BatchReplaceClusterNodes" and done:
        _follow_replacements(run, [f for f in followed if f])


def _verb(step: Step) -> str:
    return "replac" if step.operation == "BatchReplaceClusterNodes" else "reboot"


def _follow_replacements(run: _Run, logical_ids: list[str]) -> None:
    """Until each replaced node has a new instance that is Running or failed (lifecycle scripts run again)."""
    while run.remaining() > 0:
        state = observe(run.client, run.name)
        if state is None:
            return
        nodes = [state.node(key) for key in logical_ids]
        if all(node is not None and node.status in SETTLED and node.instance_id for node in nodes):
            for node in nodes:
                if node.status == "Failure":
                    run.result.failures.append(
                        f"replacement of {node.logical_id} ({node.group}) failed: {node.message or 'no reason given'}"
                    )
                else:
                    run.say(f"{node.logical_id}: new instance {node.instance_id} Running")
            return
        run.sleep(min(run.poll_seconds if run.poll_seconds is not None else 30.0, run.remaining()))
    run.result.failures.append("the replaced nodes were not Running by the deadline")


# ---- the service's own record of scaling (ListClusterOperations / DescribeClusterOperation) --------------
SCALING_CALLS = frozenset({"UpdateCluster", "BatchAddClusterNodes", "BatchDeleteClusterNodes"})


def newest_operation(run: _Run, operation: str) -> str | None:
    """Before a scaling call: the newest Scaling operation the service has recorded (None: none, or no list)."""
    newest = _newest_scaling(run) if operation in SCALING_CALLS else None
    return newest["OperationId"] if newest else None


def note_operation(run: _Run, operation: str, before: str | None) -> None:
    """After a scaling call: the Scaling operation the service recorded for it, named in the progress.
    A call that moves no count (UpdateCluster of a label) records none: the newest is then still
    `before`, another call's, and is not named as this one's."""
    if operation not in SCALING_CALLS:
        return
    summary = _newest_scaling(run)
    if summary and summary["OperationId"] != before and summary["OperationId"] not in run.operation_ids:
        run.operation_ids.append(summary["OperationId"])
        run.say(f"{operation}: service operation {summary['OperationId']} ({summary['Status']})")


def _newest_scaling(run: _Run) -> dict | None:
    try:
        page = run.client.list_cluster_operations(ClusterName=run.name, Type="Scaling", SortOrder="Descending", MaxResults=1)
    except Exception:  # an API without the operations list (older regions, a stubbed client): nothing to follow
        return None
    return next(iter(page.get("ClusterOperationSummaries") or ()), None)


def report_operations(run: _Run) -> None:
    """At the end: each followed operation's status and per-group counts, from DescribeClusterOperation."""
    for operation_id in run.operation_ids:
        try:
            detail = run.client.describe_cluster_operation(ClusterName=run.name, OperationId=operation_id)
        except Exception:  # the cluster is gone (a delete) or the record expired: nothing left to show
            continue
        groups = ", ".join(
            f"{d['InstanceGroupName']} {d.get('Original', {}).get('TargetCount')} → "
            f"{d.get('Desired', {}).get('TargetCount')} ({d.get('Status')})"
            for d in detail.get("ScalingDetails") or ()
        )
        run.say(f"service operation {operation_id}: {detail['Status']}" + (f"; {groups}" if groups else ""))


# ---- canary scale-out (planner/canary.py) -----------------------------------------------------------
def canary(run: _Run, handler, index: int, step: Step, verify: bool) -> None:
    """Add the canary nodes, then wait until each runs (lifecycle scripts and deep health checks passed).
    A canary in Failure stops the apply (ApplyError) before the rest is added: the nodes obtained stay."""
    groups = {e["InstanceGroupName"] for e in step.request["NodesToAdd"]}
    before = observe(run.client, run.name)
    known = {n.logical_id for n in before.nodes} if before is not None else set()
    handler(index, step, verify)
    wanted = sum(e["IncrementTargetCountBy"] for e in step.request["NodesToAdd"])
    run.say(f"canary: waiting for {wanted} new node(s) of {', '.join(sorted(groups))} to pass lifecycle scripts and health checks")
    while run.remaining() > 0:
        state = observe(run.client, run.name)
        new = [n for n in (state.nodes if state is not None else ()) if n.group in groups and n.logical_id not in known]
        failed = [n for n in new if n.status == "Failure"]
        if failed:
            node = failed[0]
            event = _node_event(run, node.instance_id)
            raise ApplyError(
                f"canary node {node.instance_id or node.logical_id} ({node.group}) failed: "
                f"{node.message or 'no reason given'}"
                + (f" — event: {event}" if event else "")
                + f". Stopped before adding the rest; the {len(new) - len(failed)} other new node(s) are kept",
                list(run.result.calls),
            )
        if len(new) >= wanted and all(n.status == "Running" for n in new):
            run.say(f"canary passed: {', '.join(n.instance_id or n.logical_id for n in new)} Running")
            return
        run.sleep(min(run.poll_seconds if run.poll_seconds is not None else 30.0, run.remaining()))
    raise ApplyError("the canary nodes were not Running by the deadline; the rest was not added", list(run.result.calls))


def _node_event(run: _Run, instance_id: str | None) -> str | None:
    """The node's latest Error event (its lifecycle script's failure, say); None where there are no events."""
    if not instance_id:
        return None
    try:
        events = (
            run.client.list_cluster_events(ClusterName=run.name, NodeId=instance_id, SortOrder="Descending", MaxResults=20).get("Events")
            or []
        )
    except Exception:  # events exist only on Continuous clusters
        return None
    return next((e.get("Description") for e in events if e.get("EventLevel") == "Error"), None)
