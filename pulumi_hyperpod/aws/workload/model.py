"""What runs on each HyperPod node, as plain data the planner reads (docs/workloads.md).

A `WorkloadView` is to the orchestrator what `ClusterState` is to HyperPod: read once (Slurm's
squeue/sinfo, the Kubernetes API, or files saved from them), immutable, keyed by instance id, with
a stable JSON form so a saved plan keeps what it was made from. The planner stays pure: it ranks
victims from this data and never asks the orchestrator anything.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any, Literal
from collections.abc import Mapping
from pulumi_hyperpod.core.terminal import clipped  # user text: a sentence shows at most terminal.CLIP characters of it
from pulumi_hyperpod.core.timestamps import TimestampError, read_time

VIEW_FORMAT = "hyperpod-workload/1"
# What apply writes on a node it drains (Slurm's reason, a Kubernetes annotation): a re-run finds the
# nodes it was draining by it, and its start time keeps the deadline where the first run put it.
DRAIN_MARK = "hyperpod scale-in"


@dataclass(frozen=True)
class Job:
    """A Slurm job (or a Kubernetes pod that ends by itself) running on a node."""

    job_id: str
    user: str = ""
    name: str = ""
    end_time: dt.datetime | None = None  # its time limit (None: no limit, it may run for ever)
    state: str = "RUNNING"

    def describe(self, now: dt.datetime | None = None) -> str:
        """`now`: when the reader reads it; the end's date is shown unless it is that day (UTC)."""
        who = f" ({clipped(self.user)})" if self.user else ""
        ends = f"ends ≤ {when(self.end_time, now)}" if self.end_time else "has no time limit"
        return f"job {clipped(self.job_id)}{who} {ends}"


def when(moment: dt.datetime, now: dt.datetime | None) -> str:
    """A time of day, with its date when it is not `now`'s day (or no day to compare with is known)."""
    utc = dt.timezone.utc
    same_day = now is not None and moment.astimezone(utc).date() == now.astimezone(utc).date()
    return f"{moment.astimezone(utc):%H:%M}" if same_day else f"{moment.astimezone(utc):%Y-%m-%d %H:%M}"


@dataclass(frozen=True)
class Pod:
    """A Kubernetes pod on a node, not a DaemonSet's or a mirror pod (those go with the node)."""

    namespace: str
    name: str
    owner_kind: str = ""  # Deployment (through its ReplicaSet), StatefulSet, Job, …; "" for a bare pod
    owner_name: str = ""
    end_time: dt.datetime | None = None  # a Job's pod with activeDeadlineSeconds; None otherwise
    budgets: tuple[str, ...] = ()  # PodDisruptionBudgets that select it
    # of those, the ones that allow no disruption now — all of them when more than one selects it:
    # the Eviction API refuses such a pod whatever the budgets allow (`over_budgeted`)
    blocked_by: tuple[str, ...] = ()

    @property
    def owner(self) -> str:
        return f"{self.owner_kind.lower()} {self.owner_name}" if self.owner_kind else "no owner"

    @property
    def over_budgeted(self) -> bool:
        """More than one PodDisruptionBudget selects it: the Eviction API answers 500 ("This pod has
        more than one PodDisruptionBudget, which the eviction subresource does not support"), so no
        drain evicts it (kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/)."""
        return len(self.budgets) > 1


@dataclass(frozen=True)
class NodeWorkload:
    instance_id: str
    name: str  # the orchestrator's name for it: Slurm node name or Kubernetes node name
    state: str = ""  # Slurm state (idle, allocated, mixed…) or Kubernetes readiness
    drained: bool = False  # Slurm DRAIN flag, or a cordoned Kubernetes node
    drain_reason: str = ""
    drain_started: dt.datetime | None = None  # when a drain this tool began started (the mark's time)
    health: str = ""  # HyperPod's sagemaker.amazonaws.com/node-health-status label (EKS)
    jobs: tuple[Job, ...] = ()
    pods: tuple[Pod, ...] = ()
    # the orchestrator lists it as one of its nodes (sinfo, a Kubernetes node, a job on it); False: only
    # the job listing covers it (squeue names no job on it), which says it is idle, not that slurmd runs there
    listed: bool = True

    @property
    def idle(self) -> bool:
        return not self.jobs and not self.pods

    @property
    def ours(self) -> bool:
        """Drained by this tool for a scale-in (an interrupted apply): it goes first again."""
        return self.drained and self.drain_reason.startswith(DRAIN_MARK)

    @property
    def blocking_budgets(self) -> tuple[str, ...]:
        return tuple(sorted({b for pod in self.pods for b in pod.blocked_by}))

    @property
    def protecting_budgets(self) -> tuple[str, ...]:
        return tuple(sorted({b for pod in self.pods for b in pod.budgets}))

    @property
    def over_budgeted(self) -> tuple[Pod, ...]:
        """Its pods the Eviction API will not evict: more than one budget selects each."""
        return tuple(pod for pod in self.pods if pod.over_budgeted)

    def ends_by(self) -> dt.datetime | None:
        """When the last of its work ends by its limits; None when some of it has no limit."""
        ends = [job.end_time for job in self.jobs] + [pod.end_time for pod in self.pods]
        if not ends or any(end is None for end in ends):
            return None
        return max(ends)  # type: ignore[type-var]

    def describe(self, now: dt.datetime | None = None) -> str:
        """What runs there, in words: "idle", "job 4121 (alice) ends ≤ 14:20", "3 pods of deployment x".
        `now`: when it is read (an end on another day shows its date)."""
        if self.idle:
            return "idle"
        parts = [job.describe(now) for job in sorted(self.jobs, key=_job_order)[:3]]
        if len(self.jobs) > 3:
            parts.append(f"{len(self.jobs) - 3} more job(s)")
        owners: dict[str, int] = {}
        for pod in self.pods:
            owners[pod.owner] = owners.get(pod.owner, 0) + 1
        for owner, count in sorted(owners.items()):
            parts.append(f"{count} pod{'s' if count > 1 else ''} of {owner}")
        budgets = self.protecting_budgets
        over = self.over_budgeted
        if over:
            pod = over[0]
            more = f" (and {len(over) - 1} more pod(s))" if len(over) > 1 else ""
            parts.append(
                f"pod {pod.namespace}/{pod.name}{more} is selected by more than one PodDisruptionBudget "
                f"({', '.join(pod.budgets)}): the Eviction API refuses to evict it"
            )
        elif budgets:
            state = " (no disruption allowed now)" if self.blocking_budgets else ""
            parts.append(f"protected by PodDisruptionBudget {', '.join(budgets)}{state}")
        return "; ".join(parts)


def _job_order(job: Job) -> tuple:
    far = dt.datetime.max.replace(tzinfo=dt.timezone.utc)
    return (job.end_time or far, job.job_id)


@dataclass(frozen=True)
class WorkloadView:
    orchestrator: Literal["Slurm", "Eks"]
    observed_at: dt.datetime
    nodes: tuple[NodeWorkload, ...] = ()
    unmatched: tuple[str, ...] = ()  # orchestrator nodes no HyperPod node matches (a login host, another cluster)
    source: str = ""  # where it was read: "squeue/sinfo on the head node", a file, the Kubernetes API
    _index: Mapping[str, NodeWorkload] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_index", {node.instance_id: node for node in self.nodes})

    def node(self, instance_id: str | None) -> NodeWorkload | None:
        return self._index.get(instance_id or "")

    # ---- JSON --------------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": VIEW_FORMAT,
            "orchestrator": self.orchestrator,
            "observed_at": self.observed_at.isoformat(),
            "source": self.source,
            "unmatched": list(self.unmatched),
            "nodes": [_node_dict(node) for node in self.nodes],
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> WorkloadView:
        if data.get("format") != VIEW_FORMAT:
            raise ValueError(f"workload view format {data.get('format')!r} is not {VIEW_FORMAT}")
        return cls(
            orchestrator=data["orchestrator"],
            observed_at=_time(data["observed_at"], "observed_at"),
            source=data.get("source") or "",
            unmatched=tuple(data.get("unmatched") or ()),
            nodes=tuple(_node_from(n, f"nodes[{index}]") for index, n in enumerate(data.get("nodes") or ())),
        )


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _time(value: str | None, field: str) -> dt.datetime | None:
    """A saved time, range-checked (core/timestamps.py); a TimestampError names the field."""
    try:
        return read_time(value) if value else None
    except TimestampError as error:
        raise TimestampError(f"{field}: {error}") from None


def _node_dict(node: NodeWorkload) -> dict[str, Any]:
    return {
        "instance_id": node.instance_id,
        "name": node.name,
        "state": node.state,
        "drained": node.drained,
        "drain_reason": node.drain_reason,
        "drain_started": _iso(node.drain_started),
        "health": node.health,
        "listed": node.listed,
        "jobs": [{"job_id": j.job_id, "user": j.user, "name": j.name, "end_time": _iso(j.end_time), "state": j.state} for j in node.jobs],
        "pods": [
            {
                "namespace": p.namespace,
                "name": p.name,
                "owner_kind": p.owner_kind,
                "owner_name": p.owner_name,
                "end_time": _iso(p.end_time),
                "budgets": list(p.budgets),
                "blocked_by": list(p.blocked_by),
            }
            for p in node.pods
        ],
    }


def _node_from(data: Mapping[str, Any], where: str) -> NodeWorkload:
    return NodeWorkload(
        instance_id=data["instance_id"],
        name=data["name"],
        state=data.get("state") or "",
        drained=bool(data.get("drained")),
        drain_reason=data.get("drain_reason") or "",
        drain_started=_time(data.get("drain_started"), f"{where}.drain_started"),
        health=data.get("health") or "",
        listed=bool(data.get("listed", True)),
        jobs=tuple(
            Job(**{**j, "end_time": _time(j.get("end_time"), f"{where}.jobs[{index}].end_time")})
            for index, j in enumerate(data.get("jobs") or ())
        ),
        pods=tuple(
            Pod(
                **{
                    **p,
                    "end_time": _time(p.get("end_time"), f"{where}.pods[{index}].end_time"),
                    "budgets": tuple(p.get("budgets") or ()),
                    "blocked_by": tuple(p.get("blocked_by") or ()),
                }
            )
            for index, p in enumerate(data.get("pods") or ())
        ),
    )
