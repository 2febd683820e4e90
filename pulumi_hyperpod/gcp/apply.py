"""apply(client, plan, …): execute a GCP plan's steps exactly, then wait on each long-running
operation with a deadline and progress.

Before every write the cluster is read again: a PATCH or DELETE goes out only when the cluster's
configuration is still the one the plan was computed against (else: plan again); a cluster still
PROVISIONING or UPDATING is waited for first (the service refuses updates then, FAILED_PRECONDITION).
And the policy's guard is checked again on the cluster just read: the step's disruption, read from its
kind's declaration (plans/steps.py), takes no protected node down (PlanRefused).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.core.contract import (
    ApplyError,
    ApplyInterrupted,
    ApplyOptions,
    ApplyResult,
    PlanInvalid,
    PlanRefused,
    PlanStale,
    settled_outcome,
)
from pulumi_hyperpod.plans.model import Plan, Refusal, Step
from pulumi_hyperpod.plans.steps import declaration
from pulumi_hyperpod.gcp.client import GcpApiError, OperationTimeout
from pulumi_hyperpod.gcp.observe import GcpClusterState, observe
from pulumi_hyperpod.gcp.planner.build import fingerprint_of, stale_reasons
from pulumi_hyperpod.gcp.planner import CREATE, DELETE, PATCH, WAITABLE_STATES
from pulumi_hyperpod.gcp.status import status_of  # noqa: F401 - in gcp/status.py (an observation, not an apply); named here too
from pulumi_hyperpod.gcp.planner.compare import POOL_IMMUTABLE, covered
from pulumi_hyperpod.gcp.planner.codes import RefusalRule

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.policy import Policy
    from pulumi_hyperpod.gcp.clients import TrainingClusterClient

Progress = Callable[[str], None]


# the calls each kind of plan makes, in order (planner.py)
STEPS_OF_ACTION = {"create": (CREATE,), "update": (PATCH,), "delete": (DELETE,), "replace": (DELETE, CREATE), "none": ()}
# the kind of step each call is (plans/steps.py): the declaration the guard reads the disruption from
KIND_OF = {CREATE: "create-cluster", PATCH: "update-cluster", DELETE: "delete-cluster"}


DEFAULT_TIMEOUT = 7200.0  # a GPU pool's provisioning takes long


def apply(client: TrainingClusterClient, the_plan: Plan, options: ApplyOptions | None = None, policy: Policy | None = None) -> ApplyResult:
    """Run the plan's calls; wait on their operations unless `options.wait` is "none" (every other
    value waits for the operation, which ends when the cluster is RUNNING with its pools). `policy`:
    the guards checked again on the cluster as read right before each write."""
    options = options or ApplyOptions(timeout=DEFAULT_TIMEOUT)
    if the_plan.refused:
        raise PlanRefused(the_plan)
    check_steps(the_plan)
    say = _once(options.progress)
    wait = options.waits
    deadline = client.monotonic() + options.timeout
    result = ApplyResult(the_plan.cluster_name)
    for index, step in enumerate(the_plan.steps, 1):
        try:
            _run(client, the_plan, step, wait, deadline, say, result, policy)
        except (GcpApiError, OperationTimeout) as error:
            raise ApplyError(str(error), result.calls) from None
        except KeyboardInterrupt:  # SIGINT: what was sent, what was under way (core/contract.py)
            sent = step.operation in result.calls[len(result.calls) - 1 :]
            doing = (
                f"while waiting on the operation of step {index}/{len(the_plan.steps)} ({step.operation}, accepted)"
                if sent
                else f"during step {index}/{len(the_plan.steps)} ({step.operation}, which may or may not have reached the service)"
            )
            raise ApplyInterrupted(the_plan.cluster_name, list(result.calls), doing) from None
    if the_plan.steps and the_plan.action != "delete":
        result.state = observe(client, the_plan.cluster_name)
    if not wait and the_plan.steps:
        result.outcome = "started"
    elif the_plan.steps:
        short = [(step, lines) for step in the_plan.steps if (lines := shortfalls(the_plan, step, result.state))]
        result.failures.extend(line for _, lines in short for line in lines)
        result.outcome = settled_outcome(result.outcome, len(short), len(short) < len(the_plan.steps))
    return result


def shortfalls(the_plan: Plan, step: Step, state: GcpClusterState | None) -> list[str]:
    """What of a waited-for step's effect the cluster, read after its operation ended, does not show,
    by its kind's completion (plans/steps.py): the operation's end is not the whole answer — a
    cluster left in ERROR, or a pool the service did not size as asked, is short."""
    completion = declaration(step.kind).completion
    if step.operation == DELETE:
        return []  # the operation's end is the cluster's going (a replacement's create follows)
    if state is None:
        return [f"{step.operation}: the cluster {the_plan.cluster_name} is not there after its operation ended"]
    short = (
        []
        if state.state == "RUNNING"
        else [f"{step.operation}: the cluster is {state.state}, not RUNNING ({state.detail or 'no detail given'})"]
    )
    if completion == "group-targets":
        for row in the_plan.groups:
            pool = state.pool(row.group)
            if (
                row.action in ("create", "grow", "shrink")
                and row.target_after is not None
                and pool is not None
                and pool.target != row.target_after
            ):
                short.append(f"{step.operation}: pool {row.group} has max_node_count {pool.target}, the plan asked for {row.target_after}")
    return short


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
        if step.kind != KIND_OF[step.operation]:
            raise PlanInvalid(
                f"step {index + 1} ({step.operation}) is of kind {KIND_OF[step.operation]}, not {step.kind}: make the plan again"
            )
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
    client: TrainingClusterClient,
    the_plan: Plan,
    step: Step,
    wait: bool,
    deadline: float,
    say: Progress,
    result: ApplyResult,
    policy: Policy | None = None,
) -> None:
    request = step.request
    if step.operation == CREATE:
        name = f"{request['parent']}/modelDevelopmentClusters/{request['modelDevelopmentClusterId']}"
        if the_plan.action != "replace" and client.find_cluster(name) is not None:
            raise PlanStale(the_plan, [f"a cluster {name} exists now but did not when the plan was made"])
        say(f"{CREATE} {name}")
        operation = client.create_cluster(request["parent"], request["modelDevelopmentClusterId"], request["body"])
    elif step.operation == PATCH:
        operation = _patch(client, the_plan, step, deadline, say, policy)
    elif step.operation == DELETE:
        _guard(the_plan, step, _ready(client, the_plan, request["name"], deadline, say, allow_missing=True), policy)
        say(f"{DELETE} {request['name']}")
        operation = client.delete_cluster(request["name"])
    else:
        raise ApplyError(f"{step.operation} is not a call of this cloud", result.calls)
    result.calls.append(step.operation)
    # a replacement must see the delete finish before it creates; otherwise wait as asked
    if wait or (step.operation == DELETE and the_plan.action == "replace"):
        verb = step.operation.replace("ModelDevelopmentCluster", "")
        client.wait_operation(operation, max(deadline - client.monotonic(), 0.0), verb.lower(), progress=lambda p: say(str(p)))


def _patch(
    client: TrainingClusterClient, the_plan: Plan, step: Step, deadline: float, say: Progress, policy: Policy | None
) -> dict[str, Any]:
    """Read, check, write: PATCH once the cluster is RUNNING and as planned, carrying the etag of the
    version just checked, so the service refuses the write (ABORTED) if another writer changed the
    cluster between the check and the call. Another writer's update in flight (FAILED_PRECONDITION)
    or a lost etag race (ABORTED): wait and check again — which refuses if the configuration is no
    longer the planned one — rather than fail, and never write over it."""
    request = step.request
    while True:
        state = _ready(client, the_plan, request["name"], deadline, say)
        if state is not None:
            _removals_shown(the_plan, request, state)
            _guard(the_plan, step, state, policy)
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
    not show: a pool left out is a `delete` row, a smaller max_node_count a `shrink` row to that
    count, and a pool is never sent with other immutable fields (the service cannot change them). Checked on the live cluster, so a
    hand-built or edited plan cannot take nodes its reviewer did not see go."""
    rows = {g.group: g for g in the_plan.groups}
    for pool, expected, what, target in _losing_pools(request, state):
        row = rows.get(pool.id)
        if expected == "shrink" and row is not None and row.action == "shrink" and row.target_after == target:
            continue
        if row is None or row.action != expected:
            raise PlanInvalid(
                f"the PATCH {what} of {pool.id!r}, which the plan's rows do not show "
                f"({row.action if row else 'no row'}): make the plan again"
            )


def _losing_pools(request: dict[str, Any], state: GcpClusterState) -> list[tuple[Any, str, str, int | None]]:
    """The pools a PATCH takes nodes from, on the cluster as read: (pool, how — delete or shrink —, in
    words, the max_node_count it is lowered to). A pool sent with other immutable fields is no plan
    of this tool's (the service cannot change them in place): PlanInvalid."""
    if "node_pools" not in str(request.get("updateMask", "")).split(","):
        return []
    sent = {p.get("id"): p for p in request["body"].get("node_pools") or () if isinstance(p, dict)}
    losing: list[tuple[Any, str, str, int | None]] = []
    for pool in state.pools:
        new = sent.get(pool.id)
        have = state.pool_body(pool.id) or {}
        if new is None:
            losing.append((pool, "delete", "removes the pool", None))
        elif any(f in new and not covered(new[f], have.get(f), f) for f in POOL_IMMUTABLE):
            raise PlanInvalid(
                f"the PATCH changes an immutable field of pool {pool.id!r}, which no plan of this tool sends: make the plan again"
            )
        else:
            target = int((new.get("scaling_spec") or {}).get("max_node_count") or 0)
            if target < len(pool.nodes) or target < pool.target:
                losing.append((pool, "shrink", f"lowers max_node_count to {target}", target))
    return losing


def _guard(the_plan: Plan, step: Step, state: GcpClusterState | None, policy: Policy | None) -> None:
    """The policy's guard on this call, on the cluster as just read: the nodes the step's disruption
    (its kind's declaration) falls on hold no protected node — every node for `all` (the cluster
    deleted), the nodes of the pools the PATCH takes nodes from for `chosen-by-service` (Google Cloud
    chooses which go). Google Cloud's calls name no node, so no other scope is theirs."""
    guarded = policy.protected_node_ids if policy is not None else frozenset()
    if state is None or not guarded:
        return
    disruption = declaration(KIND_OF[step.operation]).disruption
    if disruption.scope == "all":
        pools = list(state.pools)
    elif disruption.scope == "chosen-by-service":
        pools = [pool for pool, _, _, _ in _losing_pools(step.request, state)]
    else:
        return
    hit = sorted(n for pool in pools for n in guarded if pool.holds(n))
    if hit:
        raise PlanRefused(
            the_plan.refuse(
                Refusal(
                    RefusalRule.APPLY_GUARD,
                    f"{step.operation} would take protected node(s) {', '.join(hit)} down ({disruption.how}); "
                    "a protected node is never taken down by a plan",
                )
            )
        )


def _ready(
    client: TrainingClusterClient, the_plan: Plan, name: str, deadline: float, say: Progress, allow_missing: bool = False
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
