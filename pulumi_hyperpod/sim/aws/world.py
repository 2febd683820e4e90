"""The world: every cluster, the clock, capacity, billing, the RNG and the timer queue.

No HTTP here (moto's `models.py` role). Time-driven behaviour is a heap of timers; a timer is
valid only while the object's own due field still equals it, so rescheduling or deleting simply
leaves a stale entry behind. The heap is an index, rebuilt from the objects after loading, which
is why the store never persists it.
"""

from __future__ import annotations

import contextlib
import heapq
import random
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator

from pulumi_hyperpod.sim.aws import ids
from pulumi_hyperpod.sim.aws.capacity import CapacityPools
from pulumi_hyperpod.sim.aws.clock import ManualClock, WallClock
from pulumi_hyperpod.sim.aws.errors import ResourceNotFound
from pulumi_hyperpod.sim.aws.model import Cluster, Node
from pulumi_hyperpod.sim.aws.s3_bodies import MemoryBodies, ObjectBodies

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws.scenario import Scenario

# Timer kinds
NODE, RETRY, DEADLINE, CAPACITY, CLUSTER = "node", "retry", "deadline", "capacity", "cluster"
# A cluster whose nodes are not read yet (Cluster.defer_nodes) has one timer at its earliest node timer: due, it
# reads the nodes, which puts their own timers on the heap. "load" sorts before "node", so at any instant the node
# timers are on the heap before the first of them runs, in the order a process that read them earlier runs them.
LOAD = "load"


def rng_state(rng: random.Random) -> list:
    version, internal, gauss = rng.getstate()
    return [version, list(internal), gauss]


def set_rng_state(rng: random.Random, state: list) -> None:
    rng.setstate((state[0], tuple(state[1]), state[2]))


# What a request reads of the scenario on every call, by its path in the scenario's JSON, with the model's
# default: a world loaded from its stored JSON answers these without validating the whole Scenario
# (tests/unit/sim/aws/test_lazy_scenario.py holds each default to the model's).
SETTINGS: dict[tuple[str, ...], Any] = {
    ("poll_window_seconds",): 2,
    ("faults", "throttle_rate"): 0.0,
    ("faults", "server_error_rate"): 0.0,
    ("image_release",): None,
    ("image_released_at",): None,
    ("account_id",): "123456789012",
    ("accounts",): {},
}


class World:
    def __init__(self, scenario: Scenario | dict[str, Any], seed: int, clock: ManualClock | WallClock) -> None:
        """`scenario`: the model, or its stored JSON (a validated Scenario's `model_dump(mode="json")`),
        validated into the model only when something reads `scenario`."""
        self._scenario: Scenario | None = None
        self._stored_scenario: dict[str, Any] | None = None
        if isinstance(scenario, dict):
            self._stored_scenario = scenario
        else:
            self._scenario = scenario
        self.seed = seed
        self.rng = random.Random(seed)
        # Wire faults draw from their own stream (also derived from the seed), so a throttled
        # retry does not shift the ids and outcomes of the provisioning that follows.
        self.fault_rng = random.Random(f"{seed}:wire")
        self.clock = clock
        self.now: float = clock.now()
        self.start: float = self.now
        self.clusters: dict[str, Cluster] = {}
        # a stored world's pools are its own (the store sets them); a new world's come from its scenario
        self.capacity = CapacityPools() if self._scenario is None else CapacityPools.from_scenario(self._scenario)
        self.capacity_cursor = 0
        self.tokens: dict[str, dict] = {}
        self._billing: dict[str, dict] | None = {}
        self._billing_loader: Callable[[], dict[str, dict]] | None = None
        self.s3: dict[str, dict] = {}  # bucket -> {"region", "created", "objects"} (sim/aws/s3.py)
        self.s3_bodies: ObjectBodies = MemoryBodies()  # their bytes, kept beside the world (a store sets its own)
        self.workloads: dict[str, dict] = {}  # cluster id -> its Slurm jobs / Kubernetes objects (sim/workload/hyperpod.py)
        self.heap: list[tuple] = []
        self.dirty: set[str] = set()  # cluster ids whose rows must be saved
        self.to_reconcile: set[str] = set()
        self.removed: set[str] = set()  # cluster ids deleted since the last save
        self.billing_dirty: set[str] = set()  # billing records (instance ids) changed since the last save
        # Transient (never persisted): a revision per cluster, bumped by touch(), keys read caches
        # such as ListClusterNodes' sorted listing so paging a 10k-node cluster is not O(N) per page.
        self.revisions: dict[str, int] = {}
        self.cache: dict[tuple, tuple[int, Any]] = {}
        # Transient: the account of the request being answered (`as_account`); None: the scenario's default.
        self._caller: str | None = None
        self.schedule_capacity_change()

    # -- scenario ------------------------------------------------------------------------------
    @property
    def scenario(self) -> Scenario:
        if self._scenario is None:
            from pulumi_hyperpod.sim.aws.scenario import Scenario  # noqa: PLC0415 - pydantic: the scenario's models, not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

            self._scenario = Scenario.model_validate(self._stored_scenario)
            self._stored_scenario = None
        return self._scenario

    @scenario.setter
    def scenario(self, value: Scenario) -> None:
        self._scenario, self._stored_scenario = value, None

    def setting(self, *path: str) -> Any:
        """A scenario value every request reads (`SETTINGS`), from the model once built, else from the
        stored JSON (the model's default where the JSON leaves it out)."""
        if self._scenario is not None:
            value: Any = self._scenario
            for part in path:
                value = getattr(value, part)
            return value
        value = self._stored_scenario
        for part in path:
            if not isinstance(value, dict) or part not in value:
                return SETTINGS[path]
            value = value[part]
        return value

    def scenario_json(self) -> dict[str, Any]:
        """The scenario as the store keeps it: the stored JSON itself while nothing built the model."""
        return self._stored_scenario if self._scenario is None else self._scenario.model_dump(mode="json")  # type: ignore[return-value]

    def scenario_identity(self) -> int:
        """Changes whenever the scenario is replaced (the store's cheap stand-in for comparing its JSON)."""
        return id(self._stored_scenario if self._scenario is None else self._scenario)

    def _capacity_change_at(self, index: int) -> float | None:
        """When the scenario's `index`-th capacity change (in time order) happens, relative to the start; None past the last."""
        if self._scenario is not None:
            changes: list[Any] = self._scenario.capacity_changes
            return changes[index].at if index < len(changes) else None
        stored = (self._stored_scenario or {}).get("capacity_changes") or []  # stored sorted by `at`, as validated
        return float(stored[index]["at"]) if index < len(stored) else None

    # -- timers --------------------------------------------------------------------------------
    def push(self, kind: str, cluster_id: str, ref: Any, due: float) -> None:
        """Timers due at the same instant run in (kind, cluster, ref) order, never in push order, so a
        process that rebuilt its heap from the database makes the same RNG draws as one that did not."""
        heapq.heappush(self.heap, (due, kind, cluster_id, ref))

    def schedule_node(self, cluster: Cluster, node: Node, due: float | None) -> None:
        node.due = due
        if due is not None:
            self.push(NODE, cluster.id, node.logical_id, due)

    def schedule_retry(self, cluster: Cluster, group_name: str, due: float | None) -> None:
        cluster.groups[group_name].retry_at = due
        if due is not None:
            self.push(RETRY, cluster.id, group_name, due)

    def schedule_deadline(self, cluster: Cluster, group_name: str, due: float | None) -> None:
        cluster.groups[group_name].min_deadline = due
        if due is not None:
            self.push(DEADLINE, cluster.id, group_name, due)

    def schedule_cluster(self, cluster: Cluster, due: float | None) -> None:
        cluster.due = due
        if due is not None:
            self.push(CLUSTER, cluster.id, "", due)

    def schedule_capacity_change(self) -> None:
        at = self._capacity_change_at(self.capacity_cursor)
        if at is not None:
            self.push(CAPACITY, "", str(self.capacity_cursor), self.start + at)

    def rebuild_heap(self) -> None:
        self.heap = []
        for cluster in self.clusters.values():
            if cluster.due is not None:
                self.push(CLUSTER, cluster.id, "", cluster.due)
            if cluster.nodes_loaded:
                self.schedule_nodes(cluster)
            elif cluster.next_node_due() is not None:
                self.push(LOAD, cluster.id, "", cluster.next_node_due())
            for group in cluster.groups.values():
                if group.retry_at is not None:
                    self.push(RETRY, cluster.id, group.name, group.retry_at)
                if group.min_deadline is not None:
                    self.push(DEADLINE, cluster.id, group.name, group.min_deadline)
        self.schedule_capacity_change()

    def schedule_nodes(self, cluster: Cluster) -> None:
        """Put the timers of a cluster's nodes on the heap (once: after loading, or when they are first read)."""
        for node in cluster.nodes.values():
            if node.due is not None:
                self.push(NODE, cluster.id, node.logical_id, node.due)

    def is_current(self, entry: tuple) -> bool:
        due, kind, cluster_id, ref = entry
        if kind == CAPACITY:
            return int(ref) == self.capacity_cursor
        cluster = self.clusters.get(cluster_id)
        if cluster is None:
            return False
        if kind == CLUSTER:
            return cluster.due == due
        if kind == LOAD:
            return not cluster.nodes_loaded
        if kind == NODE:
            node = cluster.nodes.get(ref)
            return node is not None and node.due == due
        group = cluster.groups.get(ref)
        if group is None:
            return False
        return (group.retry_at if kind == RETRY else group.min_deadline) == due

    # -- accounts ------------------------------------------------------------------------------
    @property
    def account(self) -> str:
        """The account a request acts as (sim/aws/accounts.py): the one it names its clusters, ARNs and
        quotas in; the scenario's `account_id` outside a request."""
        return self._caller if self._caller is not None else self.setting("account_id")

    @contextlib.contextmanager
    def as_account(self, account: str | None) -> Iterator[World]:
        """Answer one request as `account` (None: the default account)."""
        before, self._caller = self._caller, account
        try:
            yield self
        finally:
            self._caller = before

    # -- clusters ------------------------------------------------------------------------------
    def touch(self, cluster: Cluster) -> None:
        """Mark a cluster changed: saved at commit, re-evaluated by the reconciler."""
        self.dirty.add(cluster.id)
        self.to_reconcile.add(cluster.id)
        self.revisions[cluster.id] = self.revisions.get(cluster.id, 0) + 1

    def cached(self, cluster: Cluster, key: tuple, compute: Callable[[], Any]) -> Any:
        """`compute()` memoised until the cluster is next touched."""
        revision = self.revisions.get(cluster.id, 0)
        hit = self.cache.get((cluster.id, *key))
        if hit is not None and hit[0] == revision:
            return hit[1]
        if len(self.cache) > 64:
            self.cache.clear()
        value = compute()
        self.cache[(cluster.id, *key)] = (revision, value)
        return value

    def add_cluster(self, cluster: Cluster) -> None:
        self.clusters[cluster.id] = cluster
        self.touch(cluster)

    def remove_cluster(self, cluster: Cluster) -> None:
        self.clusters.pop(cluster.id, None)
        self.removed.add(cluster.id)
        self.dirty.discard(cluster.id)
        self.to_reconcile.discard(cluster.id)

    def find_cluster(self, region: str, name_or_arn: str) -> Cluster:
        """By name or ARN, in the caller's account and region; ResourceNotFound names what was asked for."""
        account = self.account
        if name_or_arn.startswith("arn:"):
            cid = name_or_arn.rsplit("/", 1)[-1]
            cluster = self.clusters.get(cid)
            if cluster is not None and cluster.arn == name_or_arn and cluster.region == region and cluster.account == account:
                return cluster
        else:
            for cluster in self.clusters.values():
                if cluster.name == name_or_arn and cluster.region == region and cluster.account == account:
                    return cluster
        raise ResourceNotFound(f"Cluster {name_or_arn} not found in {region}.")

    def clusters_in(self, region: str) -> list[Cluster]:
        """The caller's account's clusters in `region`: what its list calls and quotas see."""
        account = self.account
        return [cluster for cluster in self.clusters.values() if cluster.region == region and cluster.account == account]

    # -- events and billing ----------------------------------------------------------------------
    @property
    def billing(self) -> dict[str, dict]:
        """Every billing record by key (instance id). A persistent world reads them on first use: most
        requests never look, and a 5,000-node world has 5,000 of them."""
        if self._billing is None:
            self._billing = self._billing_loader()
        return self._billing

    def defer_billing(self, load: Callable[[], dict[str, dict]]) -> None:
        self._billing, self._billing_loader = None, load

    def emit(
        self,
        cluster: Cluster,
        level: str,
        resource_type: str,
        description: str,
        *,
        group: str | None = None,
        node: Node | None = None,
        op_id: str | None = None,
        metadata: dict | None = None,
    ) -> None:
        """Record a cluster event. The service keeps events for Continuous clusters only."""
        if not cluster.continuous:
            return
        cluster.event_seq += 1
        event = {
            "seq": cluster.event_seq,
            "EventId": ids.new_uuid(self.rng),
            "InstanceGroupName": group or (node.group if node else None),
            "InstanceId": node.instance_id if node is not None and node.instance_id else None,
            "ResourceType": resource_type,
            "EventTime": self.now,
            "Description": description,
            "EventLevel": level,
            "OperationId": op_id or (node.op_id if node is not None else None),
            "Metadata": metadata or {},
        }
        cluster.events.append(event)
        self.dirty.add(cluster.id)

    def open_billing(self, cluster: Cluster, node: Node) -> None:
        key, moves = node.instance_id, 0
        while key in self.billing:  # the instance was billed before, in another group (MoveClusterNodes)
            moves += 1
            key = f"{node.instance_id}#{moves}"
        node.billing_key = key
        self.billing[key] = {
            "instance_id": node.instance_id,
            "cluster_id": cluster.id,
            "cluster_name": cluster.name,
            "node_logical_id": node.logical_id,
            "instance_group": node.group,
            "instance_type": node.instance_type,
            "availability_zone": node.az,
            "start": self.now,
            "end": None,
        }
        node.billing_open = True
        self.billing_dirty.add(key)

    def close_billing(self, node: Node) -> None:
        key = node.billing_key or node.instance_id or ""
        record = self.billing.get(key)
        if record is not None and record["end"] is None:
            record["end"] = self.now
            self.billing_dirty.add(key)
        node.billing_open = False
