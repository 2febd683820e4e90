"""The Slurm view of a cluster: slurm.conf in merge mode, and sinfo.

Merge mode (seed 000): HyperPod owns only the partition-related lines — `NodeName=` lines, the
`PartitionName=` lines of partitions it manages, and `SlurmctldHost=` — and regenerates them from
group membership; every other line a user wrote is kept where they put it. Parameters a user adds
to a managed partition line (say `MaxTime=24:00:00`) are merged into the regenerated line.

Partitions follow seed 004's sinfo: a default partition (`dev*`, from the scenario) holding every
compute node, plus each compute group's own partition — from its SlurmConfig, or for a legacy
cluster from the `provisioning_parameters.json` of the lifecycle bundle uploaded to the simulator's
S3 (sim/aws/s3.py). A bundle written by `hyperpod slurm render` also carries the Slurm spec
(`slurm-spec.json`, `slurm-spec.conf`): its default partition is the one marked `*` (the bundle's
hook sets `Default=YES` there on the controller), and its slurm.conf lines show as the included file.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.sim.aws import ids
from pulumi_hyperpod.sim.aws.model import COMPUTE, CONTROLLER, FAILED, LOGIN, RUNNING, Cluster, Node

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws.scenario import ProvisioningParameters, Scenario

INCLUDE_PATH = "/opt/slurm/etc/slurm-spec.conf"
_INCLUDE_BEGIN = f"# ---- {INCLUDE_PATH} (included; from the lifecycle bundle {{uri}}) ----"
_INCLUDE_END = f"# ---- end of {INCLUDE_PATH} ----"

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


def partitions(cluster: Cluster, scenario: Scenario, world: Any = None) -> list[tuple[str, bool, list[Node]]]:
    """(name, is_default, member nodes registered with Slurm), the all-nodes partition first.

    The default partition is the Slurm spec's when the cluster's bundle carries one (`world` given),
    else the scenario's all-nodes partition, else the first one.
    """
    members: dict[str, list[Node]] = {}
    all_nodes = scenario.slurm.default_partition
    compute_groups = [group for group in cluster.groups.values() if group.role == COMPUTE]
    if all_nodes:
        members[all_nodes] = []
    for group in compute_groups:
        for name in group.partitions:
            members.setdefault(name, [])
    registered = [node for node in cluster.nodes.values() if node.registered and node.live and node.ip]
    by_group: dict[str, list[Node]] = {}
    for node in registered:
        by_group.setdefault(node.group, []).append(node)
    for group in compute_groups:
        nodes = by_group.get(group.name, [])
        for name in ([all_nodes] if all_nodes else []) + [p for p in group.partitions if p != all_nodes]:
            members[name].extend(nodes)
    names = list(members)
    spec = bundle_spec(world, cluster) if world is not None else None
    wanted = spec.get("default_partition") if spec else None
    default_name = wanted if wanted in members else all_nodes or (names[0] if names else None)
    return [(name, name == default_name, sorted(members[name], key=_ip_key)) for name in names]


# ---- the lifecycle bundle --------------------------------------------------------------------------


def _bundle_uris(cluster: Cluster) -> list[str]:
    """Where the controller's slurm.conf settings come from: the bundle the running controller node
    was built with — lifecycle scripts run at node creation, so a later LifeCycleConfig change
    reaches only new nodes (seed 004) — or, before a controller runs, the groups' bundles."""
    built = [
        ((node.built_with or {}).get("LifeCycleConfig") or {}).get("SourceS3Uri")
        for group in cluster.groups_with_role(CONTROLLER)
        for node in cluster.group_nodes(group.name)
        if node.phase == RUNNING
    ]
    if built:
        return [uri for uri in built[:1] if uri]
    groups = sorted(cluster.groups.values(), key=lambda g: g.role != CONTROLLER)
    uris = [(g.spec.get("LifeCycleConfig") or {}).get("SourceS3Uri") for g in groups]
    return list(dict.fromkeys(uri for uri in uris if uri))


def _bundle_json(world: Any, uri: str, name: str) -> dict | None:
    from pulumi_hyperpod.sim.aws import s3  # noqa: PLC0415 - the bundle in the simulator's S3: read when a cluster's Slurm files are asked for (tests/unit/provider/test_diff_lean.py)

    content = s3.bundle_file(world, uri, name)
    if content is None:
        return None
    try:
        data = json.loads(content.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None  # a broken file: the node's lifecycle script would fail on it, not slurmctld
    return data if isinstance(data, dict) else None


def bundle_spec(world: Any, cluster: Cluster) -> dict | None:
    """The cluster's `slurm-spec.json` (written by `hyperpod slurm render`), if uploaded."""
    for uri in _bundle_uris(cluster):
        spec = _bundle_json(world, uri, "slurm-spec.json")
        if spec is not None:
            return spec
    return None


def _bundle_include(world: Any, cluster: Cluster) -> tuple[str, list[str]] | None:
    from pulumi_hyperpod.sim.aws import s3  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

    for uri in _bundle_uris(cluster):
        content = s3.bundle_file(world, uri, "slurm-spec.conf")
        if content is not None:
            lines = [line for line in content.decode("utf-8", "replace").splitlines() if line and not line.startswith("#")]
            return uri, lines
    return None


def scenario_with_bundles(world: Any, groups: list[dict]) -> Scenario:
    """The scenario, with the provisioning_parameters.json of every bundle the groups point at
    added (a scenario's own entry for a URI wins: a test stated it on purpose)."""
    from pulumi_hyperpod.sim.aws.scenario import ProvisioningParameters  # noqa: PLC0415 - pydantic: loaded by the writes that need it (tests/unit/provider/test_diff_lean.py)

    found: dict[str, ProvisioningParameters] = {}
    for group in groups:
        uri = (group.get("LifeCycleConfig") or {}).get("SourceS3Uri")
        if not uri or uri in found or world.scenario.provisioning_parameters_for(uri) is not None:
            continue
        data = _bundle_json(world, uri, "provisioning_parameters.json")
        if data is None:
            continue
        try:
            found[uri] = ProvisioningParameters.model_validate(data)
        except ValueError:
            continue
    if not found:
        return world.scenario
    return world.scenario.model_copy(update={"provisioning_parameters": {**found, **world.scenario.provisioning_parameters}})


def _conf(cluster: Cluster) -> dict:
    return cluster.slurm_conf or {"lines": [line.format(name=cluster.name) for line in _HEADER] + [None], "partition_params": {}}


def managed_lines(cluster: Cluster, scenario: Scenario, world: Any = None) -> list[str]:
    lines = []
    controllers = [
        node
        for group in cluster.groups_with_role(CONTROLLER)
        for node in cluster.group_nodes(group.name)
        if node.phase == RUNNING and node.ip
    ]
    if controllers:
        lines.append(f"SlurmctldHost={ids.short_hostname(controllers[0].ip)}")
    parts = partitions(cluster, scenario, world)
    seen: set[str] = set()
    for _, _, nodes in parts:
        for node in nodes:
            if node.logical_id not in seen:
                seen.add(node.logical_id)
                host = ids.short_hostname(node.ip)
                lines.append(f"NodeName={host} NodeHostname={host} NodeAddr={node.ip} State=CLOUD Feature={node.instance_type}")
    overrides = _conf(cluster)["partition_params"]
    for name, is_default, nodes in parts:
        params = {
            "Nodes": "ALL" if name == scenario.slurm.default_partition else ",".join(ids.short_hostname(node.ip) for node in nodes),
            "Default": "YES" if is_default else "NO",
            "MaxTime": "INFINITE",
            "State": "UP",
        }
        params.update(overrides.get(name, {}))
        if not params["Nodes"]:
            del params["Nodes"]
        lines.append(f"PartitionName={name} " + " ".join(f"{key}={value}" for key, value in params.items()))
    return lines


def render(cluster: Cluster, scenario: Scenario, world: Any = None) -> str:
    """slurm.conf as the controller has it; with a rendered bundle uploaded, the `Include` line its
    hook adds, followed by the included file's lines between markers."""
    out: list[str] = []
    for line in _conf(cluster)["lines"]:
        out.extend(managed_lines(cluster, scenario, world) if line is None else [line])
    include = _bundle_include(world, cluster) if world is not None else None
    if include is not None:
        uri, lines = include
        out += [f"Include {INCLUDE_PATH}", _INCLUDE_BEGIN.format(uri=uri), *lines, _INCLUDE_END]
    return "\n".join(out) + "\n"


def _without_include(lines: list[str]) -> list[str]:
    """The text minus what `render` adds from the bundle (the Include line and the included file)."""
    kept, inside = [], False
    for line in lines:
        if line.startswith(_INCLUDE_BEGIN.split("{", 1)[0]):
            inside = True
        elif line == _INCLUDE_END:
            inside = False
        elif not inside and line.strip() != f"Include {INCLUDE_PATH}":
            kept.append(line)
    return kept


def edit(cluster: Cluster, scenario: Scenario, text: str, world: Any = None) -> None:
    """A user's manual edit: keep their lines, take back the managed ones (merge mode)."""
    managed = {name for name, _, _ in partitions(cluster, scenario, world)}
    kept: list[str | None] = []
    overrides: dict[str, dict[str, str]] = {}
    for line in _without_include(text.splitlines()):
        words = line.split()
        key, _, value = (words[0] if words else "").partition("=")
        is_managed = (key in ("NodeName", "SlurmctldHost") and value.upper() != "DEFAULT") or (key == "PartitionName" and value in managed)
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


def sinfo_rows(cluster: Cluster, scenario: Scenario, world: Any = None) -> list[dict]:
    """One row per (partition, state), like `sinfo`; an empty partition shows 0 nodes, n/a."""
    rows = []
    params = _conf(cluster)["partition_params"]
    for name, is_default, nodes in partitions(cluster, scenario, world):
        max_time = params.get(name, {}).get("MaxTime", "INFINITE")
        limit = "infinite" if max_time.upper() in ("INFINITE", "UNLIMITED") else max_time
        by_state: dict[str, list[Node]] = {}
        for node in nodes:
            state = "idle" if node.phase == RUNNING else "down" if node.phase == FAILED else "unk"
            by_state.setdefault(state, []).append(node)
        for state, members in (by_state or {"n/a": []}).items():
            rows.append(
                {
                    "partition": name,
                    "default": is_default,
                    "avail": "up",
                    "timelimit": limit,
                    "nodes": len(members),
                    "state": state,
                    "nodelist": [ids.short_hostname(node.ip) for node in members],
                }
            )
    return rows


def role_rows(cluster: Cluster) -> list[dict]:
    """The controller and login groups and their running nodes' hostnames (sinfo lists neither)."""
    rows = []
    for role in (CONTROLLER, LOGIN):
        for group in cluster.groups_with_role(role):
            hosts = [
                ids.short_hostname(node.ip)
                for node in sorted(cluster.group_nodes(group.name), key=_ip_key)
                if node.phase == RUNNING and node.ip
            ]
            rows.append({"role": role, "group": group.name, "hosts": hosts})
    return rows


def sinfo_text(rows: list[dict]) -> str:
    names = [row["partition"] + ("*" if row["default"] else "") for row in rows]
    width = max([len("PARTITION")] + [len(name) for name in names]) + 1
    lines = [f"{'PARTITION':<{width}}{'AVAIL':>5}{'TIMELIMIT':>11}{'NODES':>7}{'STATE':>7} NODELIST"]
    for name, row in zip(names, rows, strict=True):
        lines.append(
            f"{name:<{width}}{row['avail']:>5}{row['timelimit']:>11}{row['nodes']:>7}"
            f"{row['state']:>7} {','.join(row['nodelist']) or ''}".rstrip()
        )
    return "\n".join(lines) + "\n"
