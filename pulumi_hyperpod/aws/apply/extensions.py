"""Apply's cluster-extension steps (kinds create-extension, update-extension, delete-extension:
plans/steps.py), and their completion, `extension-status`.

- CreateClusterExtension on a cluster the plan creates waits for it to be InService first, and names it
  by the ARN the service reports (the plan could not know it).
- Create and Update carry a ClientToken (DeleteClusterExtension takes none) derived from the plan —
  the cluster, the call, its request and what the plan saw of the extension — so a retry of the same step (botocore's retries, a re-run after a
  crash) is one request to the service (the model's `idempotencyToken`: "completes no more than one
  time"), and a plan made again after the extension moved is another.
- A call the service refuses is the run's one-line error (executor.py): a ConflictException here is
  not the cluster being busy (the executor's retry) but a rule of the extension's, so it is not retried.
- Then, unless the wait policy is `none`, the extension is waited on (apply/waiters.py's
  `extension_waiter`, DescribeClusterExtension) until it is Active (at the version asked), or gone
  after a delete; a failed status ends the wait.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.apply.waiters import EXTENSION_FAILED, EXTENSION_WAITER, extension_waiter
from pulumi_hyperpod.aws.observe.reader import is_not_found

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.apply.executor import _Run
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.plans import Step

ACTIVE = "Active"
FAILED = frozenset(EXTENSION_FAILED)
IN_FLIGHT = frozenset({"Creating", "Updating", "Deleting"})
KINDS = frozenset({"create-extension", "update-extension", "delete-extension"})


def client_token(run: _Run, step: Step, request: dict[str, Any], attempt: int = 0) -> str:
    """The same step of the same plan against the same extension (as last written: its fact carries
    LastModifiedTime) is one request. `attempt`: a create answered from an earlier plan's request
    for an extension removed since asks again with the next token."""
    name = step.request.get("ExtensionName") or _name_of(run, step)
    seen = run.plan.basis.facts_of("extensions").get(str(name), "") if run.plan.basis is not None else ""
    material = json.dumps([step.operation, request, seen, attempt], sort_keys=True, default=str)
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def _name_of(run: _Run, step: Step) -> str | None:
    state = run.last_state
    arn = step.request.get("ExtensionArn")
    found = next((e for e in (state.extensions or ()) if e.arn == arn), None) if state is not None else None
    return found.name if found is not None else arn


def execute(run: _Run, step: Step, verify: bool) -> None:
    request = dict(step.request)
    if "ClusterArn" not in request:  # on the cluster this plan creates: once it is InService
        described = run._wait("ClusterInService")
        request["ClusterArn"] = described["ClusterArn"]
        verify = False  # nothing to compare: the plan saw no cluster
    tokened = "ClientToken" in servicemodel.input_shape(step.operation).members  # DeleteClusterExtension takes none
    for attempt in range(10):
        sent = {**request, "ClientToken": client_token(run, step, request, attempt)} if tokened else request
        response = run.call(step.operation, sent, verify, retry_busy=False)
        arn = response.get("ExtensionArn") or request.get("ExtensionArn")
        if step.kind != "create-extension" or _exists(run, request["ClusterArn"], arn):
            break
        # the same token answered an earlier, identical create whose extension was removed since
        run.say(f"{step.operation}: answered from an earlier request with the same token; asking again", "retry")
    label = request.get("ExtensionName") or arn
    run.say(f"{step.operation}: {label}")
    if run.wait_policy != "none" and arn:
        _wait(run, step, request["ClusterArn"], arn, str(label))


def _exists(run: _Run, cluster: str, arn: str | None) -> bool:
    try:
        run.client.describe_cluster_extension(ClusterArn=cluster, ExtensionArn=str(arn))
    except ClientError as error:
        if is_not_found(error):
            return False
        raise
    return True


def _wait(run: _Run, step: Step, cluster: str, arn: str, label: str) -> None:
    deleting = step.kind == "delete-extension"
    config = extension_waiter(deleting, step.request.get("ExtensionVersion"))
    response = run._wait(EXTENSION_WAITER, config=config, params={"ClusterArn": cluster, "ExtensionArn": arn})
    details = response.get("ExtensionDetails") or {}
    run.say(f"extension {label}: removed" if deleting else f"extension {label}: Active at {details.get('ExtensionVersion')}", "wait")


def shortfalls(step: Step, state: ClusterState | None) -> list[str]:
    """The completion `extension-status` on the final observation (its extensions read by the run):
    created or updated extensions Active at the version asked, deleted ones gone. One still in
    progress (a run that did not wait) is in flight, not short."""
    if state is None or state.extensions is None:
        return []
    if step.kind == "create-extension":
        name = str(step.request.get("ExtensionName"))
        have = state.extension(name)
        if have is None:
            return [f"extension {name} is not on cluster {state.name} after CreateClusterExtension"]
    else:
        arn = step.request.get("ExtensionArn")
        have = next((e for e in state.extensions if e.arn == arn), None)
        if have is None:
            return [] if step.kind == "delete-extension" else [f"extension {arn} is gone after UpdateClusterExtension"]
        name = have.name
    if have.status in FAILED:
        return [f"extension {name} is {have.status} after {step.operation}"]
    if step.kind == "delete-extension":
        return [] if have.status in IN_FLIGHT else [f"extension {name} is still {have.status} after DeleteClusterExtension"]
    version = step.request.get("ExtensionVersion")
    if have.status == ACTIVE and version is not None and have.version != version:
        return [f"extension {name} is at {have.version}, the plan asked for {version}"]
    return []
