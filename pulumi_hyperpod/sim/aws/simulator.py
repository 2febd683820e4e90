"""`Simulator`: the public face of the HyperPod simulator.

It owns a world (in memory, or in SQLite shared across processes), hands out real boto3 clients
with its handler on `before-send`, and offers the out-of-band controls tests and the CLI need
(advance the clock, inject failures and capacity, read slurm.conf/sinfo/billing).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import os
import random
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator

from pulumi_hyperpod.aws.sessions import new_botocore_session
from pulumi_hyperpod.sim.aws import billing as metering
from pulumi_hyperpod.sim.aws import accounts, ids, provisioning as prov, reconcile, rolling_update, slurm, wire
from pulumi_hyperpod.sim.clock import ClockFileError, ManualClock, SharedClock, clock_note, parse_latency, to_datetime
from pulumi_hyperpod.sim.aws.clock import PollTracker, to_seconds
from pulumi_hyperpod.sim.aws.errors import ResourceNotFound, SerializationException
from pulumi_hyperpod.sim.aws.model import Cluster, Node
from pulumi_hyperpod.sim.aws.store import MemoryStore, SqliteStore
from pulumi_hyperpod.sim.aws.world import World
from pulumi_hyperpod.sim.worldfile import AWS_WORLD, ForeignFile, places, world_path
from pulumi_hyperpod.core.envvars import EnvError, input_file
from pulumi_hyperpod.core.errors import InputError
from pulumi_hyperpod.sim.worldfile import CLOCK_FILE

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws.scenario import Scenario

STATE_ENV = "HYPERPOD_FAKE_STATE"
SCENARIO_ENV = "HYPERPOD_FAKE_SCENARIO"
LATENCY_ENV = "HYPERPOD_FAKE_LATENCY"  # each in-process answer held back this long (`fake serve --latency` over HTTP)
DEFAULT_STATE = Path(".hyperpod") / "fake.sqlite"
READS = ("Describe", "List", "Get")  # operations that only read: repeating one is polling

# Fixed dummy credentials: a simulator client never reads (or could leak) the machine's real ones.
DUMMY_ACCESS_KEY, DUMMY_SECRET_KEY = "HYPERPODSIMULATOR000", "hyperpod-simulator-dummy-secret"

_client_lock = threading.Lock()
_shared_lock = threading.Lock()
_SHARED: dict[tuple[int, str], Simulator] = {}


@lru_cache(maxsize=1)
def _botocore_session() -> Any:
    """One shared session with dummy credentials and no profile or config files from this machine.
    Clients come from botocore directly: the client boto3 would hand out for these services, without
    importing boto3 and s3transfer (0.15 s of every process that makes one)."""
    from botocore.configprovider import ConstantProvider  # noqa: PLC0415 - botocore in the preview's provider path: loaded with the first client

    session = new_botocore_session()  # the process's one model loader; fast timestamps
    store = session.get_component("config_store")
    for name, value in (("profile", None), ("config_file", os.devnull), ("credentials_file", os.devnull)):
        store.set_config_provider(name, ConstantProvider(value))
    session.set_credentials(DUMMY_ACCESS_KEY, DUMMY_SECRET_KEY)
    return session


def _load_scenario(scenario: Any) -> Scenario:
    from pulumi_hyperpod.sim.aws.scenario import load_scenario  # noqa: PLC0415 - pydantic: loaded when a scenario is built, not to read a stored world (tests/unit/provider/test_diff_lean.py)

    return load_scenario(scenario)


def _latency() -> float:
    """$HYPERPOD_FAKE_LATENCY in seconds (0 when unset): read when a client is attached."""
    text = os.environ.get(LATENCY_ENV, "").strip()
    try:
        return parse_latency(text) if text else 0.0
    except ValueError as error:
        raise EnvError(LATENCY_ENV, text, str(error)) from None


def _waited(polls: PollTracker, key: Any, world: World) -> float:
    if polls.window is None:
        polls.window = world.setting("poll_window_seconds")
    return polls.waited(key, world.clock.real_time())


@dataclass(frozen=True, slots=True)
class ClusterWorkloads:
    """What the workload simulator sees of one cluster, inside one transaction (`Simulator.cluster_workloads`)."""

    now: float  # the world's time, seconds
    cluster: Cluster
    data: dict[str, Any]  # the cluster's workload record: jobs, drains, the Kubernetes objects


class Simulator:
    """A simulated SageMaker HyperPod service.

    `path` None keeps the world in memory (virtual clock moves only with `advance()`); a path
    keeps it in SQLite, where the world follows the wall clock and runs at the scenario's `speed`
    only while someone waits on it (`advance()`, or a client polling; see clock.py). `real_time`
    replaces the wall clock (tests). `scenario` is a dict, a YAML/JSON file path, or None
    (defaults); for an existing SQLite world the scenario stored at its creation is kept.
    """

    def __init__(
        self,
        path: str | Path | None = None,
        seed: int = 0,
        scenario: dict[str, Any] | str | Path | Scenario | None = None,
        *,
        real_time: Callable[[], float] = time.time,
        clock: SharedClock | None = None,
    ) -> None:
        self.path = Path(path) if path is not None else None
        if self.path is None:
            self._store: MemoryStore | SqliteStore = MemoryStore(World(_load_scenario(scenario), seed, ManualClock()))
        else:
            # no scenario given: the defaults, built only if the world is new (an existing one keeps its own)
            loaded = _load_scenario(scenario) if scenario is not None else None
            self._store = SqliteStore(self.path, seed, loaded, real_time, clock)

    # -- construction ----------------------------------------------------------------------------
    @staticmethod
    def default_path() -> Path:
        places()  # two of the simulators' files at one path: refused before either is made
        return world_path(STATE_ENV, Path.cwd() / DEFAULT_STATE, AWS_WORLD)  # a bad value or a foreign file: one error naming the variable

    @classmethod
    def open_default(cls) -> Simulator:
        """The persistent world at $HYPERPOD_FAKE_STATE (default .hyperpod/fake.sqlite here)."""
        path = cls.default_path()
        scenario = input_file(SCENARIO_ENV)
        try:
            # the default world keeps time by the directory's one clock, with the Google Cloud world
            return cls.shared(path, scenario=scenario, clock=SharedClock(path.with_name(CLOCK_FILE)))
        except (InputError, ValueError) as error:
            if scenario is None or isinstance(error, (EnvError, ClockFileError, ForeignFile)):
                raise
            lines = error.lines() if isinstance(error, InputError) else [str(error)]
            raise EnvError(SCENARIO_ENV, scenario, " ".join(lines)) from None

    @staticmethod
    def close_shared() -> None:
        """Close every world `shared` opened in this process (their files stay): a process that opens
        many worlds in turn (a test session, a long-lived program) releases their connections. A world
        asked for again is opened again."""
        with _shared_lock:
            closing = list(_SHARED.values())
            _SHARED.clear()
        for simulator in closing:
            simulator._store.close()

    @classmethod
    def shared(
        cls, path: str | Path, scenario: dict[str, Any] | str | Path | Scenario | None = None, clock: SharedClock | None = None
    ) -> Simulator:
        """This process's one Simulator of the SQLite world at `path`, shared by every client of that world:
        one connection and one loaded world, so a write through one client does not make the others reload
        it. A new one when the file was deleted or replaced (`hyperpod fake reset`) or after a fork."""
        key = (os.getpid(), str(Path(path).resolve()))
        with _shared_lock:
            simulator = _SHARED.get(key)
            if simulator is None or not simulator._store.is_current():
                simulator = _SHARED[key] = cls(key[1], scenario=scenario, clock=clock)
            return simulator

    @contextlib.contextmanager
    def _world(self, waited: Callable[[World], float] | None = None) -> Iterator[World]:
        """One transaction on the world, caught up to now first. `waited(world)`: the real seconds a
        polling client waited since its last poll, which the world fast-forwards through first."""
        with self._store.transaction() as world:
            if waited is not None:
                world.clock.fast_forward(waited(world))
            reconcile.catch_up(world, max(world.now, world.clock.now()))
            yield world

    @contextlib.contextmanager
    def cluster_workloads(self, name: str) -> Iterator[ClusterWorkloads]:
        """One transaction on cluster `name` (name or ARN) for the workload simulator (sim/workload):
        the world's time, the cluster as it is now (read its nodes and groups; change only `data`),
        and `data`, its Slurm jobs and Kubernetes objects, saved with the world."""
        with self._world() as world:
            cluster = self._cluster(world, name)
            yield ClusterWorkloads(world.now, cluster, world.workloads.setdefault(cluster.id, {}))

    # -- clients -----------------------------------------------------------------------------------
    def client(
        self, service: str = "sagemaker", region: str | None = "us-west-2", config: Any = None, access_key: tuple[str, str] | None = None
    ) -> Any:
        """A real botocore client (what boto3 hands out) whose requests this simulator answers;
        `access_key` (key id, secret) signs them, and a 12-digit key id is that account's (accounts.py)."""
        key_id, secret = access_key or (None, None)
        with _client_lock:
            client = _botocore_session().create_client(
                service, region_name=region or "us-west-2", config=config, aws_access_key_id=key_id, aws_secret_access_key=secret
            )
        return self.attach(client)

    def attach(self, client: Any) -> Any:
        """Answer an existing client's requests (botocore's `before-send`, as moto does): botocore
        serializes each request and parses each answer's JSON, as against AWS."""
        model = client.meta.service_model
        service_id = model.service_id.hyphenize()
        region = client.meta.region_name
        latency = _latency()
        polls = PollTracker(None, held=latency)  # the scenario's window, read in the client's first transaction

        def handle(request: Any, **_: Any) -> Any:
            answer = self._handle(model.service_name, model.protocol, region, request, polls)
            if latency:  # after the transaction: the world is not held, and its clock does not count it (polls.held)
                time.sleep(latency)
            return answer

        def observe(http_response: Any = None, parsed: dict[str, Any] | None = None, model: Any = None, **_: Any) -> None:
            if http_response is not None and http_response.status_code < 300 and parsed is not None:
                wire.notify(model.name, parsed, model.service_model.service_name)

        client.meta.events.register(f"before-send.{service_id}", handle, unique_id=f"hyperpod-sim-{id(self)}")
        client.meta.events.register(f"after-call.{service_id}", observe, unique_id=f"hyperpod-sim-obs-{id(self)}")
        return client

    def answer(self, service: str, region: str, request: Any, polls: PollTracker) -> Any:
        """One request that came over HTTP rather than through a client's `before-send` (`hyperpod fake
        serve`): the same dispatcher, the AWSResponse the client would have got. `request` has the
        `url`, `method`, `headers` and `body` of a botocore AWSPreparedRequest; `polls` is the
        caller's, so a client repeating a read moves the world as it does in process."""
        return self._handle(service, "rest-xml" if service == "s3" else "json", region, request, polls)

    def _handle(self, service: str, protocol: str, region: str, request: Any, polls: PollTracker) -> Any:
        if service == "s3":  # lifecycle bundles (sim/aws/s3.py): REST-XML, not the JSON wire
            from pulumi_hyperpod.sim.aws import s3  # noqa: PLC0415 - only a bundle's read or upload: a preview's reads are sagemaker's (tests/unit/provider/test_diff_lean.py)

            with self._world() as world:
                return s3.answer(world, region, request)
        if service not in wire.SERVICES and protocol not in wire.JSON_PROTOCOLS:
            raise wire.NotSimulatedError(f"The HyperPod simulator does not simulate the {service} service.")
        try:
            operation, params = wire.decode(request)
        except SerializationException as error:  # nothing to run: the world is not opened for it
            return wire.encode(request.url, error.status, wire.error_payload(error), ids.request_id(random.Random(request.url)))
        key_id = accounts.access_key_id(request.headers)
        status, payload, request_id = self.dispatch(service, region, operation, params, polls, key_id)
        return wire.encode(request.url, status, payload, request_id)

    def dispatch(
        self, service: str, region: str, operation: str, params: dict[str, Any], polls: PollTracker, key_id: str | None = None
    ) -> tuple[int, dict[str, Any], str]:
        """One request, as decoded from the wire: (HTTP status, JSON payload, request id). `polls`: the
        calling client's, so a client repeating a read moves the world (a client waiting on it).
        `key_id`: the access key it was signed with, which names its account (sim/aws/accounts.py)."""
        waited = None
        if operation.startswith(READS):  # a repeated identical read is a client waiting on the world
            key = (service, region, key_id, operation, json.dumps(params, sort_keys=True, default=str))
            waited = functools.partial(_waited, polls, key)
        with self._world(waited) as world, world.as_account(accounts.account_of(world, key_id)):
            self._store.record_call(operation, params)
            status, payload = wire.dispatch(world, service, operation, region, params)
            request_id = ids.request_id(world.fault_rng)
        return status, payload, request_id

    # -- time ------------------------------------------------------------------------------------
    def advance(self, seconds: float) -> dt.datetime:
        """Move virtual time forward and run everything due by then; returns the new time."""
        with self._store.transaction() as world:
            world.clock.advance(seconds)
            reconcile.catch_up(world, max(world.now, world.clock.now()))
            return to_datetime(world.now)

    def now(self) -> dt.datetime:
        with self._world() as world:
            return to_datetime(world.now)

    def lead(self) -> float | None:
        """Seconds a persistent world is ahead of the wall clock (None: a manual clock)."""
        with self._world() as world:
            return world.clock.lead

    def clock_note(self) -> str | None:
        """The world's time in a plan's words when it is not this machine's (sim/clock.clock_note)."""
        with self._world() as world:
            return clock_note(world.now, world.clock.real_time(), running=world.clock.lead is not None)

    # -- calls -------------------------------------------------------------------------------------
    @property
    def calls(self) -> list[tuple[str, dict[str, Any]]]:
        """(operation, request params) of every request received, throttled retries included."""
        return self._store.calls()

    def reset_calls(self) -> None:
        self._store.reset_calls()

    def account_of(self, key_id: str | None) -> str:
        """The account a request signed with access key `key_id` acts as (sim/aws/accounts.py; None: unsigned)."""
        with self._store.transaction() as world:
            return accounts.account_of(world, key_id)

    @property
    def scenario(self) -> Scenario:
        with self._world() as world:
            return world.scenario

    # -- lookups -----------------------------------------------------------------------------------
    @staticmethod
    def _cluster(world: World, name: str, region: str | None = None) -> Cluster:
        matches = [
            cluster
            for cluster in world.clusters.values()
            if (name in (cluster.name, cluster.arn)) and (region is None or cluster.region == region)
        ]
        if len(matches) > 1:
            places = ", ".join(f"{c.region} of account {c.account}" for c in matches)
            raise ValueError(f"cluster {name} exists in several regions or accounts ({places}); pass region= or its ARN")
        if not matches:
            raise ResourceNotFound(f"Cluster {name} not found in the simulator.")
        return matches[0]

    # -- Slurm -------------------------------------------------------------------------------------
    def slurm_conf(self, name: str, region: str | None = None) -> str:
        with self._world() as world:
            cluster = self._require_slurm(world, name, region)
            return slurm.render(cluster, world.scenario, world)

    def edit_slurm_conf(self, name: str, text: str, region: str | None = None) -> None:
        """A user's manual edit of slurm.conf; HyperPod keeps it and merges its own lines."""
        with self._world() as world:
            cluster = self._require_slurm(world, name, region)
            slurm.edit(cluster, world.scenario, text, world)
            world.touch(cluster)

    def sinfo_rows(self, name: str, region: str | None = None) -> list[dict[str, Any]]:
        with self._world() as world:
            return slurm.sinfo_rows(self._require_slurm(world, name, region), world.scenario, world)

    def slurm_roles(self, name: str, region: str | None = None) -> list[dict[str, Any]]:
        """The controller and login groups with their running nodes' hostnames."""
        with self._world() as world:
            return slurm.role_rows(self._require_slurm(world, name, region))

    def sinfo(self, name: str, region: str | None = None) -> str:
        return slurm.sinfo_text(self.sinfo_rows(name, region))

    def _require_slurm(self, world: World, name: str, region: str | None) -> Cluster:
        cluster = self._cluster(world, name, region)
        if cluster.orchestrator != "Slurm":
            raise ValueError(f"cluster {cluster.name} is orchestrated by EKS; it has no slurm.conf or sinfo")
        return cluster

    # -- metering ----------------------------------------------------------------------------------
    def billing(self, name: str, since: Any | None = None, region: str | None = None) -> dict[str, Any]:
        """Per-instance billing records and per-group totals (also for a deleted cluster)."""
        with self._world() as world:
            try:
                cluster = self._cluster(world, name, region)
                cluster_id, arn = cluster.id, cluster.arn
            except ResourceNotFound:
                records = [r for r in world.billing.values() if r["cluster_name"] == name]
                if not records:
                    raise
                cluster_id, arn = max(records, key=lambda r: r["start"])["cluster_id"], None
            records = [record for record in world.billing.values() if record["cluster_id"] == cluster_id]
            summary = metering.summarize(records, world.now, to_seconds(since) if since is not None else None)
            return {"cluster_name": name, "cluster_arn": arn, **summary}

    # -- out-of-band controls ----------------------------------------------------------------------
    def fail_node(self, cluster: str, node_id: str, retryable: bool = True, region: str | None = None) -> None:
        """Mark a node unhealthy (instance id or logical id); retryable failures get replaced."""
        with self._world() as world:
            target, node = self._instance(world, cluster, node_id, region, "has no running instance to fail")
            prov.fail_node(
                world,
                target,
                node,
                f"Instance {node.instance_id} failed health checks (injected {'retryable' if retryable else 'non-retryable'} failure).",
                retryable=retryable,
            )
            reconcile.reconcile_pending(world)

    def lose_instance(self, cluster: str, node_id: str, region: str | None = None) -> None:
        """The node's EC2 instance vanishes outside HyperPod (terminated from EC2, reclaimed): it shows
        NotFound; automatic node recovery (or Continuous mode) replaces it after the retry interval."""
        with self._world() as world:
            target, node = self._instance(world, cluster, node_id, region, "has no instance to lose")
            prov.lose_instance(
                world,
                target,
                node,
                f"EC2 instance {node.instance_id} was not found: it was terminated outside SageMaker HyperPod (injected).",
            )
            reconcile.reconcile_pending(world)

    def set_fault_rate(self, kind: str, rate: float) -> None:
        """Set a global fault rate of the scenario (`Faults`: launch_failure_rate, lifecycle_failure_rate,
        deep_health_check_failure_rate…) from now on."""
        with self._world() as world:
            faults = world.scenario.faults.model_validate({**world.scenario.faults.model_dump(), kind: rate})
            world.scenario = world.scenario.model_copy(update={"faults": faults})

    def interrupt_spot(self, cluster: str, node_id: str, region: str | None = None) -> None:
        """EC2 reclaims a Spot instance of a group with CapacityRequirements.Spot: a warning event, then
        the instance is gone (NotFound) and the service puts a new one in (as for a lost instance)."""
        with self._world() as world:
            target, node = self._instance(world, cluster, node_id, region, "has no instance to interrupt")
            group = target.groups.get(node.group)
            if group is None or "Spot" not in (group.spec.get("CapacityRequirements") or {}):
                raise ValueError(
                    f"node {node_id} of cluster {target.name} is not a Spot instance (its group has no CapacityRequirements.Spot)"
                )
            world.emit(
                target,
                "Warn",
                "Instance",
                f"EC2 Spot Instance interruption notice for {node.instance_id} in "
                f"Cluster {target.name} and IG {node.group}: the instance is reclaimed in two minutes",
                node=node,
            )
            prov.lose_instance(world, target, node, f"Spot instance {node.instance_id} was reclaimed by EC2 (Spot interruption).")
            reconcile.reconcile_pending(world)

    def publish_image_release(self, version: str) -> None:
        """A new HyperPod AMI release (ImageReleaseVersion) comes out now: groups with ScheduledUpdateConfig
        or AutoPatchConfig are patched to it on their schedule (sim/aws/patching.py)."""
        with self._world() as world:
            world.scenario = world.scenario.model_copy(update={"image_release": version, "image_released_at": world.now})
            for cluster in list(world.clusters.values()):
                for group in cluster.groups.values():
                    group.patch = None
                world.schedule_cluster(cluster, world.now)
                world.touch(cluster)

    def fire_alarm(self, cluster: str, alarm_name: str, region: str | None = None) -> bool:
        """A CloudWatch alarm goes into ALARM: a software update naming it in AutoRollbackConfiguration is
        rolled back (rolling_update.alarm). True when it rolled one back."""
        with self._world() as world:
            return rolling_update.alarm(world, self._cluster(world, cluster, region), alarm_name)

    def _instance(self, world: World, cluster: str, node_id: str, region: str | None, missing: str) -> tuple[Cluster, Node]:
        """The cluster and its node `node_id` that has a live, launched instance; else ValueError
        ("node … of cluster … {missing}")."""
        target = self._cluster(world, cluster, region)
        node = target.node(node_id)
        if node is None or not node.launched or not node.live or node.phase == "lost":
            raise ValueError(f"node {node_id} of cluster {target.name} {missing}")
        return target, node

    def set_quota(
        self, value: float, *, name: str | None = None, code: str | None = None, account: str | None = None, region: str | None = None
    ) -> None:
        """An applied Service Quotas value changes (an increase granted, or a quota lowered below what
        already runs), by quota name or code; calls from then on are checked against it. `account`: of
        that account only (None: every account's, the scenario's `quotas`); `region`: in that region
        only (None: every region)."""
        from pulumi_hyperpod.sim.aws.scenario import AccountSettings, QuotaValue  # noqa: PLC0415 - pydantic: the scenario's models, not on a preview's path (tests/unit/provider/test_diff_lean.py)

        with self._world() as world:
            quota = QuotaValue(quota_name=name, quota_code=code, value=value, region=region)
            scenario = world.scenario

            def replaced(listed: list[QuotaValue]) -> list[QuotaValue]:
                return [*(q for q in listed if (q.quota_name, q.quota_code, q.region) != (name, code, region)), quota]

            if account is None:
                world.scenario = scenario.model_copy(update={"quotas": replaced(scenario.quotas)})
                return
            own = scenario.accounts.get(account) or AccountSettings.model_validate({})
            accounts_now: dict[str, AccountSettings] = {
                **scenario.accounts,
                account: own.model_copy(update={"quotas": replaced(own.quotas)}),
            }
            world.scenario = scenario.model_validate({**scenario.model_dump(), "accounts": accounts_now})  # the account id checked

    def set_capacity(self, instance_type: str, az: str | None, available: int | None) -> None:
        """Set the free instances of a type in an AZ (None: the pool shared by every AZ); `available`
        None makes the pair unlimited again."""
        with self._world() as world:
            if available is None:
                world.capacity.unlimit(instance_type, az)
            else:
                world.capacity.set(instance_type, az, available)

    def node_build_configs(self, name: str, region: str | None = None) -> list[dict[str, Any]]:
        """The group configuration each node was built with (None for never-launched nodes)."""
        with self._world() as world:
            cluster = self._cluster(world, name, region)
            return [
                {
                    "NodeLogicalId": node.logical_id,
                    "InstanceId": node.instance_id,
                    "InstanceGroupName": node.group,
                    "BuiltWith": node.built_with,
                }
                for node in sorted(cluster.nodes.values(), key=lambda n: (n.created_at, n.logical_id))
            ]

    def overview(self) -> dict[str, Any]:
        """Clusters, statuses and counts for `hyperpod fake show`."""
        with self._world() as world:
            clusters = []
            for cluster in sorted(world.clusters.values(), key=lambda c: (c.created_at, c.name)):
                grouped = cluster.nodes_by_group()
                clusters.append(
                    {
                        "name": cluster.name,
                        "region": cluster.region,
                        "account": cluster.account,
                        "arn": cluster.arn,
                        "status": cluster.status,
                        "orchestrator": cluster.orchestrator,
                        "mode": "Continuous" if cluster.continuous else "all-or-nothing",
                        "groups": [
                            {
                                "name": g.name,
                                "status": g.status,
                                "target": g.target,
                                "min": g.min_count,
                                "current": sum(1 for n in grouped.get(g.name, []) if n.phase == "running"),
                            }
                            for g in cluster.groups.values()
                        ],
                    }
                )
            speed = getattr(world.clock, "speed", None)
            return {
                "path": str(self.path) if self.path else None,
                "virtual_time": to_datetime(world.now),
                "speed": speed,
                "ahead_of_wall_clock_seconds": world.clock.lead,
                "clusters": clusters,
            }
