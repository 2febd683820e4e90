"""Workloads in the HyperPod simulator: Slurm jobs and Kubernetes pods with end times on its clock.

They live in the simulator's world (`world.workloads[cluster id]`, persisted with it), so the CLI
demo, the Pulumi provider and a test see the same jobs. Jobs and pods go with their node when
HyperPod deletes it. The workload is read and drained through the production code paths:

- Slurm: `SlurmWorkload` with a runner that answers `squeue --json`, `sinfo --json` (Slurm 22.05's
  output, as the real one on this machine prints it) and `scontrol update nodename=… state=DRAIN|RESUME
  reason=…` from the world; node names are HyperPod's (`ip-10-1-17-2`, from the node's private IP).
- EKS: `EksWorkload` over a real kubernetes ApiClient whose transport the Kubernetes simulator
  (kube.py) answers, its nodes the cluster's running instances as `hyperpod-<instance id>`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import shlex
from typing import TYPE_CHECKING, Any
from collections.abc import Iterator, Mapping, Sequence

from pulumi_hyperpod.aws.workload.match import CLUSTER_LABEL, HEALTH_LABEL, eks_node_name
from pulumi_hyperpod.aws.workload.source import WorkloadError
from pulumi_hyperpod.sim.aws import CONTROLLER, LOGIN, RUNNING, short_hostname
from pulumi_hyperpod.sim.clock import to_datetime
from pulumi_hyperpod.sim.workload.kube import KubeState, KubeTransport, api_client
from pulumi_hyperpod.aws.workload.eks import EksWorkload
from pulumi_hyperpod.aws.workload.slurm import SlurmWorkload

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws import Cluster, Simulator

GROUP_LABEL = "sagemaker.amazonaws.com/instance-group-name"
_SLURM_META = {
    "plugin": {"type": "openapi/v0.0.38", "name": "Slurm OpenAPI v0.0.38"},
    "Slurm": {"version": {"major": 22, "micro": 8, "minor": 5}, "release": "22.05.8"},
}


# ---- the world ---------------------------------------------------------------------------------
@contextlib.contextmanager
def _cluster(sim: Simulator, name: str) -> Iterator[tuple[Any, Cluster, dict]]:
    """The simulator's public view of one cluster for a workload (`Simulator.cluster_workloads`)."""
    with sim.cluster_workloads(name) as view:
        yield view, view.cluster, view.data


def _running(cluster: Cluster) -> list[Any]:
    return [n for n in cluster.nodes.values() if n.phase == RUNNING and n.instance_id and n.ip]


def slurm_names(cluster: Cluster) -> dict[str, Any]:
    """The Slurm nodes: the running nodes of the compute groups (slurmd runs on them; the controller
    runs slurmctld and a login node neither, so sinfo lists neither)."""
    compute = {group.name for group in cluster.groups.values() if group.role not in (CONTROLLER, LOGIN)}
    return {short_hostname(node.ip): node for node in _running(cluster) if node.group in compute}


def kube_nodes(cluster: Cluster) -> dict[str, dict[str, str]]:
    return {
        eks_node_name(node.instance_id): {
            CLUSTER_LABEL: cluster.name,
            HEALTH_LABEL: "Schedulable",
            GROUP_LABEL: node.group,
            "node.kubernetes.io/instance-type": node.instance_type or "",
        }
        for node in _running(cluster)
    }


def _node_name(cluster: Cluster, node: str, orchestrator: str) -> str:
    """A node given by instance id, logical id, orchestrator name, or GROUP:N (the group's N-th running
    node in creation order, from 1: for demos) → the orchestrator's name."""
    names = slurm_names(cluster) if orchestrator == "Slurm" else {eks_node_name(n.instance_id): n for n in _running(cluster)}
    if node in names:
        return node
    group, _, number = node.rpartition(":")
    if group and number.isdigit():
        members = sorted((record.seq, record.logical_id, name) for name, record in names.items() if record.group == group)
        if not 1 <= int(number) <= len(members):
            raise ValueError(f"{node}: group {group} of cluster {cluster.name} has {len(members)} running node(s)")
        return members[int(number) - 1][2]
    for name, record in names.items():
        if node in (record.instance_id, record.logical_id):
            return name
    raise ValueError(f"node {node} is not a running node of cluster {cluster.name}")


# ---- Slurm ------------------------------------------------------------------------------------
def _live_jobs(data: dict, now: float, names: Mapping[str, Any]) -> list[dict]:
    """Jobs still running: not past their end, all their nodes still there (a job dies with its node)."""
    jobs = [job for job in data.get("jobs", []) if job["ends"] > now and all(n in names for n in job["nodes"])]
    data["jobs"] = jobs
    return jobs


def submit_job(
    sim: Any, cluster: str, node: str, seconds: float, *, user: str = "alice", name: str = "train", time_limit_seconds: float | None = None
) -> str:
    """A job on `node` running `seconds` from now, with a time limit (default: `seconds`); its id."""
    with _cluster(sim, cluster) as (world, target, data):
        if target.orchestrator != "Slurm":
            raise ValueError(f"cluster {target.name} is orchestrated by EKS: run pods, not Slurm jobs")
        slurm_node = _node_name(target, node, "Slurm")
        job_id = data.get("next_job", 4121)
        data["next_job"] = job_id + 1
        limit = time_limit_seconds or seconds
        data.setdefault("jobs", []).append(
            {
                "job_id": job_id,
                "user": user,
                "name": name,
                "nodes": [slurm_node],
                "start": world.now,
                "ends": world.now + min(seconds, limit),
                "limit": limit,
            }
        )
        return str(job_id)


def _squeue(data: dict, now: float, names: Mapping[str, Any]) -> dict:
    jobs = []
    for job in _live_jobs(data, now, names):
        jobs.append(
            {
                "job_id": job["job_id"],
                "user_name": job["user"],
                "user_id": 1000,
                "name": job["name"],
                "nodes": ",".join(job["nodes"]),
                "job_state": "RUNNING",
                "start_time": int(job["start"]),
                "end_time": int(job["start"] + job["limit"]),
                "time_limit": max(int(job["limit"] // 60), 1),
                "partition": "dev",
            }
        )
    return {"meta": _SLURM_META, "errors": [], "jobs": jobs}


def _sinfo(data: dict, now: float, names: Mapping[str, Any]) -> dict:
    busy = {n for job in _live_jobs(data, now, names) for n in job["nodes"]}
    drains = data.get("drains", {})
    nodes = []
    for name in sorted(names):
        drain = drains.get(name)
        nodes.append(
            {
                "name": name,
                "hostname": name,
                "address": names[name].ip,
                "state": "allocated" if name in busy else "idle",
                "state_flags": ["DRAIN"] if drain else [],
                "reason": drain["reason"] if drain else "",
                "reason_changed_at": int(drain["at"]) if drain else 0,
                "reason_set_by_user": "root" if drain else None,
            }
        )
    return {"meta": _SLURM_META, "errors": [], "nodes": nodes}


def _scontrol(data: dict, now: float, names: Mapping[str, Any], args: Sequence[str]) -> str:
    if len(args) < 2 or args[0] != "update":
        raise WorkloadError(f"scontrol {shlex.join(args)}: the simulator answers `scontrol update nodename=… state=…` only")
    fields = dict(arg.split("=", 1) for arg in args[1:] if "=" in arg)
    targets = [n for n in fields.get("nodename", "").split(",") if n]
    unknown = [n for n in targets if n not in names]
    if not targets or unknown:
        raise WorkloadError(f"scontrol update: exit 1: Invalid node name specified ({', '.join(unknown) or 'none'})")
    state = fields.get("state", "").upper()
    drains = data.setdefault("drains", {})
    for name in targets:
        if state == "DRAIN":
            if not fields.get("reason"):
                raise WorkloadError("scontrol update: exit 1: You must specify a reason when DOWNING or DRAINING a node")
            drains[name] = {"reason": fields["reason"], "at": now}
        elif state in ("RESUME", "UNDRAIN"):
            drains.pop(name, None)
        else:
            raise WorkloadError(f"scontrol update: the simulator takes state=DRAIN|RESUME|UNDRAIN, not {state or 'none'}")
    return ""


class SimulatedSlurm:
    """A runner (aws/workload/slurm.py) whose Slurm is the simulator's: squeue, sinfo, scontrol update."""

    def __init__(self, sim: Any, cluster: str) -> None:
        self.sim, self.cluster = sim, cluster
        self.commands: list[list[str]] = []

    def __call__(self, command: Sequence[str]) -> str:
        self.commands.append(list(command))
        with _cluster(self.sim, self.cluster) as (world, target, data):
            names = slurm_names(target)
            tool, args = command[0], list(command[1:])
            if tool == "squeue" and args == ["--json"]:
                return json.dumps(_squeue(data, world.now, names))
            if tool == "sinfo" and args == ["--json"]:
                return json.dumps(_sinfo(data, world.now, names))
            if tool == "scontrol":
                return _scontrol(data, world.now, names, args)
        raise WorkloadError(f"{shlex.join(command)}: not a command the simulated Slurm answers")


# ---- Kubernetes --------------------------------------------------------------------------------
@contextlib.contextmanager
def kube_state(sim: Any, cluster: str) -> Iterator[KubeState]:
    with _kube(sim, cluster) as (kube, _):
        yield kube


@contextlib.contextmanager
def _kube(sim: Any, cluster: str) -> Iterator[tuple[KubeState, Cluster]]:
    with _cluster(sim, cluster) as (world, target, data):
        if target.orchestrator != "Eks":
            raise ValueError(f"cluster {target.name} is orchestrated by Slurm: submit jobs, not pods")
        yield KubeState(data.setdefault("kube", {}), world.now, kube_nodes(target)), target


def run_pods(
    sim: Any,
    cluster: str,
    node: str,
    *,
    namespace: str = "default",
    owner_kind: str = "Deployment",
    owner_name: str = "web",
    count: int = 1,
    seconds: float | None = None,
    labels: Mapping[str, str] | None = None,
) -> list[str]:
    """`count` pods of one owner on `node`; a Job's pods end after `seconds` (activeDeadlineSeconds)."""
    with _kube(sim, cluster) as (kube, target):
        name = _node_name(target, node, "Eks")
        deadline = seconds if owner_kind == "Job" else None
        end = kube.now + seconds if seconds is not None and owner_kind != "Job" else None
        return [
            kube.add_pod(name, namespace, owner_kind, owner_name, labels=labels, end=end, deadline_seconds=deadline)["name"]
            for _ in range(count)
        ]


def add_pdb(
    sim: Any,
    cluster: str,
    name: str,
    match_labels: Mapping[str, str],
    *,
    namespace: str = "default",
    min_available: int | str | None = None,
    max_unavailable: int | str | None = None,
) -> None:
    with kube_state(sim, cluster) as kube:
        kube.add_pdb(namespace, name, match_labels, min_available=min_available, max_unavailable=max_unavailable)


def _kube_answer(sim: Any, cluster: str):
    def answer(method: str, path: str, query: Mapping[str, list[str]], body: Any) -> tuple[int, dict]:
        with kube_state(sim, cluster) as kube:
            return kube.handle(method, path, query, body)

    return answer


# ---- the source --------------------------------------------------------------------------------
def workload_source(sim: Any, cluster: str) -> Any:
    """The workload of simulated cluster `cluster`, read and drained as a real one (its clock: the simulator's)."""
    with _cluster(sim, cluster) as (_, target, _data):
        orchestrator = target.orchestrator

    def clock() -> dt.datetime:
        return sim.now()

    if orchestrator == "Slurm":
        return SlurmWorkload(runner=SimulatedSlurm(sim, cluster), clock=clock)
    return EksWorkload(api_client(KubeTransport(_kube_answer(sim, cluster))), clock=clock)


def summary(sim: Any, cluster: str) -> list[dict]:
    """What runs where (for `hyperpod fake workload show`): one row per job or pod."""
    rows: list[dict] = []
    with _cluster(sim, cluster) as (world, target, data):
        orchestrator = target.orchestrator
        if orchestrator == "Slurm":
            names = slurm_names(target)
            for job in _live_jobs(data, world.now, names):
                rows.append(
                    {
                        "node": ",".join(job["nodes"]),
                        "instance": ",".join(names[n].instance_id for n in job["nodes"]),
                        "what": f"job {job['job_id']} ({job['user']}) {job['name']}",
                        "ends": to_datetime(job["start"] + job["limit"]),
                    }
                )
    if orchestrator == "Slurm":
        return rows
    with kube_state(sim, cluster) as kube:
        for pod in kube.data["pods"]:
            if pod.get("phase") in ("Running", "Pending"):
                rows.append(
                    {
                        "node": pod.get("node") or "(pending)",
                        "instance": (pod.get("node") or "")[len("hyperpod-") :],
                        "what": f"pod {pod['namespace']}/{pod['name']} of {pod['owner_kind'].lower()} {pod['owner_name']}",
                        "ends": to_datetime(pod["end"]) if pod.get("end") else None,
                    }
                )
    return rows
