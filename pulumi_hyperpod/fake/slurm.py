"""The Slurm view of a cluster: slurm.conf in merge mode, and sinfo.

Merge mode (seed 000): HyperPod owns only the partition-related lines — `NodeName=` lines, the
`PartitionName=` lines of partitions it manages, and `SlurmctldHost=` — and regenerates them from
group membership; every other line a user wrote is kept where they put it. Parameters a user adds
to a managed partition line (say `MaxTime=24:00:00`) are merged into the regenerated line.

Partitions follow seed 004's sinfo: a default partition (`dev*`, from the scenario) holding every
compute node, plus each compute group's own partition.
"""

from __future__ import annotations

from typing import Optional

from . import ids
from .model import COMPUTE, CONTROLLER, FAILED, RUNNING, Cluster, Node
from .scenario import Scenario

_HEADER = [
    "# slurm.conf of SageMaker HyperPod cluster {name} (HyperPod simulator).",
    "# Merge mode: HyperPod regenerates the NodeName, PartitionName and SlurmctldHost lines;",
    "# every other line is yours and is kept.",
    "ClusterName={name}",
    "AuthType=auth/munge",
    "ProctrackType=proctrack/cgroup",
    "ReturnToService=2",
    "SchedulerType=sched/backfill",
    "SelectType=select/cons_tres",
    "SlurmctldPort=6817",
    "SlurmdPort=6818",
    "StateSaveLocation=/var/spool/slurmctld",
]


def _ip_key(node: Node) -> tuple:
    return tuple(int(part) for part in (node.ip or "0.0.0.0").split("."))


def partitions(cluster: Cluster, scenario: Scenario) -> list[tuple[str, bool, list[Node]]]:
    """(name, is_default, member nodes registered with Slurm), default partition first."""
    members: dict[str, list[Node]] = {}
    default = scenario.slurm.default_partition
    compute_groups = [group for group in cluster.groups.values() if group.role == COMPUTE]
    if default:
        members[default] = []
    for group in compute_groups:
        for name in group.partitions:
            members.setdefault(name, [])
    registered = [node for node in cluster.nodes.values() if node.registered and node.live and node.ip]
    by_group: dict[str, list[Node]] = {}
    for node in registered:
        by_group.setdefault(node.group, []).append(node)
    for group in compute_groups:
        nodes = by_group.get(group.name, [])
        for name in ([default] if default else []) + [p for p in group.partitions if p != default]:
            members[name].extend(nodes)
    names = list(members)
    default_name = default or (names[0] if names else None)
    return [(name, name == default_name, sorted(members[name], key=_ip_key)) for name in names]


def _conf(cluster: Cluster) -> dict:
    return cluster.slurm_conf or {"lines": [line.format(name=cluster.name) for line in _HEADER] + [None],
                                  "partition_params": {}}


def managed_lines(cluster: Cluster, scenario: Scenario) -> list[str]:
    lines = []
    controllers = [
        node for group in cluster.groups_with_role(CONTROLLER) for node in cluster.group_nodes(group.name)
        if node.phase == RUNNING and node.ip
    ]
    if controllers:
        lines.append(f"SlurmctldHost={ids.short_hostname(controllers[0].ip)}")
    parts = partitions(cluster, scenario)
    seen: set[str] = set()
    for _, _, nodes in parts:
        for node in nodes:
            if node.logical_id not in seen:
                seen.add(node.logical_id)
                host = ids.short_hostname(node.ip)
                lines.append(f"NodeName={host} NodeHostname={host} NodeAddr={node.ip} State=CLOUD "
                             f"Feature={node.instance_type}")
    overrides = _conf(cluster)["partition_params"]
    for name, is_default, nodes in parts:
        params = {"Nodes": "ALL" if is_default and name == scenario.slurm.default_partition else
                  ",".join(ids.short_hostname(node.ip) for node in nodes),
                  "Default": "YES" if is_default else "NO", "MaxTime": "INFINITE", "State": "UP"}
        params.update(overrides.get(name, {}))
        if not params["Nodes"]:
            del params["Nodes"]
        lines.append(f"PartitionName={name} " + " ".join(f"{key}={value}" for key, value in params.items()))
    return lines


def render(cluster: Cluster, scenario: Scenario) -> str:
    out: list[str] = []
    for line in _conf(cluster)["lines"]:
        out.extend(managed_lines(cluster, scenario) if line is None else [line])
    return "\n".join(out) + "\n"


def edit(cluster: Cluster, scenario: Scenario, text: str) -> None:
    """A user's manual edit: keep their lines, take back the managed ones (merge mode)."""
    managed = {name for name, _, _ in partitions(cluster, scenario)}
    kept: list[Optional[str]] = []
    overrides: dict[str, dict[str, str]] = {}
    for line in text.splitlines():
        words = line.split()
        key, _, value = (words[0] if words else "").partition("=")
        is_managed = (key in ("NodeName", "SlurmctldHost") and value.upper() != "DEFAULT") or (
            key == "PartitionName" and value in managed
        )
        if not is_managed:
            kept.append(line)
            continue
        if None not in kept:
            kept.append(None)
        if key == "PartitionName":
            params = dict(word.partition("=")[::2] for word in words[1:] if "=" in word)
            extra = {k: v for k, v in params.items() if k not in ("Nodes", "Default")}
            if extra:
                overrides[value] = extra
    if None not in kept:
        kept.append(None)
    cluster.slurm_conf = {"lines": kept, "partition_params": overrides}


def sinfo_rows(cluster: Cluster, scenario: Scenario) -> list[dict]:
    """One row per (partition, state), like `sinfo`; an empty partition shows 0 nodes, n/a."""
    rows = []
    params = _conf(cluster)["partition_params"]
    for name, is_default, nodes in partitions(cluster, scenario):
        max_time = params.get(name, {}).get("MaxTime", "INFINITE")
        limit = "infinite" if max_time.upper() in ("INFINITE", "UNLIMITED") else max_time
        by_state: dict[str, list[Node]] = {}
        for node in nodes:
            state = "idle" if node.phase == RUNNING else "down" if node.phase == FAILED else "unk"
            by_state.setdefault(state, []).append(node)
        for state, members in (by_state or {"n/a": []}).items():
            rows.append({
                "partition": name, "default": is_default, "avail": "up", "timelimit": limit,
                "nodes": len(members), "state": state,
                "nodelist": [ids.short_hostname(node.ip) for node in members],
            })
    return rows


def sinfo_text(rows: list[dict]) -> str:
    names = [row["partition"] + ("*" if row["default"] else "") for row in rows]
    width = max([len("PARTITION")] + [len(name) for name in names]) + 1
    lines = [f"{'PARTITION':<{width}}{'AVAIL':>5}{'TIMELIMIT':>11}{'NODES':>7}{'STATE':>7} NODELIST"]
    for name, row in zip(names, rows):
        lines.append(f"{name:<{width}}{row['avail']:>5}{row['timelimit']:>11}{row['nodes']:>7}"
                     f"{row['state']:>7} {','.join(row['nodelist']) or ''}".rstrip())
    return "\n".join(lines) + "\n"
