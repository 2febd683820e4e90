"""The simulated service's state: clusters, instance groups and nodes.

Plain dataclasses with JSON-ready fields (times are float epoch seconds) so the SQLite store can
persist them row by row. They know nothing of HTTP; the rules that move them live in
`provisioning.py` and `reconcile.py`.

A `Node` is a *logical* slot (its NodeLogicalId never changes); the EC2 instance behind it may be
replaced. `phase` is the simulator's finer state; `status` is what the API shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from collections.abc import Callable, Iterator


# Node phases (internal) -----------------------------------------------------------------------
WAITING = "waiting"  # no instance yet: to be launched, or waiting for capacity (a retry) or for the controller
BOOTING = "booting"  # EC2 instance launched, booting
LIFECYCLE = "lifecycle"  # lifecycle script running (billed from here on)
HEALTHCHECK = "healthcheck"  # OnStartDeepHealthChecks running
RUNNING = "running"
FAILED = "failed"  # unhealthy or lifecycle failure; replaced when `due` is set
LOST = "lost"  # NotFound: the EC2 instance vanished outside HyperPod; replaced when `due` is set
UPDATING = "updating"  # SystemUpdating: UpdateClusterSoftware patching this instance
DETACHING = "detaching"  # DetachInProgress: MoveClusterNodes hands it to another group when `due` passes
TERMINATING = "terminating"  # ShuttingDown; removed when `due` passes
REBOOTING = "rebooting"  # BatchRebootClusterNodes: restarting (Pending); Running again when `due` passes
# (AttachInProgress is the LIFECYCLE phase of a node that a move brought in: the target's scripts run.)

LIVE_PHASES = (WAITING, BOOTING, LIFECYCLE, HEALTHCHECK, RUNNING, FAILED, LOST, UPDATING, REBOOTING)
UNHEALTHY_PHASES = (FAILED, LOST)

# Roles of Slurm instance groups
CONTROLLER, LOGIN, COMPUTE = "Controller", "Login", "Compute"


@dataclass(
    eq=False, repr=False
)  # an entity, mutated in place: the same one is the same object (compared and shown by identity; value methods cost import time)
class Node:
    logical_id: str
    group: str
    created_at: float
    op_id: str | None = None
    seq: int = 0  # creation order within the cluster (kept across reloads)
    phase: str = WAITING
    status: str = "Pending"
    message: str = ""
    instance_id: str | None = None
    instance_type: str | None = None
    az: str | None = None
    subnet: str | None = None
    ip: str | None = None
    launch_time: float | None = None
    due: float | None = None
    retryable: bool = True
    registered: bool = False  # has joined Slurm (ran its lifecycle script to the end once)
    built_with: dict | None = None
    want_types: list | None = None  # BatchAddClusterNodes targeting
    want_azs: list | None = None
    attempts: int = 0
    capacity_key: list | None = None  # [instance_type, az or None] held from a finite pool
    billing_open: bool = False
    billing_key: str | None = None  # the open billing record (instance id, unless moved between clusters)
    move: dict | None = None  # MoveClusterNodes in progress: target cluster id and group
    health_check: str | None = None  # the StartClusterHealthCheck operation checking it now (cluster_operations.py)
    software_updated_at: float | None = None  # when a software update last patched it (LastSoftwareUpdateTime)

    @property
    def live(self) -> bool:
        """Part of its group: not shutting down, and not leaving it for another group."""
        return self.phase not in (TERMINATING, DETACHING)

    @property
    def launched(self) -> bool:
        return self.instance_id is not None

    def to_row(self) -> dict:
        return dict(self.__dict__)

    @classmethod
    def from_row(cls, row: dict) -> Node:
        """The node a stored row describes; a row this version wrote becomes the node's own attributes
        (the caller hands over a freshly decoded row and keeps no use of it)."""
        if row.keys() == _NODE_FIELDS:  # a row this version wrote: no defaults to fill, no unknown keys
            node = cls.__new__(cls)
            node.__dict__ = row  # no __init__, no copy: 7x cheaper over a 5,000-node cluster
            return node
        return cls(**row)


_NODE_FIELDS = frozenset(Node.__dataclass_fields__)


@dataclass(eq=False, repr=False)  # an entity: mutated in place, compared by identity; rows load into its __dict__
class InstanceGroup:
    name: str
    spec: dict  # the ClusterInstanceGroupSpecification last accepted (InstanceCount etc. included)
    target: int
    min_count: int
    status: str
    role: str | None  # Controller | Login | Compute for Slurm, None for EKS
    partitions: list
    created_at: float
    last_good: list | None = None  # [target, min] when last InService (MinCount rollback)
    min_deadline: float | None = None
    retry_at: float | None = None
    current_types: list | None = None  # flexible groups: types in effect (Desired is in spec)
    deleting: bool = False
    new_in_op: bool = False  # created by the running all-or-nothing operation
    patch: dict | None = None  # scheduled / automatic patching: the release due and when (patching.py)
    software: dict | None = None  # the last UpdateClusterSoftware's status for this group (rolling_update.py)
    restricted: bool = False  # a restricted instance group (RestrictedInstanceGroups; restricted.py)

    @property
    def flexible(self) -> bool:
        return "InstanceRequirements" in self.spec

    @property
    def instance_types(self) -> list[str]:
        """Candidate types in provisioning priority order."""
        if self.flexible:
            return list(self.spec["InstanceRequirements"]["InstanceTypes"])
        return [self.spec["InstanceType"]]

    def to_row(self) -> dict:
        row = dict(self.__dict__)
        if not row.get("restricted"):  # stored only when set: a world without restricted groups reads as before
            row.pop("restricted", None)
        return row

    @classmethod
    def from_row(cls, row: dict) -> InstanceGroup:
        return cls(**row)


class EventLog:
    """A cluster's events in order. A persistent world reads the stored ones only when something iterates
    them (ListClusterEvents, DescribeClusterEvent): a 5,000-node cluster has tens of thousands, and most
    requests never look. New events are appended in memory until the store saves them."""

    def __init__(self, events: list | None = None, *, stored: int = 0, loader: Callable[[], list] | None = None) -> None:
        self._loaded: list | None = list(events or []) if loader is None else None
        self._stored = stored  # events in the store, not loaded yet (loader given)
        self._pending: list = []  # appended while not loaded
        self._loader = loader

    def append(self, event: dict) -> None:
        (self._pending if self._loaded is None else self._loaded).append(event)

    def _all(self) -> list:
        if self._loaded is None:
            self._loaded = list(self._loader()) + self._pending if self._loader else list(self._pending)
            self._pending = []
        return self._loaded

    def __iter__(self) -> Iterator[dict]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._loaded) if self._loaded is not None else self._stored + len(self._pending)

    def since(self, index: int) -> list:
        """Events from position `index` on (what the store has not saved yet), without loading the rest."""
        if self._loaded is None and index >= self._stored:
            return self._pending[index - self._stored :]
        return self._all()[index:]

    def saved(self) -> None:
        """The store now holds every event: pending ones are read back by the loader if ever needed."""
        if self._loaded is None:
            self._stored += len(self._pending)
            self._pending = []


@dataclass(eq=False, repr=False)  # an entity: mutated in place, compared by identity; rows load into its __dict__
class Cluster:
    id: str
    name: str
    arn: str
    region: str
    created_at: float
    orchestrator: str  # "Slurm" | "Eks"
    continuous: bool
    config: dict  # cluster-level request fields: VpcConfig, Orchestrator, NodeRecovery, Tags, ...
    status: str = "Creating"
    failure_message: str | None = None
    groups: dict = field(default_factory=dict)  # name -> InstanceGroup, in creation order
    nodes: dict = field(default_factory=dict)  # logical id -> Node
    subnet_azs: dict = field(default_factory=dict)  # subnet id -> [availability zone, index]
    controller_ready: bool = False  # a controller has been healthy once (Slurm priority gate)
    operation: dict | None = None  # the running all-or-nothing create/update
    slurm_conf: dict | None = None  # {"lines": user lines, None = managed block, "partition_params"}
    software_update: dict | None = None  # the running UpdateClusterSoftware (rolling_update.py)
    cluster_operations: list = field(default_factory=list)  # ListClusterOperations records (cluster_operations.py)
    extensions: list = field(default_factory=list)  # its cluster extensions, in creation order (extensions.py)
    compute_quotas: list = field(default_factory=list)  # its task governance compute quotas (governance.py)
    scheduler_configs: list = field(default_factory=list)  # its scheduler configuration, at most one (governance.py)
    due: float | None = None  # cluster-level timer (deletion completes)
    node_seq: int = 0
    event_seq: int = 0
    events: EventLog = field(default_factory=EventLog)
    by_instance: dict = field(default_factory=dict)  # instance id -> logical id (derived)

    # -- queries -------------------------------------------------------------------------------
    def add_node(self, node: Node) -> None:
        self.node_seq += 1
        node.seq = self.node_seq
        self.nodes[node.logical_id] = node

    def group_nodes(self, name: str) -> list[Node]:
        return [node for node in self.nodes.values() if node.group == name]

    def nodes_by_group(self) -> dict[str, list[Node]]:
        grouped: dict[str, list[Node]] = {name: [] for name in self.groups}
        for node in self.nodes.values():
            grouped.setdefault(node.group, []).append(node)
        return grouped

    def node(self, node_id: str) -> Node | None:
        """By instance id or logical id."""
        lid = self.by_instance.get(node_id, node_id)
        return self.nodes.get(lid)

    def groups_with_role(self, role: str) -> list[InstanceGroup]:
        return [group for group in self.groups.values() if group.role == role]

    def waits_for_controller(self, group: InstanceGroup) -> bool:
        """Slurm priority: other groups launch once a controller has been healthy. A cluster with no
        group known to be the controller (a legacy cluster without its bundle) waits for none."""
        return (
            self.orchestrator == "Slurm"
            and group.role != CONTROLLER
            and not self.controller_ready
            and bool(self.groups_with_role(CONTROLLER))
        )

    def iter_live_nodes(self) -> Iterator[Node]:
        return (node for node in self.nodes.values() if node.live)

    @property
    def account(self) -> str:
        """The account that owns it, the one its ARN names (arn:aws:sagemaker:REGION:ACCOUNT:cluster/ID):
        derived, so a world stored before accounts were simulated reads the same."""
        return self.arn.split(":", 5)[4]

    @property
    def node_recovery(self) -> str:
        return self.config.get("NodeRecovery", "Automatic")

    # -- nodes read on first use ---------------------------------------------------------------
    def defer_nodes(self, load: Callable[[Cluster], None], next_due: float | None) -> None:
        """Leave `nodes` (and `by_instance`) unread until first used: `load(self)` then sets them (`set_nodes`).
        A persistent world of several clusters decodes only the nodes of the clusters a request touches.
        `next_due`: the earliest node timer, so the world's timer heap is right without reading the nodes."""
        del self.__dict__["nodes"], self.__dict__["by_instance"]
        self.__dict__["_load_nodes"], self.__dict__["_next_node_due"] = load, next_due

    def __getattr__(self, name: str):
        # Only called for attributes not set: `nodes` and `by_instance` of a cluster whose nodes are deferred.
        load = self.__dict__.get("_load_nodes") if name in ("nodes", "by_instance") else None
        if load is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        load(self)  # calls set_nodes, which drops the loader
        return self.__dict__[name]

    @property
    def nodes_loaded(self) -> bool:
        return "nodes" in self.__dict__

    def next_node_due(self) -> float | None:
        """The earliest node timer (None: no node has one)."""
        if not self.nodes_loaded:
            return self.__dict__["_next_node_due"]
        return min((node.due for node in self.nodes.values() if node.due is not None), default=None)

    def set_nodes(self, rows: list[dict]) -> None:
        ordered = sorted(rows, key=lambda row: row["seq"])
        self.nodes = {row["logical_id"]: Node.from_row(row) for row in ordered}
        self.by_instance = {node.instance_id: node.logical_id for node in self.nodes.values() if node.instance_id}
        self.__dict__.pop("_load_nodes", None)
        self.__dict__.pop("_next_node_due", None)

    # -- persistence ---------------------------------------------------------------------------
    def header_row(self) -> dict:
        """Everything but nodes and events (stored in their own tables), with the earliest node timer."""
        row = {k: v for k, v in self.__dict__.items() if k not in ("nodes", "events", "by_instance") and not k.startswith("_")}
        row["groups"] = [group.to_row() for group in self.groups.values()]  # a list keeps their order
        for optional in ("extensions", "compute_quotas", "scheduler_configs"):
            if not row.get(optional):  # stored only when there are some: a world without any reads as before
                row.pop(optional, None)
        row[NEXT_NODE_DUE] = self.next_node_due()
        return row

    @classmethod
    def from_rows(cls, header: dict, nodes: list[dict] | None, events: EventLog | list[dict]) -> Cluster:
        """`nodes` None: the caller defers them (`defer_nodes`)."""
        data = dict(header)
        data.pop(NEXT_NODE_DUE, None)
        data["groups"] = {row["name"]: InstanceGroup.from_row(row) for row in data["groups"]}
        cluster = cls(**data)
        if nodes is not None:
            cluster.set_nodes(nodes)
        cluster.events = events if isinstance(events, EventLog) else EventLog(events)
        return cluster


# The header row's copy of the earliest node timer: derived, never a field (rows written before it lack it).
NEXT_NODE_DUE = "next_node_due"
