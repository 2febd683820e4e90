"""The DrainNodes step (planner/drain_step.py): cordon, evict, wait for the work to end, then let the
scale-in delete the nodes.

- cordon: Slurm `scontrol update … state=DRAIN reason="hyperpod scale-in since <time>"`, or a
  Kubernetes cordon (spec.unschedulable) with the same mark as an annotation. Idempotent.
- drain: also evicts pods through the Eviction API, again on every poll; a 429 (a
  PodDisruptionBudget that allows no disruption now) is waited on, never forced. Slurm jobs are
  waited for (DRAIN lets them finish).
- The deadline is policy.drain_timeout from when the drain started — read back from the mark on the
  nodes, so a re-run after a crash resumes the same drain with the same deadline.
- At the deadline: stop (DrainTimedOut, exit 1; the nodes are left drained and named, nothing
  deleted) or, with drain_deadline "delete", go on and delete them.

The time a drain takes is not counted in apply's --timeout (which bounds the waits on HyperPod).
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable

from pulumi_hyperpod.aws.planner.policy import aws_policy
from pulumi_hyperpod.aws.observe import observe
from pulumi_hyperpod.plans import Step, Victim
from pulumi_hyperpod.aws.planner.drain_step import node_name
from pulumi_hyperpod.aws.workload.slurm import drain_reason
from pulumi_hyperpod.aws.workload.source import WorkloadError
from pulumi_hyperpod.core.contract import ApplyError

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.workload.model import NodeWorkload, WorkloadView
    from pulumi_hyperpod.aws.workload.source import WorkloadSource
    from pulumi_hyperpod.aws.apply.executor import _Run

DEFAULT_POLL = 30.0


class DrainTimedOut(ApplyError):
    """The work on drained nodes did not end by the deadline: nothing was deleted."""

    def __init__(self, message: str, nodes: list[str], done: list[str]):
        super().__init__(message, done)
        self.nodes = nodes


def _now(source: WorkloadSource) -> dt.datetime:
    clock = getattr(source, "clock", None)
    return clock() if clock is not None else dt.datetime.now(dt.timezone.utc)


def _read(run: _Run, source: WorkloadSource) -> WorkloadView:
    state = observe(run.client, run.name)
    if state is None:
        raise ApplyError(f"cluster {run.name} disappeared during the drain", run.result.calls)
    try:
        return source.read(state)
    except WorkloadError as error:
        raise ApplyError(f"reading the workload failed: {error}", run.result.calls) from error


def _act(run: _Run, what: str, call, *args):
    try:
        return call(*args)
    except WorkloadError as error:
        raise ApplyError(f"{what} failed: {error}", run.result.calls) from error


def no_source(plan: Any) -> ApplyError:
    count = sum(len(step.request.get("Nodes") or ()) for step in plan.steps if step.operation == "DrainNodes")
    return ApplyError(
        f"the plan drains {count} node(s) before deleting them, and no workload source was given "
        "(--read-workload: Slurm on the head node or through --workload-command, EKS with an EKS token or "
        "--kubeconfig); nothing was called",
        [],
    )


def drain(run: _Run, step: Step) -> None:
    request = step.request
    nodes = request.get("Nodes") or []
    source = getattr(run, "workload", None)
    if source is None:
        raise no_source(run.plan)
    nameless = [n["NodeId"] for n in nodes if not n.get("Name")]
    if nameless:
        raise ApplyError(
            f"{', '.join(nameless)}: no orchestrator node name known (no PrivateDnsHostname); it cannot be "
            "drained: plan again, or set policy.drain to none",
            run.result.calls,
        )
    _drain_names(
        run,
        source,
        {n["Name"]: n["NodeId"] for n in nodes},
        request["Mode"],
        float(request["TimeoutSeconds"]),
        request.get("AtDeadline", "stop"),
        request.get("Orchestrator"),
    )


def drain_rechosen(run: _Run, victims: Iterable[Victim]) -> None:
    """Victims apply chose again (a planned node changed state) that are serving and were not drained:
    drained the same way first, so a drain plan never deletes a busy node it did not drain."""
    drained = getattr(run, "drained", set())
    fresh = [v for v in victims if not v.logical and v.status == "Running" and v.node_id not in drained]
    if not fresh:
        return
    state = observe(run.client, run.name)
    names = {node_name(state, v): v.node_id for v in fresh}
    if "" in names:
        raise ApplyError(
            f"a node chosen again ({', '.join(v.node_id for v in fresh)}) has no orchestrator name to drain it by", run.result.calls
        )
    hyperpod = aws_policy(run.policy)
    _drain_names(run, run.workload, names, hyperpod.drain, hyperpod.drain_timeout, hyperpod.drain_deadline)


def _drain_names(
    run: _Run,
    source: WorkloadSource,
    names: dict[str, str],
    mode: str,
    timeout: float,
    at_deadline: str,
    orchestrator: str | None = None,
) -> None:
    began = run.monotonic()
    view = _read(run, source)
    if orchestrator and view.orchestrator != orchestrator:
        raise ApplyError(f"the plan drains {orchestrator} nodes and the workload given is {view.orchestrator}'s", run.result.calls)
    current = {name: view.node(instance) for name, instance in names.items()}
    resumed = [w.drain_started for w in current.values() if w is not None and w.ours and w.drain_started is not None]
    started = min(resumed) if resumed else _now(source)
    to_mark = [name for name, work in current.items() if work is None or not work.ours]
    if to_mark:
        _act(run, "cordon", source.cordon, to_mark, drain_reason(started))
        run.say(f"{'drained' if source.orchestrator == 'Slurm' else 'cordoned'} {', '.join(to_mark)} ({drain_reason(started)})")
    if resumed:
        run.say(f"resuming the drain that started {started:%Y-%m-%d %H:%M:%SZ}")
    run.drained = getattr(run, "drained", set()) | set(names.values())
    if mode == "cordon":
        return
    deadline = started + dt.timedelta(seconds=timeout)
    poll = run.poll_seconds if run.poll_seconds else DEFAULT_POLL
    try:
        _wait_empty(run, source, names, mode, deadline, at_deadline, poll)
    finally:
        run.deadline += run.monotonic() - began  # the drain is not counted in apply's --timeout


def _busy(view: WorkloadView, names: dict[str, str]) -> dict[str, NodeWorkload]:
    busy = {}
    for name, instance in names.items():
        work = view.node(instance)
        if work is not None and not work.idle:
            busy[name] = work
    return busy


def _wait_empty(run: _Run, source: Any, names: dict[str, str], mode: str, deadline: dt.datetime, at_deadline: str, poll: float) -> None:
    last = ""
    while True:
        view = _read(run, source)
        busy = _busy(view, names)
        if not busy:
            run.say(f"drained: {', '.join(names)} run nothing now")
            return
        blocked: list[str] = []
        if any(work.pods for work in busy.values()):
            blocked = _act(run, "eviction", source.evict, [n for n, w in busy.items() if w.pods])
        now = _now(source)
        if now >= deadline:
            still = "; ".join(f"{name}: {work.describe(view.observed_at)}" for name, work in sorted(busy.items()))
            if at_deadline == "delete":
                run.say(f"drain deadline passed with work still running ({still}); deleting anyway (policy.drain_deadline: delete)")
                return
            raise DrainTimedOut(
                f"drain deadline {deadline:%Y-%m-%d %H:%M:%SZ} passed with work still running ({still}"
                f"{'; ' + '; '.join(blocked[:3]) if blocked else ''}); nothing was deleted; the nodes are left drained: "
                f"{', '.join(sorted(names))}. Re-run to keep waiting from where it stopped (the deadline holds), raise "
                "policy.drain_timeout, or set policy.drain_deadline: delete",
                sorted(names),
                list(run.result.calls),
            )
        message = "waiting: " + "; ".join(f"{name}: {work.describe(view.observed_at)}" for name, work in sorted(busy.items()))
        if blocked:
            message += " (" + "; ".join(blocked[:3]) + ")"
        if message != last:
            run.say(message, "retry")
            last = message
        run.sleep(max(min(poll, (deadline - now).total_seconds()), 0.001))
