"""apply(client, plan, …): execute a GCP plan's steps exactly, then wait on each long-running
operation with a deadline and progress.

Before every write the cluster is read again: a PATCH or DELETE goes out only when the cluster's
configuration is still the one the plan was computed against (else: plan again); a cluster still
PROVISIONING or UPDATING is waited for first (the service refuses updates then, FAILED_PRECONDITION).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..core.contract import (  # noqa: F401 - the one apply contract (core/contract.py), exported here too
    ApplyError,
    ApplyOptions,
    ApplyResult,
    PlanInvalid,
    PlanRefused,
    PlanStale,
)
from ..plan.model import Plan, Step
from .client import GcpApiError, OperationTimeout
from .observe import GcpClusterState, observe
from .plan_build import fingerprint_of, stale_reasons
from .planner import CREATE, DELETE, PATCH, WAITABLE_STATES
from .status import status_of  # noqa: F401 - in gcp/status.py (an observation, not an apply); named here too

if TYPE_CHECKING:  # pragma: no cover
    from .clients import TrainingClusterClient

Progress = Callable[[str], None]


# the calls each kind of plan makes, in order (planner.py)
STEPS_OF_ACTION = {"create": (CREATE,), "update": (PATCH,), "delete": (DELETE,), "replace": (DELETE, CREATE), "none": ()}


DEFAULT_TIMEOUT = 7200.0  # a GPU pool's provisioning takes long


def apply(client: "TrainingClusterClient", the_plan: Plan, options: ApplyOptions | None = None) -> ApplyResult:
    """Run the plan's calls; wait on their operations unless `options.wait` is "none" (every other
    value waits for the operation, which ends when the cluster is RUNNING with its pools)."""
    options = options or ApplyOptions(timeout=DEFAULT_TIMEOUT)
    if the_plan.refused:
        raise PlanRefused(the_plan)
    check_steps(the_plan)
    say = _once(options.progress)
    wait = options.waits
    deadline = client.monotonic() + options.timeout
    result = ApplyResult(the_plan.cluster_name)
    for step in the_plan.steps:
        try:
            _run(client, the_plan, step, wait, deadline, say, result)
        except (GcpApiError, OperationTimeout) as error:
            raise ApplyError(str(error), result.calls) from None
    if the_plan.steps and the_plan.action != "delete":
        result.state = observe(client, the_plan.cluster_name)
    if not wait and the_plan.steps:
        result.outcome = "started"
    return result


def check_steps(the_plan: Plan) -> None:
    """Every step acts on the plan's own cluster and is a call its action makes — a saved plan's
    hash only detects edits (anyone can recompute it), so this is checked before any call too."""
    operations = tuple(step.operation for step in the_plan.steps)
    expected = STEPS_OF_ACTION.get(the_plan.action)
    if expected is None or operations != expected:
        raise PlanInvalid(
            f"the calls of {the_plan.action!r} plans are {', '.join(expected or ()) or 'none'}; "
            f"this one has {', '.join(operations) or 'none'}: make the plan again"
        )
    for index, step in enumerate(the_plan.steps):
        target = _target(step)
        if target != the_plan.cluster_name:
            raise PlanInvalid(
                f"step {index + 1} ({step.operation}) acts on {target!r}, not on the plan's cluster "
                f"{the_plan.cluster_name!r}: make the plan again"
            )
    if the_plan.action in ("update", "delete", "replace") and not the_plan.observed_fingerprint:
        raise PlanInvalid("the plan does not say which configuration of the cluster it was made against: make it again")


def _target(step: Step) -> str | None:
    request = step.request if isinstance(step.request, dict) else {}
    if step.operation == CREATE:
        parent, cluster_id = request.get("parent"), request.get("modelDevelopmentClusterId")
        if not isinstance(parent, str) or not isinstance(cluster_id, str) or not isinstance(request.get("body"), dict):
            return None
        return f"{parent}/modelDevelopmentClusters/{cluster_id}"
    if step.operation == PATCH and not (isinstance(request.get("updateMask"), str) and isinstance(request.get("body"), dict)):
        return None
    name = request.get("name")
    return name if isinstance(name, str) else None


def _once(progress: Progress | None) -> Progress:
    """The progress callback, without repeats of the message it just had (a poll with no news)."""
    last: list[str] = []

    def say(message: str) -> None:
        if progress is not None and message not in last:
            progress(message)
        last[:] = [message]

    return say


def _run(
    client: "TrainingClusterClient", the_plan: Plan, step: Step, wait: bool, deadline: float, say: Progress, result: ApplyResult
) -> None:
    request = step.request
    if step.operation == CREATE:
        name = f"{request['parent']}/modelDevelopmentClusters/{request['modelDevelopmentClusterId']}"
        if the_plan.action != "replace" and client.find_cluster(name) is not None:
            raise PlanStale(the_plan, [f"a cluster {name} exists now but did not when the plan was made"])
        say(f"{CREATE} {name}")
        operation = client.create_cluster(request["parent"], request["modelDevelopmentClusterId"], request["body"])
    elif step.operation == PATCH:
        operation = _patch(client, the_plan, request, deadline, say)
    elif step.operation == DELETE:
        _ready(client, the_plan, request["name"], deadline, say, allow_missing=True)
        say(f"{DELETE} {request['name']}")
        operation = client.delete_cluster(request["name"])
    else:
        raise ApplyError(f"{step.operation} is not a call of this cloud", result.calls)
    result.calls.append(step.operation)
    # a replacement must see the delete finish before it creates; otherwise wait as asked
    if wait or (step.operation == DELETE and the_plan.action == "replace"):
        verb = step.operation.replace("ModelDevelopmentCluster", "")
        client.wait_operation(operation, max(deadline - client.monotonic(), 0.0), verb.lower(), progress=lambda p: say(str(p)))


def _patch(client: "TrainingClusterClient", the_plan: Plan, request: dict[str, Any], deadline: float, say: Progress) -> dict[str, Any]:
    """Read, check, write: PATCH once the cluster is RUNNING and as planned, carrying the etag of the
    version just checked, so the service refuses the write (ABORTED) if another writer changed the
    cluster between the check and the call. Another writer's update in flight (FAILED_PRECONDITION)
    or a lost etag race (ABORTED): wait and check again — which refuses if the configuration is no
    longer the planned one — rather than fail, and never write over it."""
    while True:
        state = _ready(client, the_plan, request["name"], deadline, say)
        if state is not None:
            _removals_shown(the_plan, request, state)
        body = {**request["body"], "etag": state.etag} if state is not None and state.etag else request["body"]
        say(f"{PATCH} {request['name']} (updateMask={request['updateMask']})")
        try:
            return client.patch_cluster(request["name"], request["updateMask"].split(","), body)
        except GcpApiError as error:
            if error.status not in ("FAILED_PRECONDITION", "ABORTED") or client.monotonic() >= deadline:
                raise
            say(f"the cluster changed meanwhile ({error.message}): waiting, then checking it again")


def _removals_shown(the_plan: Plan, request: dict[str, Any], state: GcpClusterState) -> None:
    """Whatever a Plan object says, the PATCH about to go out removes no node the plan's rows do
    not show: a pool left out is a `delete` row, a pool sent with other immutable fields a `replace`
    row, a smaller max_node_count a `shrink` row to that count. Checked on the live cluster, so a
    hand-built or edited plan cannot take nodes its reviewer did not see go."""
    from .compare import POOL_IMMUTABLE, covered

    if "node_pools" not in str(request.get("updateMask", "")).split(","):
        return
    sent = {p.get("id"): p for p in request["body"].get("node_pools") or () if isinstance(p, dict)}
    rows = {g.group: g for g in the_plan.groups}
    for pool in state.pools:
        new = sent.get(pool.id)
        row = rows.get(pool.id)
        have = state.pool_body(pool.id) or {}
        if new is None:
            expected, what = "delete", "removes the pool"
        elif any(f in new and not covered(new[f], have.get(f), f) for f in POOL_IMMUTABLE):
            expected, what = "replace", "swaps the pool (every node goes)"
        else:
            target = int((new.get("scaling_spec") or {}).get("max_node_count") or 0)
            if target >= len(pool.nodes) and target >= pool.target:
                continue
            expected, what = "shrink", f"lowers max_node_count to {target}"
            if row is not None and row.action in ("shrink", "replace") and row.target_after == target:
                continue
        if row is None or row.action != expected:
            raise PlanInvalid(
                f"the PATCH {what} of {pool.id!r}, which the plan's rows do not show "
                f"({row.action if row else 'no row'}): make the plan again"
            )


def _ready(
    client: "TrainingClusterClient", the_plan: Plan, name: str, deadline: float, say: Progress, allow_missing: bool = False
) -> GcpClusterState | None:
    """Wait out PROVISIONING/UPDATING; then the configuration must still be the planned one (the
    state read is returned: its etag goes with the write)."""
    while True:
        state = observe(client, name)
        if state is None:
            if allow_missing:
                return None
            raise PlanStale(the_plan, [f"the cluster {name} is gone"])
        if state.state not in WAITABLE_STATES:
            break
        if client.monotonic() >= deadline:
            raise OperationTimeout(f"{name} ({state.state})", 0)
        say(f"waiting: the cluster is {state.state}")
        client.sleep(client.poll_seconds)
    moved = stale_reasons(the_plan, state)
    if not moved and the_plan.observed_fingerprint and fingerprint_of(state) != the_plan.observed_fingerprint:
        moved = ["its configuration is not the one the plan was computed against"]
    if moved:
        raise PlanStale(the_plan, moved)
    return state
