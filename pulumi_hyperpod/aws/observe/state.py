"""The observed cluster: an immutable view of DescribeCluster + ListClusterNodes.

The raw responses are kept alongside the typed view so a state can be saved as a snapshot
(`hyperpod snapshot`) and a plan reviewed offline from exactly what the service said.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any
from collections.abc import Mapping


# Statuses of a node that is doing no useful work: removed first on scale-in.
UNHEALTHY = frozenset({"Failure", "NotFound"})
GONE = frozenset({"ShuttingDown"})
SNAPSHOT_FORMAT = "hyperpod-snapshot/1"


@dataclass(frozen=True, slots=True)
class NodeState:
    group: str
    instance_id: str | None  # None until the node has been launched
    logical_id: str | None
    instance_type: str | None
    status: str
    launch_time: dt.datetime | None
    message: str | None = None

    @property
    def key(self) -> str:
        """The id a BatchDeleteClusterNodes call names this node by."""
        return self.instance_id or self.logical_id or ""

    @property
    def launched(self) -> bool:
        return bool(self.instance_id)


@dataclass(frozen=True, slots=True)
class GroupState:
    name: str
    current_count: int
    target_count: int
    min_count: int
    status: str | None
    instance_type: str | None
    instance_types: tuple[str, ...]
    node_type: str | None
    partition_names: tuple[str, ...]
    described: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    restricted: bool = False  # a restricted instance group (DescribeCluster's RestrictedInstanceGroups)

    @property
    def pending(self) -> int:
        """Capacity asked for and not there yet (continuous mode: not drift)."""
        return max(self.target_count - self.current_count, 0)


@dataclass(frozen=True, slots=True)
class ExtensionState:
    """One cluster extension, as ListClusterExtensions (and DescribeClusterExtension, for its
    configuration) report it."""

    name: str
    arn: str
    version: str
    status: str  # ExtensionStatus: Creating, Active, Updating, Deleting, CreateFailed, ...
    configuration: str | None = None  # ConfigurationValues, a JSON object as a string; None: not described
    modified: str = ""  # LastModifiedTime (ISO 8601): a write to it since moves it


@dataclass(frozen=True)  # no slots: the by-name indexes are cached_property
class ClusterState:
    name: str
    arn: str
    status: str
    groups: tuple[GroupState, ...]
    nodes: tuple[NodeState, ...]
    failure_message: str | None = None
    node_provisioning_mode: str | None = None
    describe: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    node_summaries: tuple[Mapping[str, Any], ...] = field(default=(), compare=False, repr=False)
    # the cluster's tags as ListTags reports them (key, value); None: not read (DescribeCluster has no tags)
    tags: tuple[tuple[str, str], ...] | None = field(default=None, compare=False, repr=False)
    # the newest event ListClusterEvents reported ("<EventTime>|<EventId>", "" when none yet); None:
    # not read. A saved plan's "acted" premise: any event since about a node it names means it acted.
    events_horizon: str | None = field(default=None, compare=False, repr=False)
    # the cluster's extensions (ListClusterExtensions, each described); None: not read (a spec that
    # does not name Extensions, an offline snapshot)
    extensions: tuple[ExtensionState, ...] | None = field(default=None, compare=False, repr=False)

    # ---- views ---------------------------------------------------------------------------------
    @property
    def continuous(self) -> bool:
        return self.node_provisioning_mode == "Continuous"

    @property
    def orchestrator_kind(self) -> str:
        orchestrator = self.describe.get("Orchestrator") or {}
        return "Eks" if "Eks" in orchestrator else "Slurm"

    @cached_property
    def _groups_by_name(self) -> dict[str, GroupState]:
        return {g.name: g for g in self.groups}

    @cached_property
    def _nodes_by_group(self) -> dict[str, tuple[NodeState, ...]]:
        index: dict[str, list[NodeState]] = {}
        for node in self.nodes:
            index.setdefault(node.group, []).append(node)
        return {name: tuple(nodes) for name, nodes in index.items()}

    def extension(self, name: str) -> ExtensionState | None:
        return next((e for e in self.extensions or () if e.name == name), None)

    def group(self, name: str) -> GroupState | None:
        return self._groups_by_name.get(name)

    def nodes_of(self, group: str) -> tuple[NodeState, ...]:
        return self._nodes_by_group.get(group, ())

    def node(self, key: str) -> NodeState | None:
        return next((n for n in self.nodes if n.instance_id == key or n.logical_id == key), None)

    # ---- construction --------------------------------------------------------------------------
    @classmethod
    def from_api(cls, describe: Mapping[str, Any], node_summaries: list[Mapping[str, Any]]) -> ClusterState:
        describe = {k: v for k, v in describe.items() if k != "ResponseMetadata"}
        # restricted groups are groups like the others (their nodes are listed by ListClusterNodes), marked
        groups = tuple(_group(g) for g in describe.get("InstanceGroups") or []) + tuple(
            _group(g, restricted=True) for g in describe.get("RestrictedInstanceGroups") or []
        )
        nodes = tuple(_node(s) for s in node_summaries)
        return cls(
            name=describe.get("ClusterName") or describe["ClusterArn"].rsplit("/", 1)[-1],
            arn=describe["ClusterArn"],
            status=describe["ClusterStatus"],
            groups=groups,
            nodes=nodes,
            failure_message=describe.get("FailureMessage"),
            node_provisioning_mode=describe.get("NodeProvisioningMode"),
            describe=describe,
            node_summaries=tuple(node_summaries),
        )

    def to_snapshot(self) -> dict[str, Any]:
        """A saved DescribeCluster + ListClusterNodes, for `hyperpod plan --observed`."""
        return {
            "Format": SNAPSHOT_FORMAT,
            "DescribeCluster": _jsonable(dict(self.describe)),
            "ClusterNodeSummaries": _jsonable([dict(s) for s in self.node_summaries]),
        }

    @classmethod
    def from_snapshot(cls, data: Mapping[str, Any], source: str | None = None, cluster_name: str | None = None) -> ClusterState:
        """A saved snapshot (either form `observe.snapshot` reads), checked against the service's
        output shapes and for consistency first: a SnapshotError names each problem's field."""
        from pulumi_hyperpod.aws.observe.snapshot import snapshot_state  # noqa: PLC0415 - the snapshot reader builds on this module and checks against botocore's shapes; a preview reads no snapshot

        return snapshot_state(data, source=source, cluster_name=cluster_name)

    @classmethod
    def from_snapshot_parts(cls, describe: Mapping[str, Any], summaries: list[Mapping[str, Any]]) -> ClusterState:
        """A state from already-checked DescribeCluster and ClusterNodeSummaries JSON."""
        describe = _parse_times(dict(describe), ("CreationTime",))
        nodes = [_parse_times(dict(s), ("LaunchTime", "LastSoftwareUpdateTime")) for s in summaries]
        return cls.from_api(describe, nodes)

    def to_json(self) -> str:
        return json.dumps(self.to_snapshot(), indent=2, sort_keys=True)


def _group(g: Mapping[str, Any], restricted: bool = False) -> GroupState:
    requirements = g.get("InstanceRequirements") or {}
    types = tuple(requirements.get("DesiredInstanceTypes") or requirements.get("CurrentInstanceTypes") or ())
    slurm = g.get("SlurmConfig") or {}
    return GroupState(
        name=g["InstanceGroupName"],
        current_count=int(g.get("CurrentCount") or 0),
        target_count=int(g.get("TargetCount") or 0),
        min_count=int(g.get("MinCount") or 0),
        status=g.get("Status"),
        instance_type=g.get("InstanceType"),
        instance_types=types or ((g["InstanceType"],) if g.get("InstanceType") else ()),
        node_type=slurm.get("NodeType"),
        partition_names=tuple(slurm.get("PartitionNames") or ()),
        described=dict(g),
        restricted=restricted,
    )


def _node(s: Mapping[str, Any]) -> NodeState:
    # a parsed timestamp (the client hands out aware datetimes) skips _utc's checks
    status = s.get("InstanceStatus") or {}
    instance_id = s.get("InstanceId") or None
    launch_time = s.get("LaunchTime") if instance_id else None
    if launch_time is not None:
        aware = type(launch_time) is dt.datetime and launch_time.tzinfo is not None
        launch_time = launch_time.astimezone(dt.timezone.utc) if aware else _utc(launch_time)
    return NodeState(
        group=s["InstanceGroupName"],
        instance_id=instance_id,
        logical_id=s.get("NodeLogicalId") or None,
        instance_type=s.get("InstanceType"),
        status=status.get("Status", "Pending"),
        launch_time=launch_time,
        message=status.get("Message"),
    )


def _utc(value: Any) -> dt.datetime | None:
    from pulumi_hyperpod.core.timestamps import read_time  # noqa: PLC0415 - only a snapshot's times (checked by the same reader): not on a preview's path (tests/unit/provider/test_diff_lean.py)

    return None if value is None else read_time(value)


def _parse_times(data: dict[str, Any], keys: tuple[str, ...]) -> dict[str, Any]:
    for key in keys:
        if isinstance(data.get(key), str):
            data[key] = _utc(data[key])
    return data


def _jsonable(value: Any) -> Any:
    if isinstance(value, dt.datetime):
        return _utc(value).isoformat()
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return value
