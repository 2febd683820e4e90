"""apply(): executes a Plan's steps in order, idempotently, then waits as the policy asks.

- BatchAddClusterNodes carries a ClientToken derived from the plan and the step, so a retry of the
  same plan (botocore's retries, or a re-run after a crash) never adds twice.
- Before every destructive step the cluster is observed again; a victim whose state changed is
  re-chosen by the planner's own rules, never deleted blindly.
- ConflictException (an all-or-nothing cluster still Updating) waits for InService and retries,
  within the deadline.
"""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from botocore import xform_name
from botocore.exceptions import ClientError

from ..observe import ClusterState, observe
from ..observe.state import GONE
from ..plan import Plan, Policy, Step, Victim
from ..plan import victims as victim_rules
from .progress import Progress
from .waiters import WAIT_POLICIES, WaitFailed, WaitTimedOut, wait

# BatchAdd failures that mean "not now" rather than "never".
RETRYABLE_ADD_ERRORS = frozenset({"InvalidInstanceGroupStatus"})


class PlanRefused(Exception):
    def __init__(self, plan: Plan):
        self.plan = plan
        lines = [f"[{r.rule}] {r.reason}" for r in plan.refusals]
        super().__init__("the plan is refused by policy:\n  " + "\n  ".join(lines))


class ApplyError(Exception):
    """A call failed in a way retries cannot fix; `done` says which steps had already run."""

    def __init__(self, message: str, done: list[str]):
        super().__init__(message)
        self.done = done


@dataclass
class ApplyResult:
    cluster_name: str
    outcome: str = "done"  # done | waiting | timeout | unreachable
    state: ClusterState | None = None
    calls: list[str] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.outcome == "done" and not self.failures


def client_token(plan: Plan, index: int, step: Step, attempt: int = 0) -> str:
    material = json.dumps([plan.observed_fingerprint, index, step.request, attempt], sort_keys=True, default=str)
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def apply(
    client: Any,
    plan: Plan,
    *,
    policy: Policy | None = None,
    wait: str = "InService",
    timeout: float = 1800.0,
    poll_seconds: float | None = None,
    progress: Callable[[Progress], Any] | None = None,
    sleep: Callable[[float], Any] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
) -> ApplyResult:
    if wait not in WAIT_POLICIES:
        raise ValueError(f"wait must be one of {', '.join(WAIT_POLICIES)}; got {wait!r}")
    if plan.refused:
        raise PlanRefused(plan)
    run = _Run(client, plan, policy or Policy(), timeout, poll_seconds, progress, sleep, monotonic)
    return run.execute(wait)


class _Run:
    def __init__(self, client, plan: Plan, policy: Policy, timeout, poll_seconds, progress, sleep, monotonic):
        self.client, self.plan, self.policy = client, plan, policy
        self.poll_seconds, self.sleep, self.monotonic = poll_seconds, sleep, monotonic
        self.deadline = monotonic() + timeout
        self.timeout = timeout
        self._progress = progress
        self.result = ApplyResult(plan.cluster_name)
        self.name = plan.cluster_name

    # ---- helpers -----------------------------------------------------------------------------
    def say(self, message: str, phase: str = "call") -> None:
        self.result.messages.append(message)
        if self._progress is not None:
            self._progress(Progress(phase, message))

    def remaining(self) -> float:
        return max(self.deadline - self.monotonic(), 0.0)

    def _wait(self, waiter: str, phase: str = "wait") -> dict[str, Any]:
        return wait(
            self.client,
            self.name,
            waiter,
            timeout=self.remaining(),
            poll_seconds=self.poll_seconds,
            sleep=self.sleep,
            monotonic=self.monotonic,
            progress=self._progress,
            phase=phase,
        )

    def call(self, operation: str, request: dict[str, Any]) -> dict[str, Any]:
        """One API call; a ConflictException waits for the cluster to settle and tries again."""
        method = getattr(self.client, xform_name(operation))
        while True:
            try:
                response = method(**request)
                self.result.calls.append(operation)
                return response
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code")
                if code != "ConflictException" or self.remaining() <= 0:
                    raise
                self.say(f"{operation}: cluster busy ({error.response['Error'].get('Message', '')}); waiting for InService", "retry")
                self._wait("ClusterInService", "retry")

    # ---- the run -----------------------------------------------------------------------------
    def execute(self, wait_policy: str) -> ApplyResult:
        for index, step in enumerate(self.plan.steps):
            self.say(f"step {index + 1}/{len(self.plan.steps)}: {step.operation} — {'; '.join(step.reasons[:2])}")
            try:
                getattr(self, f"_{xform_name(step.operation)}")(index, step)
            except ClientError as error:
                err = error.response.get("Error", {})
                raise ApplyError(f"{step.operation} failed: {err.get('Code')}: {err.get('Message')}", self.result.calls) from error
            except (WaitFailed, WaitTimedOut) as error:
                raise ApplyError(str(error), self.result.calls) from error
        return self._finish(wait_policy)

    def _create_cluster(self, index: int, step: Step) -> None:
        response = self.call("CreateCluster", step.request)
        self.say(f"created {response.get('ClusterArn')}")

    def _update_cluster(self, index: int, step: Step) -> None:
        self.call("UpdateCluster", step.request)

    def _delete_cluster(self, index: int, step: Step) -> None:
        self.call("DeleteCluster", step.request)
        replacing = any(s.operation == "CreateCluster" for s in self.plan.steps[index + 1 :])
        if replacing or self.plan.action == "delete":
            self._wait("ClusterDeleted")
            self.say(f"cluster {self.name} deleted")

    def _batch_add_cluster_nodes(self, index: int, step: Step) -> None:
        request = dict(step.request)
        for attempt in range(50):
            request["ClientToken"] = client_token(self.plan, index, step, attempt)
            response = self.call("BatchAddClusterNodes", request)
            added = len(response.get("Successful") or [])
            if added:
                self.say(f"asked for {added} node(s)")
            if added and not self._targets_moved(step, request):
                # The service answered from its idempotency cache: the same token was used by an
                # earlier run that saw the very same cluster (scale 1 → 3 → 1 → 3). Ask again with
                # a new token; a genuine first request always moves TargetCount.
                self.say("the add was answered from an earlier request with the same token; asking again", "retry")
                continue
            retry = [f for f in response.get("Failed") or [] if f.get("ErrorCode") in RETRYABLE_ADD_ERRORS]
            for failure in response.get("Failed") or []:
                if failure.get("ErrorCode") not in RETRYABLE_ADD_ERRORS:
                    self.result.failures.append(f"BatchAddClusterNodes {failure['InstanceGroupName']}: {failure['ErrorCode']} ({failure.get('Message', '')}), {failure['FailedCount']} node(s) not added")
            if not retry:
                return
            if self.remaining() <= 0:
                self.result.failures.extend(f"BatchAddClusterNodes {f['InstanceGroupName']}: still {f['ErrorCode']} at the deadline" for f in retry)
                return
            groups = {f["InstanceGroupName"] for f in retry}
            self.say(f"{', '.join(sorted(groups))} busy (Creating/Updating); retrying when InService", "retry")
            self._wait_groups_settled(groups)
            request["NodesToAdd"] = [e for e in step.request["NodesToAdd"] if e["InstanceGroupName"] in groups]
        self.result.failures.append("BatchAddClusterNodes: the target counts did not move after 50 attempts")

    def _targets_moved(self, step: Step, request: dict[str, Any]) -> bool:
        """Did TargetCount reach at least what the plan expected for every group this call grew?"""
        expected: dict[str, int] = {}
        before = {g.group: g.target_before or 0 for g in self.plan.groups}
        for entry in step.request["NodesToAdd"]:
            name = entry["InstanceGroupName"]
            expected[name] = expected.get(name, before.get(name, 0)) + entry["IncrementTargetCountBy"]
        state = observe(self.client, self.name)
        if state is None:
            return True  # nothing to compare with; the final observation reports it
        names = {e["InstanceGroupName"] for e in request["NodesToAdd"]}
        return all(state.group(n) is None or state.group(n).target_count >= expected[n] for n in names)

    def _wait_groups_settled(self, groups: set[str]) -> None:
        while self.remaining() > 0:
            state = observe(self.client, self.name)
            if state is None or all((state.group(g) is None) or state.group(g).status not in ("Creating", "Updating") for g in groups):
                return
            self.sleep(min(self.poll_seconds if self.poll_seconds is not None else 30.0, self.remaining()))

    def _batch_delete_cluster_nodes(self, index: int, step: Step) -> None:
        state = observe(self.client, self.name)
        if state is None:
            raise ApplyError(f"cluster {self.name} disappeared before the scale-in", self.result.calls)
        victims = self._revalidate(state, index, step)
        if not victims:
            self.say("nothing left to remove: the chosen nodes are already gone")
            return
        request: dict[str, Any] = {"ClusterName": step.request["ClusterName"]}
        ids = [v.node_id for v in victims if not v.logical]
        logical = [v.node_id for v in victims if v.logical]
        if ids:
            request["NodeIds"] = ids
        if logical:
            request["NodeLogicalIds"] = logical
        response = self.call("BatchDeleteClusterNodes", request)
        removed = len(response.get("Successful") or []) + len(response.get("SuccessfulNodeLogicalIds") or [])
        self.say(f"removing {removed} node(s)")
        for failure in (response.get("Failed") or []) + (response.get("FailedNodeLogicalIds") or []):
            node = failure.get("NodeId") or failure.get("NodeLogicalId")
            if failure.get("Code") == "NodeIdNotFound":
                self.say(f"{node}: already gone")
                continue
            self.result.failures.append(f"BatchDeleteClusterNodes {node}: {failure.get('Code')} ({failure.get('Message', '')})")

    def _revalidate(self, state: ClusterState, index: int, step: Step) -> list[Victim]:
        """The step's victims, re-chosen where the node changed since the plan was made."""
        planned_after = {g.group: g.target_after for g in self.plan.groups}
        later = [v for s in self.plan.steps[index + 1 :] for v in s.victims]
        named_elsewhere = {v.node_id for v in later}
        keep: list[Victim] = []
        by_group: dict[str, list[Victim]] = {}
        for victim in step.victims:
            by_group.setdefault(victim.group, []).append(victim)
        for group, planned in by_group.items():
            have = state.group(group)
            if have is None:
                continue
            later_here = sum(1 for v in later if v.group == group)
            target_after = planned_after.get(group)
            need = len(planned) if target_after is None else min(len(planned), have.target_count - target_after - later_here)
            if need <= 0:
                continue
            unchanged = []
            for victim in planned:
                node = state.node(victim.node_id)
                if node is not None and node.status == victim.status and node.status not in GONE:
                    unchanged.append(victim)
                else:
                    now = "gone" if node is None else node.status
                    self.say(f"{victim.node_id}: was {victim.status}, now {now}; choosing again")
            chosen = unchanged[:need]
            if len(chosen) < need:
                exclude = {v.node_id for v in chosen} | named_elsewhere
                candidates = victim_rules.removable(state.nodes_of(group), have.node_type, self.policy.protected_node_ids, exclude)
                chosen += victim_rules.choose(candidates, need - len(chosen))
            keep.extend(chosen)
        return keep

    # ---- the end -----------------------------------------------------------------------------
    def _finish(self, wait_policy: str) -> ApplyResult:
        waiter = WAIT_POLICIES[wait_policy]
        deleted = self.plan.action == "delete"
        if waiter is not None and not deleted and self.plan.steps:
            try:
                self._wait(waiter)
                self.say(f"cluster {self.name}: {wait_policy} reached", "wait")
            except WaitTimedOut as error:
                self.result.outcome = "waiting" if error.response.get("ClusterStatus") not in (None, "Failed") else "timeout"
                self.say(f"{error}; the cluster keeps provisioning (status {error.response.get('ClusterStatus')})", "wait")
            except WaitFailed as error:
                self.result.outcome = "unreachable"
                self.result.failures.append(str(error))
        self.result.state = None if deleted else observe(self.client, self.name)
        self._check_targets()
        return self.result

    def _check_targets(self) -> None:
        """Never a silent success: an all-or-nothing update the service rolled back (no capacity,
        failing lifecycle scripts) ends InService at the old counts, which every waiter accepts."""
        state = self.result.state
        if state is None or not self.plan.steps or self.plan.action == "delete" or self.result.failures:
            return  # (failures already say the run fell short)
        for change in self.plan.groups:
            if change.action not in ("create", "grow", "shrink") or change.target_after is None:
                continue
            have = state.group(change.group)
            if have is not None and have.target_count != change.target_after:
                self.result.failures.append(
                    f"{change.group}: TargetCount is {have.target_count}, the plan asked for {change.target_after} "
                    f"(the service did not keep the change; cluster {state.status}"
                    f"{': ' + state.failure_message if state.failure_message else ''})")
