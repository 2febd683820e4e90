"""apply(): executes a Plan's steps in order, idempotently, then waits as the policy asks.

- Fresh plans only (`check_fresh`, on by default): the cluster is observed first and the plan is
  refused (`PlanStale`) when what it depends on changed since it was made (`plan.basis`).
- Optimistic concurrency: before every mutating call the cluster is observed again and must be
  where the plan plus the steps already done left it (targets, MinCounts, which groups exist).
  When another writer moved it, apply stops (`ConcurrentChange`) naming the change. The service's
  own progress (capacity arriving, nodes launching or failing) is not another writer.
- BatchAddClusterNodes carries a ClientToken derived from the cluster and the counts the step
  starts from, not from the request: a retry of the same step (botocore's retries, or a re-run
  after a crash) never adds twice, and two writers adding different counts from the same starting
  point collide on the token (idempotency mismatch) instead of both landing.
- MoveClusterNodes carries a ClientToken derived the same way (apply/moves.py), and waits until the
  nodes it moves are listed in their target group.
- A victim whose state changed since the plan is re-chosen by the planner's own rules, never
  deleted blindly; never a protected node, never a node named twice, never one another step names
  or this run removed already.
- Whatever the Plan says, the policy's guards are checked again before the first call and right
  before each call on the cluster as just observed (apply/guards.py): a breach is PlanRefused.
- ConflictException (an all-or-nothing cluster still Updating) waits for InService and retries,
  within the deadline — after checking again that nobody else moved the cluster.
- Waiting is part of apply, even when no call is needed (a re-run after a crash keeps waiting).
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from botocore import xform_name
from botocore.exceptions import BotoCoreError, ClientError

from pulumi_hyperpod.aws.planner.policy import aws_policy
from pulumi_hyperpod.aws.observe import ClusterState, observe
from pulumi_hyperpod.plans import Plan, Policy, Step, Victim
from pulumi_hyperpod.aws.planner import victims as victim_rules
from pulumi_hyperpod.aws.planner.premise import stale_reasons
from pulumi_hyperpod.aws.planner.details import is_canary
from pulumi_hyperpod.aws.planner.expectation import Expectation
from pulumi_hyperpod.aws.planner.integrity import step_problems
from pulumi_hyperpod.aws.planner.batches import pack_deletes
from pulumi_hyperpod.aws.planner.rules import api_limits
from pulumi_hyperpod.aws.apply import completion, guards
from pulumi_hyperpod.aws.apply import lifecycle, moves
from pulumi_hyperpod.aws.apply.drain import drain, drain_rechosen, no_source
from pulumi_hyperpod.aws.client import poll_seconds_for
from pulumi_hyperpod.aws.observe.reader import events_since, read_extensions, read_tags
from pulumi_hyperpod.aws.apply import extensions
from pulumi_hyperpod.aws.apply.progress import Progress
from pulumi_hyperpod.aws.apply.waiters import WAIT_POLICIES, WaitFailed, WaitTimedOut, wait
from pulumi_hyperpod.core.contract import (
    ApplyError,
    ApplyInterrupted,
    ApplyOptions,
    ApplyResult,
    ConcurrentChange,
    PlanRefused,
    PlanStale,
    settled_outcome,
)

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient
    from pulumi_hyperpod.aws.workload.model import WorkloadView
    from pulumi_hyperpod.aws.workload.source import WorkloadSource

# BatchAdd failures that mean "not now" rather than "never".
RETRYABLE_ADD_ERRORS = frozenset({"InvalidInstanceGroupStatus"})


def _stale(plan: Plan, changes: list[str], now: ClusterState | None = None) -> PlanStale:
    """The contract's PlanStale, with a hint when the cluster is at the plan's targets already."""
    hint = ""
    if now is not None and _at_targets(plan, now):
        hint = " (the cluster is at this plan's targets already: was the plan applied before?)"
    return PlanStale(plan, changes, hint)


def _at_targets(plan: Plan, now: ClusterState) -> bool:
    resized = [g for g in plan.groups if g.action in ("create", "grow", "shrink") and g.target_after is not None]
    return bool(resized) and all(now.group(g.group) is not None and now.group(g.group).target_count == g.target_after for g in resized)


def client_token(plan: Plan, step: Step, expected: Expectation, attempt: int = 0) -> str:
    """Derived from the cluster and the TargetCounts the step starts from, never from the request:
    the same step from the same counts is one request, and two different adds from the same counts
    (two writers) collide on the token rather than both landing."""
    groups = sorted({e["InstanceGroupName"] for e in step.request.get("NodesToAdd") or ()})
    arn = plan.basis.identity if plan.basis is not None else plan.cluster_name
    material = json.dumps([arn, [(g, expected.targets.get(g)) for g in groups], attempt], sort_keys=True, default=str)
    return hashlib.sha256(material.encode()).hexdigest()[:32]


def apply(
    client: SageMakerClient,
    plan: Plan,
    *,
    policy: Policy | None = None,
    wait: str = "InService",
    timeout: float = 1800.0,
    poll_seconds: float | None = None,
    progress: Callable[[Progress], Any] | None = None,
    sleep: Callable[[float], Any] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
    check_fresh: bool = True,
    workload: WorkloadSource | WorkloadView | None = None,
    roles: dict[str, str] | None = None,
    options: ApplyOptions | None = None,
) -> ApplyResult:
    """Run `plan`'s steps, then wait as `wait` says, for at most `timeout` seconds.

    `poll_seconds`: how often waits poll (default: the waiter model's delay on AWS, 0.2 s on a
    simulator client from `connect(backend="fake")`, whose persistent world runs at speed only while
    polled). `check_fresh` (default True): observe the cluster first and raise PlanStale, calling nothing,
    when it changed since the plan was made in what the plan depends on. Pass False only for a plan
    you know is current (it was made from a snapshot you trust, say); the checks before every
    later call still run. Raises PlanRefused for a refused plan, ConcurrentChange when another
    writer moves the cluster mid-apply, ApplyError when a call fails for good. `workload`: the
    orchestrator (a pulumi_hyperpod.aws.workload source) a DrainNodes step drains through (apply/drain.py).

    `roles`: the Slurm roles the plan was made with (group → Controller/Login/Compute), for the
    guards apply checks again before each call (apply/guards.py); a PlanRefused names a breach.
    `options` (core/contract.ApplyOptions), when given, replaces wait/timeout/poll_seconds/
    check_fresh/progress."""
    if options is None:  # the keywords are the ApplyOptions' fields (core/contract.py checks them)
        options = ApplyOptions(wait=wait, timeout=timeout, poll_seconds=poll_seconds, check_fresh=check_fresh, progress=progress)
    wait, timeout, poll_seconds, check_fresh, progress = (
        options.wait,
        options.timeout,
        options.poll_seconds,
        options.check_fresh,
        options.progress,
    )
    if plan.refused:
        raise PlanRefused(plan)
    if poll_seconds is None:
        poll_seconds = poll_seconds_for(client)
    if workload is None and any(step.operation == "DrainNodes" for step in plan.steps):
        raise no_source(plan)  # before any call: an UpdateCluster may come before the drain
    run = _Run(client, plan, policy or Policy(), timeout, poll_seconds, progress, sleep, monotonic)
    run.workload = workload
    run.roles = dict(roles or {})
    return run.execute(wait, check_fresh)


class _Run:
    def __init__(self, client: SageMakerClient, plan: Plan, policy: Policy, timeout, poll_seconds, progress, sleep, monotonic):
        self.client: SageMakerClient = client
        self.plan, self.policy = plan, policy
        self.poll_seconds, self.sleep, self.monotonic = poll_seconds, sleep, monotonic
        self.deadline = monotonic() + timeout
        self.timeout = timeout
        self._progress = progress
        self.result = ApplyResult(plan.cluster_name)
        self.name = plan.cluster_name
        self.expected = Expectation.from_basis(plan.basis)
        self.checked_at_step: int | None = None  # the step index whose pre-call check already ran
        self.roles: dict[str, str] = {}
        self.last_state: ClusterState | None = None  # the latest observation, for the guards
        self.removed: set[str] = set()  # nodes this run's deletes were accepted for
        self.operation_ids: list[str] = []  # the service's Scaling operations this run started (apply/lifecycle.py)
        # per step (by index): the failures it met, the nodes its calls named, the steps a batch call
        # accepted items of — what its completion is checked against at the end (apply/completion.py)
        self.step = 0
        self.step_failures: dict[int, list[str]] = {}
        self.sent: dict[int, set[str]] = {}
        self.landed: set[int] = set()
        self.doing = "while checking the cluster before the first call"  # said when SIGINT stops the run
        self.wait_policy = "InService"  # the run's (execute): an extension step waits on its own status unless "none"

    # ---- helpers -----------------------------------------------------------------------------
    def say(self, message: str, phase: str = "call") -> None:
        self.result.messages.append(message)
        if self._progress is not None:
            self._progress(Progress(phase, message))

    def remaining(self) -> float:
        return max(self.deadline - self.monotonic(), 0.0)

    def _wait(self, waiter: str, phase: str = "wait", config: Any = None, params: dict[str, Any] | None = None) -> dict[str, Any]:
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
            config=config,
            params=params,
        )

    def verify_unmoved(self) -> ClusterState | None:
        """Observe: the cluster must be where the plan and the steps done so far left it."""
        state = observe(self.client, self.name)
        self.last_state = state
        moved = self.expected.moved(state)
        if moved:
            raise ConcurrentChange(self.name, moved, list(self.result.calls))
        return state

    def guard(self, operation: str, request: dict[str, Any]) -> None:
        """The policy's guards on this call, on the cluster as last observed (apply/guards.py)."""
        refusals = guards.step_refusals(
            operation, request, self.last_state, self.policy, roles=self.roles, plan=self.plan, targets=self.expected.targets
        )
        if refusals:
            raise PlanRefused(self.plan.refuse(*refusals))

    def call(self, operation: str, request: dict[str, Any], verify: bool = True, retry_busy: bool = True) -> dict[str, Any]:
        """One mutating call, after checking nobody else moved the cluster; a ConflictException
        waits for the cluster to settle, checks again, and tries again (`retry_busy`: an
        extension's ConflictException is one of its rules, not a busy cluster: apply/extensions.py)."""
        method = getattr(self.client, xform_name(operation))
        while True:
            if verify:
                self.verify_unmoved()
            self.guard(operation, request)
            before = lifecycle.newest_operation(self, operation)
            try:
                doing, self.doing = self.doing, f"while sending {operation} (it may or may not have reached the service)"
                response = method(**request)
                self.doing = doing
                self.result.calls.append(operation)
                if _accepted_something(response):
                    self.landed.add(self.step)
                lifecycle.note_operation(self, operation, before)
                return response
            except ClientError as error:
                code = error.response.get("Error", {}).get("Code")
                if code != "ConflictException" or not retry_busy or self.remaining() <= 0:
                    raise
                self.say(f"{operation}: cluster busy ({error.response['Error'].get('Message', '')}); waiting for InService", "retry")
                self._wait("ClusterInService", "retry")
                verify = True

    # ---- the run -----------------------------------------------------------------------------
    def execute(self, wait_policy: str, check_fresh: bool) -> ApplyResult:
        try:
            return self._execute(wait_policy, check_fresh)
        except KeyboardInterrupt:  # SIGINT: say what was sent and what was under way (core/contract.py)
            raise ApplyInterrupted(self.name, list(self.result.calls), self.doing) from None

    def _execute(self, wait_policy: str, check_fresh: bool) -> ApplyResult:
        self.wait_policy = wait_policy
        problems = step_problems(self.plan)
        if problems:  # before any call: a plan whose steps are not its own is never run
            raise ApplyError(f"plan for cluster {self.name} cannot be applied: {'; '.join(problems)}", [])
        refusals = guards.plan_refusals(self.plan, self.policy)
        if refusals:
            raise PlanRefused(self.plan.refuse(*refusals))
        if check_fresh:
            now = self.last_state = observe(self.client, self.name)
            read: dict[str, Any] = {}
            if now is not None:
                now, read = self.premise_reads(now)
            changes = stale_reasons(self.plan, now, **read)
            if changes:
                raise _stale(self.plan, changes, now)
        for index, step in enumerate(self.plan.steps):
            self.say(f"step {index + 1}/{len(self.plan.steps)}: {step.operation} — {'; '.join(step.reasons[:2])}")
            # every call is checked right before it is sent, the first too: time passes between the
            # freshness check and the first call (a progress display, a confirmation), and another
            # apply may land in it. After a DeleteCluster there is no cluster to compare.
            after_delete = index > 0 and self.plan.steps[index - 1].operation == "DeleteCluster"
            verify = self.plan.basis is not None and not after_delete
            self.step, before = index, len(self.result.failures)
            self.doing = f"during step {index + 1}/{len(self.plan.steps)} ({step.operation})"
            try:
                handler = getattr(self, f"_{xform_name(step.operation)}")
                if is_canary(step):  # a canary scale-out: its nodes must pass before the next step (apply/lifecycle.py)
                    lifecycle.canary(self, handler, index, step, verify)
                else:
                    handler(index, step, verify)
            except ClientError as error:
                err = error.response.get("Error", {})
                raise ApplyError(f"{step.operation} failed: {err.get('Code')}: {err.get('Message')}", self.result.calls) from error
            except (WaitFailed, WaitTimedOut) as error:
                raise ApplyError(str(error), self.result.calls) from error
            except BotoCoreError as error:  # refused by the client before sending, or never answered
                one_line = " ".join(str(error).split())  # botocore's validation report spans lines
                raise ApplyError(f"{step.operation} failed: {one_line}", self.result.calls) from error
            self.step_failures[index] = self.result.failures[before:]
        return self._finish(wait_policy)

    def premise_reads(self, now: ClusterState) -> tuple[ClusterState, dict[str, Any]]:
        """What the plan's premises need read besides the cluster (planner/premise.py): the events
        since its newest one (acted), what runs on its nodes now (workload), the tags (tags)."""
        facts = self.plan.basis.facts if self.plan.basis is not None else ()
        premises = {fact.premise: fact.value for fact in facts}
        read: dict[str, Any] = {}
        horizon = premises.get("acted")
        if horizon is not None and (horizon == "" or "|" in horizon):
            read["events"] = events_since(self.client, self.name, horizon)
        if "workload" in premises:
            source = self.workload  # a source read now, or a view the caller read (pulumi_hyperpod.aws.workload)
            if source is not None and hasattr(source, "read"):
                read["workload"] = source.read(now)
            elif source is not None and hasattr(source, "nodes"):
                read["workload"] = source
            else:
                read["workload_why"] = "no workload source given"
        if "tags" in premises:
            self.last_state = now = read_tags(self.client, now)
        if "extensions" in premises:
            self.last_state = now = read_extensions(self.client, now)
        return now, read

    def _create_cluster(self, index: int, step: Step, verify: bool) -> None:
        response = self.call("CreateCluster", step.request, verify=False)  # an existing cluster answers ResourceInUse
        self.expected.after(step, response)
        self.say(f"created {response.get('ClusterArn')}")

    def _update_cluster(self, index: int, step: Step, verify: bool) -> None:
        response = self.call("UpdateCluster", step.request, verify)
        self.expected.after(step, response)

    def _add_tags(self, index: int, step: Step, verify: bool) -> None:
        self.call("AddTags", step.request, verify)

    def _delete_tags(self, index: int, step: Step, verify: bool) -> None:
        self.call("DeleteTags", step.request, verify)

    def _delete_cluster(self, index: int, step: Step, verify: bool) -> None:
        self.call("DeleteCluster", step.request, verify)
        self.expected.after(step)
        replacing = any(s.operation == "CreateCluster" for s in self.plan.steps[index + 1 :])
        if replacing or self.plan.action == "delete":
            self._wait("ClusterDeleted")
            self.say(f"cluster {self.name} deleted")

    def _move_cluster_nodes(self, index: int, step: Step, verify: bool) -> None:
        moves.move_nodes(self, step, verify)  # apply/moves.py: a derived ClientToken, then the hand-off

    # cluster extensions: one path for the three calls (apply/extensions.py)
    def _create_cluster_extension(self, index: int, step: Step, verify: bool) -> None:
        extensions.execute(self, step, verify)

    _update_cluster_extension = _delete_cluster_extension = _create_cluster_extension

    def _drain_nodes(self, index: int, step: Step, verify: bool) -> None:
        drain(self, step)  # no API call: the orchestrator's nodes (apply/drain.py)

    # node lifecycle steps (apply/lifecycle.py)
    def _update_cluster_software(self, index: int, step: Step, verify: bool) -> None:
        lifecycle.update_cluster_software(self, step, verify)

    def _batch_reboot_cluster_nodes(self, index: int, step: Step, verify: bool) -> None:
        lifecycle.batch_repair(self, step, verify)

    def _batch_replace_cluster_nodes(self, index: int, step: Step, verify: bool) -> None:
        lifecycle.batch_repair(self, step, verify)

    def _batch_add_cluster_nodes(self, index: int, step: Step, verify: bool) -> None:
        request = dict(step.request)
        start = Expectation(dict(self.expected.targets), dict(self.expected.mins), set(self.expected.loose_min))
        for attempt in range(50):
            request["ClientToken"] = client_token(self.plan, step, start, attempt)
            try:
                response = self.call("BatchAddClusterNodes", request, verify or attempt > 0)
            except ClientError as error:
                if not _token_mismatch(error):
                    raise
                # The token is in use for another add from the same counts: another writer's add
                # (the counts moved: stop), or an earlier run's that was undone since (ask again).
                self.verify_unmoved()
                self.say("the client token was used by an earlier, different request; asking again with a new one", "retry")
                continue
            added = len(response.get("Successful") or [])
            if added:
                self.say(f"asked for {added} node(s)")
            if added and not self._targets_moved(step, request, start):
                # The service answered from its idempotency cache: the same token was used by an
                # earlier run that saw the very same cluster (scale 1 → 3 → 1 → 3). Ask again with
                # a new token; a genuine first request always moves TargetCount.
                self.say("the add was answered from an earlier request with the same token; asking again", "retry")
                continue
            retry = [f for f in response.get("Failed") or [] if f.get("ErrorCode") in RETRYABLE_ADD_ERRORS]
            landed = [
                e
                for e in request["NodesToAdd"]
                if e["InstanceGroupName"] not in {f.get("InstanceGroupName") for f in response.get("Failed") or []}
            ]
            self.expected.after(Step("BatchAddClusterNodes", {"NodesToAdd": landed}, kind="add-nodes"))
            for failure in response.get("Failed") or []:
                if failure.get("ErrorCode") not in RETRYABLE_ADD_ERRORS:
                    self.result.failures.append(
                        f"BatchAddClusterNodes {failure['InstanceGroupName']}: {failure['ErrorCode']} ({failure.get('Message', '')}), {failure['FailedCount']} node(s) not added"
                    )
            if not retry:
                return
            if self.remaining() <= 0:
                self.result.failures.extend(
                    f"BatchAddClusterNodes {f['InstanceGroupName']}: still {f['ErrorCode']} at the deadline" for f in retry
                )
                return
            groups = {f["InstanceGroupName"] for f in retry}
            self.say(f"{', '.join(sorted(groups))} busy (Creating/Updating); retrying when InService", "retry")
            self._wait_groups_settled(groups)
            request["NodesToAdd"] = [e for e in step.request["NodesToAdd"] if e["InstanceGroupName"] in groups]
            start = Expectation(dict(self.expected.targets), dict(self.expected.mins), set(self.expected.loose_min))
        self.result.failures.append("BatchAddClusterNodes: the target counts did not move after 50 attempts")

    def _targets_moved(self, step: Step, request: dict[str, Any], start: Expectation) -> bool:
        """Did TargetCount reach at least what this call asked for, in every group it grew?"""
        expected: dict[str, int] = {}
        for entry in request["NodesToAdd"]:
            name = entry["InstanceGroupName"]
            expected[name] = expected.get(name, start.targets.get(name, 0)) + entry["IncrementTargetCountBy"]
        state = observe(self.client, self.name)
        if state is None:
            return True  # nothing to compare with; the final observation reports it
        return all(state.group(n) is None or state.group(n).target_count >= expected[n] for n in expected)

    def _wait_groups_settled(self, groups: set[str]) -> None:
        while self.remaining() > 0:
            state = observe(self.client, self.name)
            if state is None or all((state.group(g) is None) or state.group(g).status not in ("Creating", "Updating") for g in groups):
                return
            self.sleep(min(self.poll_seconds if self.poll_seconds is not None else 30.0, self.remaining()))

    def _batch_delete_cluster_nodes(self, index: int, step: Step, verify: bool) -> None:
        state = self.verify_unmoved()  # observed anyway to re-check the victims: the check is free
        if state is None:
            raise ApplyError(f"cluster {self.name} disappeared before the scale-in", self.result.calls)
        # DescribeCluster and ListClusterNodes are two reads: another writer's scale-in landing
        # between them shows its victims ShuttingDown under the old TargetCount, and choosing
        # again from that would remove nodes neither plan named. The counts are read once more.
        self._counts_unmoved()
        victims = self._revalidate(state, index, step)
        if any(s.operation == "DrainNodes" for s in self.plan.steps[:index]):
            drain_rechosen(self, victims)
        if not victims:
            self.say("nothing left to remove: the chosen nodes are already gone")
            return
        # Re-chosen victims may mix instance ids with logical ids where the plan had only one kind:
        # split them again within the request limits (50 identifiers in all once logical ids are in).
        ids = [v for v in victims if not v.logical]
        logical = [v for v in victims if v.logical]
        calls = pack_deletes(ids, logical, api_limits(), aws_policy(self.policy).max_nodes_per_delete_call)
        for number, (by_id, by_logical) in enumerate(calls):
            request: dict[str, Any] = {"ClusterName": step.request["ClusterName"]}
            if by_id:
                request["NodeIds"] = [v.node_id for v in by_id]
            if by_logical:
                request["NodeLogicalIds"] = [v.node_id for v in by_logical]
            # the first call was observed just above; later ones are checked like any other call
            self._delete_nodes(step, request, by_id + by_logical, verify=number > 0)

    def _delete_nodes(self, step: Step, request: dict[str, Any], victims: list[Victim], verify: bool) -> None:
        self.sent.setdefault(self.step, set()).update(v.node_id for v in victims)
        response = self.call("BatchDeleteClusterNodes", request, verify=verify)
        accepted = set(response.get("Successful") or []) | set(response.get("SuccessfulNodeLogicalIds") or [])
        self.removed |= accepted
        self.expected.after(step, response, [(v.group, v.node_id) for v in victims if v.node_id in accepted])
        self.say(f"removing {len(accepted)} node(s)")
        if len(accepted) < len(victims):
            # a node named here was already going: another writer's scale-in may have landed
            # between the check and this call (BatchDeleteClusterNodes takes no token to collide on)
            self.verify_unmoved()
        for failure in (response.get("Failed") or []) + (response.get("FailedNodeLogicalIds") or []):
            node = failure.get("NodeId") or failure.get("NodeLogicalId")
            if failure.get("Code") == "NodeIdNotFound":
                self.say(f"{node}: already gone")
                continue
            self.result.failures.append(f"BatchDeleteClusterNodes {node}: {failure.get('Code')} ({failure.get('Message', '')})")

    def _counts_unmoved(self) -> None:
        try:
            describe = self.client.describe_cluster(ClusterName=self.name)
        except ClientError:
            return  # the next observation (or the call itself) reports it
        moved = self.expected.moved(ClusterState.from_api(describe, []))
        if moved:
            raise ConcurrentChange(self.name, moved, list(self.result.calls))

    def _revalidate(self, state: ClusterState, index: int, step: Step) -> list[Victim]:
        """The step's victims, re-chosen where the node changed since the plan was made; each once."""
        # net of every other step's victims, later ones and earlier ones, and of what this run removed
        others = [v for number, s in enumerate(self.plan.steps) if number != index for v in s.victims]
        named_elsewhere = {v.node_id for v in others} | self.removed
        keep: list[Victim] = []
        by_group: dict[str, list[Victim]] = {}
        for victim in step.victims:
            planned = by_group.setdefault(victim.group, [])
            if all(v.node_id != victim.node_id for v in planned):
                planned.append(victim)
        for group, planned in by_group.items():
            have = state.group(group)
            if have is None:
                continue
            node_type = next((g.node_type for g in self.plan.groups if g.group == group), None) or have.node_type
            unchanged = []
            for victim in planned:
                node = state.node(victim.node_id)
                if node is not None and node.status == victim.status and node.status not in victim_rules.LEAVING:
                    unchanged.append(victim)
                else:
                    now = "gone" if node is None else node.status
                    self.say(f"{victim.node_id}: was {victim.status}, now {now}; choosing again")
            chosen = [v for v in unchanged if v.node_id not in self.policy.protected_node_ids]
            if len(chosen) < len(planned):
                exclude = {v.node_id for v in chosen} | named_elsewhere
                candidates = victim_rules.removable(state.nodes_of(group), node_type, self.policy.protected_node_ids, exclude)
                chosen += victim_rules.choose(candidates, len(planned) - len(chosen))
            keep.extend(chosen)
        return keep

    # ---- the end -----------------------------------------------------------------------------
    def _finish(self, wait_policy: str) -> ApplyResult:
        waiter = WAIT_POLICIES[wait_policy]
        deleted = self.plan.action == "delete"
        exists = self.plan.basis is not None or self.plan.steps
        if waiter is not None and not deleted and exists:
            self.doing = f"while waiting for cluster {self.name} to reach {wait_policy} (every call was accepted)"
            try:
                self._wait(waiter)
                self.say(f"cluster {self.name}: {wait_policy} reached", "wait")
            except WaitTimedOut as error:
                self.result.outcome = "waiting" if _waiting_for_capacity(error.response) else "timeout"
                if self.result.outcome == "waiting":
                    self.say(
                        f"{error}; the Continuous cluster keeps provisioning as capacity arrives "
                        f"(status {error.response.get('ClusterStatus')})",
                        "wait",
                    )
                else:
                    self.result.failures.append(
                        f"{error} (cluster {error.response.get('ClusterStatus')}); the deadline passed before the cluster reached it"
                    )
            except WaitFailed as error:
                self.result.outcome = "unreachable"
                self.result.failures.append(str(error))
        self.result.state = None if deleted else observe(self.client, self.name)
        if self.result.state is not None and any(step.kind in extensions.KINDS for step in self.plan.steps):
            self.result.state = read_extensions(self.client, self.result.state)  # their completion (apply/extensions.py)
        lifecycle.report_operations(self)
        self._check_completion()
        return self.result

    def _check_completion(self) -> None:
        """Never a silent success: each step's effect, by its kind's completion (plans/steps.py), on
        the cluster as observed last (apply/completion.py); a step that fell short makes the outcome
        `partial` or `failed` (core/contract.py)."""
        short: set[int] = set()
        for index, step in enumerate(self.plan.steps):
            missing = self.step_failures.get(index) or completion.shortfalls(
                self, step, self.result.state, frozenset(self.sent.get(index, ()))
            )
            if missing:
                short.add(index)
                self.result.failures.extend(m for m in dict.fromkeys(missing) if m not in self.result.failures)
        landed = len(short) < len(self.plan.steps) or bool(self.landed & short)
        self.result.outcome = settled_outcome(self.result.outcome, len(short), landed)


def _accepted_something(response: dict[str, Any]) -> bool:
    """Did a batch call's answer accept some of its items? Then a step short of its completion did
    part of its work (`partial`); a whole call (UpdateCluster, a rollout) is judged by its effect alone."""
    return any(response.get(name) for name in ("Successful", "SuccessfulNodeLogicalIds"))


def _token_mismatch(error: ClientError) -> bool:
    detail = error.response.get("Error", {})
    message = (detail.get("Message") or "").lower()
    return (
        detail.get("Code") in ("ValidationException", "IdempotentParameterMismatch")
        and "token" in message
        and ("idempoten" in message or "already used" in message)
    )


def _waiting_for_capacity(response: dict[str, Any]) -> bool:
    """The documented end of a wait at its deadline: a Continuous cluster (it keeps provisioning as
    capacity arrives, seed 000) that is not Failed. Anything else short of its target is an error."""
    return response.get("NodeProvisioningMode") == "Continuous" and response.get("ClusterStatus") not in (None, "Failed", "Deleting")
