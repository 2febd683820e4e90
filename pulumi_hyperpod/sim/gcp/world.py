"""The simulated service's state and behaviour, with no HTTP in it (the wire layer is wire.py).

Clusters go PROVISIONING → RUNNING, RUNNING → UPDATING → RUNNING on a patch, STOPPING → gone on a
delete; every mutation is a long-running operation that finishes later on the virtual clock.
Virtual time moves by `tick` seconds on every request the service answers, so a client polling an
operation sees it finish after a fixed number of polls, the same in every process and every run.
A world kept beside the HyperPod world (`GcpSimulator.open_default`) reads and moves the directory's
one clock (sim/clock.py) instead of its own `now`: real time, `hyperpod fake advance` and a client
waiting on either cloud move both clouds' time; `now` then stays the latest time the world has seen.

The state is one JSON document (clusters, operations, clock), so a SQLite row holds a whole world
and separate processes (the CLI, the Pulumi provider, a test) share it.
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from pulumi_hyperpod.gcp.spec import keys, names
from pulumi_hyperpod.gcp.spec.slurm_bridge import IMMUTABLE_FIELDS as SLURM_IMMUTABLE
from pulumi_hyperpod.gcp.spec.slurm_bridge import MUTABLE_FIELDS as SLURM_MUTABLE
from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError
from pulumi_hyperpod.sim.gcp.errors import RpcError, invalid

EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc).timestamp()
TICK_SECONDS = 60.0
CREATE_SECONDS = 600.0
UPDATE_SECONDS = 300.0
DELETE_SECONDS = 300.0
PROJECT_NUMBER = "123456789012"
DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE = 10, 100

# update_mask paths (ModelDevelopmentCluster.yaml: the mutable top-level fields and the listed
# orchestrator_spec.slurm_spec fields); everything else named in a mask is rejected.
MUTABLE_PATHS = frozenset(
    {"display_name", "labels", "node_pools", "lustre_export_config"} | {f"orchestrator_spec.slurm_spec.{f}" for f in SLURM_MUTABLE}
)
IMMUTABLE_PATHS = frozenset(
    {"name", "network", "runtime_spec", "create_time", "update_time", "start_time", "cluster_status", "cluster_events", "runtime"}
    | {f"orchestrator_spec.slurm_spec.{f}" for f in SLURM_IMMUTABLE}
)
POOL_IMMUTABLE = ("machine_spec", "provisioning_model", "confidential_instance_config")
OPERATION_TYPES = {
    "create": "CreateModelDevelopmentClusterOperationMetadata",
    "update": "UpdateModelDevelopmentClusterOperationMetadata",
    "delete": "DeleteOperationMetadata",
}
TYPE_PREFIX = "type.googleapis.com/google.cloud.aiplatform.v1beta1."


def timestamp(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def empty_world(tick: float = TICK_SECONDS, capacity: dict[str, int] | None = None) -> dict[str, Any]:
    """`capacity`: machine type → the most nodes of it the world has (absent: unlimited)."""
    return {
        "format": "hyperpod-gcp-world/1",
        "now": EPOCH,
        "tick": tick,
        "seq": 0,
        "clusters": {},
        "operations": {},
        "capacity": dict(capacity or {}),
    }


class GcpWorld:
    def __init__(self, data: dict[str, Any] | None = None, clock: Any = None) -> None:
        self.data = data if data is not None else empty_world()
        self.clock = clock  # a core.clock.SharedClock, or None: `now` moves only by `advance`
        if clock is not None:
            self._follow_clock()

    # ---- time --------------------------------------------------------------------------------
    @property
    def now(self) -> float:
        return self.data["now"]

    def advance(self, seconds: float | None = None) -> None:
        step = self.data["tick"] if seconds is None else seconds
        if self.clock is None:
            self.data["now"] += step
            self._catch_up()
        else:
            if step:
                self.clock.advance(step)
            self._follow_clock()

    def _follow_clock(self) -> None:
        """`now` from the shared clock (never back), and the operations due by then finished."""
        self.data["now"] = max(self.data["now"], self.clock.now())
        self._catch_up()

    def _catch_up(self) -> None:
        for op in sorted(self.data["operations"].values(), key=lambda o: o["due"]):
            if not op["done"] and op["due"] <= self.now:
                self._finish(op)

    def _next(self) -> int:
        self.data["seq"] += 1
        return self.data["seq"]

    # ---- reads -------------------------------------------------------------------------------
    def get(self, name: str) -> dict[str, Any]:
        return self._view(self._cluster(name))

    def list(self, parent: str, page_size: int | None, page_token: str | None) -> dict[str, Any]:
        size = DEFAULT_PAGE_SIZE if not page_size or page_size <= 0 else min(page_size, MAX_PAGE_SIZE)
        start = 0
        if page_token:
            if not page_token.startswith("o") or not page_token[1:].isdigit():
                raise invalid("page_token", "not a token this service returned")
            start = int(page_token[1:])
        found = sorted(n for n in self.data["clusters"] if n.startswith(parent + "/"))
        page = found[start : start + size]
        result: dict[str, Any] = {"modelDevelopmentClusters": [self._view(self.data["clusters"][n]) for n in page]}
        if start + size < len(found):
            result["nextPageToken"] = f"o{start + size}"
        return result

    def overview(self) -> list[dict[str, Any]]:
        """Each cluster's state and its pools' running nodes and bounds (`hyperpod fake show`)."""
        rows = []
        for name, cluster in sorted(self.data["clusters"].items(), key=lambda item: (item[1]["create_time"], item[0])):
            pools = []
            for pool in cluster["body"]["node_pools"]:
                nodes = [n for n in cluster["nodes"] if n["pool"] == pool["id"] and not n.get("leaving")]
                scaling = pool["scaling_spec"]
                pools.append(
                    {
                        "id": pool["id"],
                        "machine_type": pool["machine_spec"]["machine_type"],
                        "running": sum(1 for n in nodes if n["state"] == "RUNNING"),
                        "min": scaling["min_node_count"],
                        "max": scaling["max_node_count"],
                    }
                )
            rows.append({"name": name, "state": cluster["state"], "pools": pools})
        return rows

    def set_capacity(self, machine_type: str, available: int | None) -> None:
        """From now on the world has `available` nodes of `machine_type` (None: unlimited)."""
        capacity = self.data.setdefault("capacity", {})
        if available is None:
            capacity.pop(machine_type, None)
        else:
            capacity[machine_type] = int(available)

    def get_operation(self, name: str) -> dict[str, Any]:
        op = self.data["operations"].get(name)
        if op is None:
            raise RpcError("NOT_FOUND", f"Operation {name} not found.")
        return self._operation_view(op)

    # ---- mutations ---------------------------------------------------------------------------
    def create(self, parent: str, cluster_id: str | None, body: Any) -> dict[str, Any]:
        if not cluster_id:
            raise invalid("model_development_cluster_id", "required")
        problem = names.id_problem(cluster_id, slurm=True)
        if problem:
            raise invalid("model_development_cluster_id", problem)
        name = f"{parent}/{names.COLLECTION}/{cluster_id}"
        if name in self.data["clusters"]:
            raise RpcError("ALREADY_EXISTS", f"ModelDevelopmentCluster {name} already exists.")
        incoming = _snake_body(body)
        _no_etag(incoming)
        stored = self._validated(name, incoming)
        # an autoscaled pool (min < max) starts at its minimum; the service grows it within the range
        pools = {p["id"]: p["scaling_spec"]["min_node_count"] for p in stored["node_pools"]}
        cluster = {
            "name": name,
            "body": stored,
            "state": "PROVISIONING",
            "create_time": self.now,
            "update_time": self.now,
            "start_time": None,
            "nodes": [],
            "deleting": False,
            "detail": "Provisioning the cluster's node pools and the Slurm controller.",
        }
        for pool_id, count in pools.items():
            self._add_nodes(cluster, pool_id, count)
        self.data["clusters"][name] = cluster
        return self._start("create", cluster, CREATE_SECONDS)

    def patch(self, name: str, update_mask: str | None, body: Any) -> dict[str, Any]:
        cluster = self._cluster(name)
        if cluster["state"] != "RUNNING":
            raise RpcError(
                "FAILED_PRECONDITION", f"ModelDevelopmentCluster {name} is {cluster['state']}; it can be updated when it is RUNNING."
            )
        paths = _mask_paths(update_mask)
        incoming = _snake_body(body)
        _no_etag(incoming)
        old = cluster["body"]
        new = copy.deepcopy(old)
        for path in paths:
            _set_path(new, path, _get_path(incoming, path))
        if "node_pools" in paths:
            new["node_pools"] = self._merged_pools(old["node_pools"], new.get("node_pools") or [])
        stored = self._validated(name, new)
        cluster["before"] = {"body": old, "nodes": [n["instance_id"] for n in cluster["nodes"]]}  # for a rollback
        cluster["body"] = stored
        cluster["state"] = "UPDATING"
        cluster["update_time"] = self.now
        cluster["detail"] = "Applying the update."
        self._resize(
            cluster, {p["id"]: (p["scaling_spec"]["min_node_count"], p["scaling_spec"]["max_node_count"]) for p in stored["node_pools"]}
        )
        return self._start("update", cluster, UPDATE_SECONDS)

    def delete(self, name: str) -> dict[str, Any]:
        cluster = self._cluster(name)
        if cluster["deleting"]:
            raise RpcError("FAILED_PRECONDITION", f"ModelDevelopmentCluster {name} is already being deleted.")
        cluster["deleting"] = True
        cluster["state"] = "STOPPING"
        cluster["detail"] = "Deleting the cluster."
        for node in cluster["nodes"]:
            node["state"], node["updated"] = "UPDATING", self.now
        return self._start("delete", cluster, DELETE_SECONDS)

    # ---- lifecycle ---------------------------------------------------------------------------
    def _start(self, kind: str, cluster: dict[str, Any], seconds: float) -> dict[str, Any]:
        op_name = f"{cluster['name']}/operations/{7000000000000000000 + self._next()}"
        self.data["operations"][op_name] = {
            "name": op_name,
            "kind": kind,
            "cluster": cluster["name"],
            "created": self.now,
            "due": self.now + seconds,
            "done": False,
        }
        cluster["operation"] = op_name
        return self._operation_view(self.data["operations"][op_name])

    def _finish(self, op: dict[str, Any]) -> None:
        op["done"], op["finished"] = True, op["due"]
        cluster = self.data["clusters"].get(op["cluster"])
        if cluster is None:
            return
        if op["kind"] == "delete":
            op["response"] = {"@type": "type.googleapis.com/google.protobuf.Empty"}
            del self.data["clusters"][op["cluster"]]
            return
        short = self._shortage(cluster)
        if short is not None:
            self._fail(op, cluster, short)
            return
        cluster["nodes"] = [n for n in cluster["nodes"] if not n.get("leaving")]
        cluster.pop("before", None)
        for node in cluster["nodes"]:
            if node["state"] != "RUNNING":
                node["state"], node["updated"] = "RUNNING", op["due"]
        cluster["state"], cluster["update_time"], cluster["detail"] = "RUNNING", op["due"], "The cluster is running."
        cluster["start_time"] = cluster["start_time"] or op["due"]
        cluster.pop("operation", None)
        op["response"] = {"@type": TYPE_PREFIX + "ModelDevelopmentCluster", **self._view(cluster)}

    # ---- capacity: a machine type's nodes across the world, at most `capacity[type]` --------------
    def _shortage(self, cluster: dict[str, Any]) -> tuple[str, int, int] | None:
        """(machine type, nodes wanted, nodes available) when this cluster's pools do not fit."""
        capacity = self.data.get("capacity") or {}
        if not capacity:
            return None
        types = {p["id"]: p["machine_spec"]["machine_type"] for p in cluster["body"]["node_pools"]}
        for machine_type, limit in sorted(capacity.items()):
            mine = sum(1 for n in cluster["nodes"] if not n.get("leaving") and types.get(n["pool"]) == machine_type)
            others = sum(
                1
                for other in self.data["clusters"].values()
                if other is not cluster and other["state"] != "ERROR"
                for n in other["nodes"]
                if not n.get("leaving")
                and {p["id"]: p["machine_spec"]["machine_type"] for p in other["body"]["node_pools"]}.get(n["pool"]) == machine_type
            )
            if mine and mine + others > limit:
                return machine_type, mine, max(limit - others, 0)
        return None

    def _fail(self, op: dict[str, Any], cluster: dict[str, Any], short: tuple[str, int, int]) -> None:
        """Not enough capacity: a create leaves the cluster in ERROR; an update is rolled back."""
        machine_type, wanted, available = short
        message = (
            f"Not enough {machine_type} capacity in {cluster['name'].split('/')[3]}: the node pools need "
            f"{wanted} node(s), {available} available."
        )
        op["error"] = {"code": 8, "message": message}  # RESOURCE_EXHAUSTED
        cluster.pop("operation", None)
        cluster["update_time"] = op["due"]
        if op["kind"] == "create":
            types = {p["id"]: p["machine_spec"]["machine_type"] for p in cluster["body"]["node_pools"]}
            for node in cluster["nodes"]:
                node["state"] = "ERROR" if types.get(node["pool"]) == machine_type else "RUNNING"
                node["updated"] = op["due"]
            cluster["state"], cluster["detail"] = "ERROR", message
            return
        before = cluster.pop("before")
        cluster["body"] = before["body"]
        kept = set(before["nodes"])
        cluster["nodes"] = [n for n in cluster["nodes"] if n["instance_id"] in kept]
        for node in cluster["nodes"]:
            node.pop("leaving", None)
            node["state"], node["updated"] = "RUNNING", op["due"]
        cluster["state"], cluster["detail"] = "RUNNING", f"The last update was rolled back: {message}"

    def _add_nodes(self, cluster: dict[str, Any], pool_id: str, count: int) -> None:
        cluster_id = cluster["name"].rsplit("/", 1)[1]
        for _ in range(count):
            seq = self._next()
            cluster["nodes"].append(
                {
                    "pool": pool_id,
                    "instance_id": str(4000000000000000000 + seq),
                    "instance_name": f"{cluster_id}-{pool_id}-{seq:04d}",
                    "state": "PREPARING",
                    "created": self.now,
                    "updated": self.now,
                }
            )

    def _resize(self, cluster: dict[str, Any], bounds: dict[str, tuple[int, int]]) -> None:
        """Each pool's nodes into its [min, max] range (a fixed pool: min == max). The service picks
        the nodes a shrink removes (the newest first); callers cannot name them."""
        for pool_id in {n["pool"] for n in cluster["nodes"]} | set(bounds):
            members = [n for n in cluster["nodes"] if n["pool"] == pool_id and not n.get("leaving")]
            low, high = bounds.get(pool_id, (0, 0))
            extra = len(members) - high
            if extra > 0:
                for node in sorted(members, key=lambda n: (n["created"], n["instance_id"]), reverse=True)[:extra]:
                    node["state"], node["leaving"], node["updated"] = "UPDATING", True, self.now
            elif len(members) < low:
                self._add_nodes(cluster, pool_id, low - len(members))

    def _merged_pools(self, old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """node_pools is replaced whole; the server's defaults fill what the request leaves out of an
        existing pool. A pool sent under an existing id with other immutable fields (machine spec,
        reservation, provisioning model, confidential computing: immutable in the resource's
        definition) is refused, as the service refuses a change of an immutable field; a pool under a
        new id is a new pool."""
        before = {p["id"]: p for p in old}
        merged = []
        for index, pool in enumerate(new):
            previous = before.get(pool.get("id"))
            if previous is not None:
                for field in POOL_IMMUTABLE:
                    if field in pool and pool[field] != previous.get(field):
                        raise RpcError(
                            "INVALID_ARGUMENT",
                            f"Invalid field node_pools[{index}].{field}: immutable field of node pool {pool['id']!r} cannot be changed",
                        )
                pool = {**{k: previous[k] for k in POOL_IMMUTABLE if k in previous}, **pool}
            merged.append(pool)
        return merged

    # ---- views -------------------------------------------------------------------------------
    def _cluster(self, name: str) -> dict[str, Any]:
        cluster = self.data["clusters"].get(name)
        if cluster is None:
            raise RpcError("NOT_FOUND", f"ModelDevelopmentCluster {name} not found.")
        return cluster

    def _validated(self, name: str, body: dict[str, Any]) -> dict[str, Any]:
        """The same rules as the client's spec (one source), answered as INVALID_ARGUMENT."""
        try:
            spec = ClusterSpec.from_document({**body, "name": name})
        except GcpSpecError as error:
            first_path, first_rule = error.violations[0]
            raise RpcError(
                "INVALID_ARGUMENT", f"Invalid field {first_path}: {first_rule}" if first_path else first_rule, error.violations
            ) from None
        return _with_defaults(spec.body(), names.parse_name(name))

    def _view(self, cluster: dict[str, Any]) -> dict[str, Any]:
        body = keys.to_camel(_proto3(cluster["body"]))
        view: dict[str, Any] = {
            "name": cluster["name"],
            **body,
            "createTime": timestamp(cluster["create_time"]),
            "updateTime": timestamp(cluster["update_time"]),
        }
        if cluster["start_time"] is not None:
            view["startTime"] = timestamp(cluster["start_time"])
        login = cluster["body"]["orchestrator_spec"]["slurm_spec"].get("login_node_pool_id")
        view["clusterStatus"] = {
            "state": cluster["state"],
            "detail": cluster["detail"],
            "nodesStatus": [
                {
                    "nodePoolId": n["pool"],
                    "nodePoolType": "NODE_POOL_TYPE_LOGIN" if n["pool"] == login else "NODE_POOL_TYPE_COMPUTE",
                    "nodeState": n["state"],
                    "instanceId": n["instance_id"],
                    "instanceName": n["instance_name"],
                    "createTime": timestamp(n["created"]),
                    "lastUpdateTime": timestamp(n["updated"]),
                }
                for n in cluster["nodes"]
            ],
        }
        return view

    def _operation_view(self, op: dict[str, Any]) -> dict[str, Any]:
        view: dict[str, Any] = {
            "name": op["name"],
            "metadata": {
                "@type": TYPE_PREFIX + OPERATION_TYPES[op["kind"]],
                "genericMetadata": {"createTime": timestamp(op["created"]), "updateTime": timestamp(op.get("finished", op["created"]))},
            },
        }
        if op["done"]:
            view["done"] = True
            if "error" in op:
                view["error"] = op["error"]
            else:
                view["response"] = op.get("response", {})
        return view


# ---- helpers -----------------------------------------------------------------------------------
def _no_etag(body: dict[str, Any]) -> None:
    """ModelDevelopmentCluster has no etag field (magic-modules' ModelDevelopmentCluster.yaml lists
    none): proto3 JSON refuses a name the message does not have."""
    if "etag" in body:
        raise RpcError(
            "INVALID_ARGUMENT", "Invalid JSON payload received. Unknown name \"etag\" at 'model_development_cluster': Cannot find field."
        )


def _proto3(value: Any) -> Any:
    """As proto3 JSON prints a message: fields at their zero value (false, 0, "", [], {}) left out."""
    if isinstance(value, dict):
        kept = {k: _proto3(v) for k, v in value.items()}
        return {
            k: v
            for k, v in kept.items()
            if not (v is False or (v == 0 and not isinstance(v, bool) and isinstance(v, int)) or v in ("", [], {}) or v is None)
        }
    if isinstance(value, list):
        return [_proto3(item) for item in value]
    return value


def _snake_body(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise invalid("", "the request body must be a ModelDevelopmentCluster JSON object")
    try:
        snake = keys.to_snake(body)
    except keys.SpellingError as error:
        raise invalid(error.path, error.rule) from None
    for output_only in ("name", "create_time", "update_time", "start_time", "cluster_status", "cluster_events", "runtime"):
        snake.pop(output_only, None)
    return snake


def _mask_paths(update_mask: str | None) -> list[str]:
    paths = [".".join(keys.snake(part) for part in p.strip().split(".")) for p in (update_mask or "").split(",") if p.strip()]
    if not paths:
        raise invalid("update_mask", "required: name the fields to update")
    for path in paths:
        if path in MUTABLE_PATHS:
            continue
        if path in IMMUTABLE_PATHS or any(path.startswith(p + ".") for p in IMMUTABLE_PATHS):
            raise invalid("update_mask", f"{path} is immutable")
        raise invalid("update_mask", f"{path} is not a field that can be updated (updatable: {', '.join(sorted(MUTABLE_PATHS))})")
    return paths


def _get_path(data: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def _set_path(data: dict[str, Any], path: str, value: Any) -> None:
    *parents, last = path.split(".")
    for part in parents:
        data = data.setdefault(part, {})
    if value is None:
        data.pop(last, None)
    else:
        data[last] = copy.deepcopy(value)


def _with_defaults(body: dict[str, Any], name: names.ClusterName) -> dict[str, Any]:
    """What the service fills in (the fields Terraform marks default_from_api)."""
    body = copy.deepcopy(body)
    network = body.setdefault("network", {"network": f"projects/{name.project}/global/networks/default"})
    network.setdefault("subnetwork", f"projects/{name.project}/regions/{name.location}/subnetworks/default")
    body.setdefault("runtime_spec", {}).setdefault("service_account", f"{PROJECT_NUMBER}-compute@developer.gserviceaccount.com")
    for pool in body["node_pools"]:
        machine = pool["machine_spec"]["machine_type"]
        disk = pool.setdefault("boot_disk", {})
        disk.setdefault("boot_disk_size_gb", 100)
        disk.setdefault("boot_disk_type", "hyperdisk-balanced" if machine.startswith("a3-ultragpu") else "pd-ssd")
        pool.setdefault("provisioning_model", "RESERVATION" if pool["machine_spec"].get("reservation_affinity") else "ON_DEMAND")
        pool.setdefault("node_image", "projects/vertex-ai-training-clusters/global/images/family/slurm-default")
        pool.setdefault("zone", f"{name.location}-a")
    return body
