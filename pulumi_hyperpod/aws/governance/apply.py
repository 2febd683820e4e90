"""Apply a task governance plan: its premise read again, its one call, then a wait until the resource
settles (Created or Updated; gone after a delete), under the one apply contract (core/contract.py).

Before the call, what the step assumes is read again (plans/steps.py): a create, that no resource of
the name is on the cluster; an update or a delete, that the resource is the one the plan read, at the
version it read (UpdateComputeQuota's TargetVersion is that version: the service refuses another with
ConflictException, so a plan made before someone else's change is stale, never half-applied). A moved
premise is PlanStale and nothing is called.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from botocore.exceptions import ClientError

from pulumi_hyperpod.aws.governance import observe
from pulumi_hyperpod.aws.governance.kinds import FAILED, KINDS, SETTLED, Kind
from pulumi_hyperpod.core.contract import ApplyError, ApplyOptions, ApplyResult, PlanInvalid, PlanRefused, PlanStale
from pulumi_hyperpod.plans.model import Plan, Step

DEFAULT_POLL = 5.0


def kind_of_step(step: Step) -> Kind:
    for kind in KINDS:
        if step.operation in (kind.operation("Create"), kind.operation("Update"), kind.operation("Delete")):
            return kind
    raise PlanInvalid(f"step {step.operation} is not a task governance call")


def stale_reasons(client: Any, plan: Plan, step: Step) -> list[str]:
    """What moved since the plan was read, for the step's premise (empty: it holds)."""
    kind, facts = kind_of_step(step), plan.basis.facts_of("cluster") if plan.basis else {}
    cluster = observe.read_cluster(client, facts.get("cluster") or step.request.get("ClusterArn", ""))
    if cluster.arn != facts.get("cluster"):
        return [f"cluster {cluster.name} is {cluster.arn}, not {facts.get('cluster')}"]
    if step.kind == "create-resource":
        found = observe.find(client, kind, cluster.arn, step.request["Name"])
        return [f"{kind.label} {step.request['Name']} exists now ({found[kind.arn_member]})"] if found else []
    found = observe.describe(client, kind, facts["id"])
    if found is None:
        return [f"{kind.label} {facts['id']} is gone"]
    version = plan.basis.facts_of("configuration").get("version") if plan.basis else None
    if str(found[kind.version_member]) != version:
        return [f"{kind.label} {found['Name']} is at version {found[kind.version_member]}, the plan read version {version}"]
    return []


def apply(client: Any, plan: Plan, options: ApplyOptions | None = None, sleep: Callable[[float], Any] = time.sleep) -> ApplyResult:
    options = options or ApplyOptions()
    if plan.refused:
        raise PlanRefused(plan)
    result = ApplyResult(plan.cluster_name)
    if not plan.steps:
        return result
    (step,) = plan.steps  # a governance plan is one call (planner.py)
    kind = kind_of_step(step)
    if options.check_fresh:
        moved = stale_reasons(client, plan, step)
        if moved:
            raise PlanStale(plan, moved)
    say = options.progress or (lambda _message: None)
    say(f"{step.operation} ({step.kind})")
    try:
        answer = observe.call(client, step.operation, step.request)
    except ClientError as error:
        raise ApplyError(f"{step.operation} failed: {error}", []) from None
    result.calls.append(step.operation)
    rid = str(answer.get(kind.id_member) or step.request.get(kind.id_member))
    if not options.waits:
        result.outcome = "started"
        return result
    return _wait(client, kind, step, rid, options, sleep, say, result)


def _wait(
    client: Any,
    kind: Kind,
    step: Step,
    rid: str,
    options: ApplyOptions,
    sleep: Callable[[float], Any],
    say: Callable[[Any], Any],
    result: ApplyResult,
) -> ApplyResult:
    """Poll Describe* until the step's completion (plans/steps.py `resource-status`) or the deadline;
    the time waited is the polls' sum, so a simulated clock (sleep=sim.advance) keeps it exact."""
    poll = DEFAULT_POLL if options.poll_seconds is None else options.poll_seconds
    waited = 0.0
    while True:
        found = observe.describe(client, kind, rid)
        status = None if found is None else found["Status"]
        if step.kind == "delete-resource" and found is None:
            return result
        if step.kind != "delete-resource" and status in SETTLED:
            result.state = found
            return result
        if status in FAILED:
            result.outcome = "failed"
            result.failures.append(
                f"{kind.label} {found['Name'] if found else rid}: {status}: {found.get('FailureReason', 'no reason given') if found else ''}"
            )
            return result
        if waited >= options.timeout:
            result.outcome = "timeout"
            result.messages.append(f"{kind.label} {rid} still {status} after {options.timeout:g} s")
            return result
        say(f"{kind.label} {rid}: {status or 'gone'}")
        step_seconds = max(poll, 0.01)
        sleep(step_seconds)
        waited += step_seconds
