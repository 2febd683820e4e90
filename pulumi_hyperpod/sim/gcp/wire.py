"""The simulator at the `requests` transport: a BaseAdapter that answers the v1beta1 REST calls.

Routes (the real service's, under https://{location}-aiplatform.googleapis.com/v1beta1/):
    POST   {parent}/modelDevelopmentClusters?modelDevelopmentClusterId=ID   → Operation
    GET    {parent}/modelDevelopmentClusters?pageSize=&pageToken=          → list page
    GET    {name}                                                         → ModelDevelopmentCluster
    PATCH  {name}?updateMask=a,b                                          → Operation
    DELETE {name}                                                         → Operation
    GET    {name}/operations/{id}                                         → Operation
and Compute Engine's reads a preflight makes (https://compute.googleapis.com/compute/v1/, compute.py):
    GET    projects/P/regions/R                     → Region (its quotas: limit and usage)
    GET    projects/P/zones/Z/machineTypes/M        → MachineType (vCPUs, accelerators)
    GET    projects/P/zones/Z/reservations/N        → Reservation
Errors are google.rpc.Status JSON bodies with the matching HTTP status.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from requests import PreparedRequest, Response
from requests.adapters import BaseAdapter
from requests.structures import CaseInsensitiveDict

from pulumi_hyperpod.sim.gcp.errors import RpcError
from pulumi_hyperpod.sim.gcp.world import GcpWorld
from pulumi_hyperpod.sim.gcp.compute import Compute

_PARENT = r"projects/[^/]+/locations/[^/]+"
_COLLECTION = re.compile(rf"^/v1beta1/(?P<parent>{_PARENT})/modelDevelopmentClusters$")
_CLUSTER = re.compile(rf"^/v1beta1/(?P<name>{_PARENT}/modelDevelopmentClusters/[^/]+)$")
_OPERATION = re.compile(rf"^/v1beta1/(?P<name>{_PARENT}/modelDevelopmentClusters/[^/]+/operations/[^/]+)$")
_HOST = re.compile(r"^(?P<location>[a-z]+-[a-z]+[0-9]+)-aiplatform\.googleapis\.com$")
COMPUTE_HOST = "compute.googleapis.com"
_REGION = re.compile(r"^/compute/v1/projects/(?P<project>[^/]+)/regions/(?P<region>[^/]+)$")
_ZONAL = re.compile(r"^/compute/v1/projects/(?P<project>[^/]+)/zones/(?P<zone>[^/]+)/(?P<kind>machineTypes|reservations)/(?P<name>[^/]+)$")


class SimulatorAdapter(BaseAdapter):
    """`transaction` opens the world for one request (a store's context manager)."""

    def __init__(self, transaction: Callable[[], Any]) -> None:
        super().__init__()
        self._transaction = transaction
        self.requests: list[tuple[str, str]] = []  # (method, path?query) answered, for tests and logs

    def send(self, request: PreparedRequest, stream=False, timeout=None, verify=True, cert=None, proxies=None) -> Response:
        url = urlsplit(request.url)
        self.requests.append((request.method, url.path + (f"?{url.query}" if url.query else "")))
        try:
            with self._transaction() as world:
                world.advance()
                status, payload = (
                    200,
                    _route(
                        world,
                        request.method or "GET",
                        url.netloc,
                        unquote(url.path),
                        {k: v[-1] for k, v in parse_qs(url.query).items()},
                        request.body,
                    ),
                )
        except RpcError as error:
            status, payload = error.http_status, error.body()
        return _response(request, status, payload)

    def close(self) -> None:
        pass


def _route(world: GcpWorld, method: str, host: str, path: str, query: dict[str, str], raw: Any) -> dict[str, Any]:
    if host == COMPUTE_HOST:
        return _compute(world, method, path)
    host_match = _HOST.match(host)
    location = host_match["location"] if host_match else None
    for pattern in (_OPERATION, _CLUSTER, _COLLECTION):
        match = pattern.match(path)
        if match is None:
            continue
        target = match.groupdict().get("name") or match["parent"]
        if location and f"/locations/{location}/" not in target + "/":
            raise RpcError("INVALID_ARGUMENT", f"The location in the URL ({target}) does not match the regional endpoint {host}.")
        if pattern is _OPERATION and method == "GET":
            return world.get_operation(target)
        if pattern is _CLUSTER and method == "GET":
            return world.get(target)
        if pattern is _CLUSTER and method == "PATCH":
            return world.patch(target, query.get("updateMask") or query.get("update_mask"), _json(raw))
        if pattern is _CLUSTER and method == "DELETE":
            return world.delete(target)
        if pattern is _COLLECTION and method == "GET":
            return world.list(
                target,
                _int(query.get("pageSize") or query.get("page_size"), "page_size"),
                query.get("pageToken") or query.get("page_token"),
            )
        if pattern is _COLLECTION and method == "POST":
            cluster_id = query.get("modelDevelopmentClusterId") or query.get("model_development_cluster_id")
            return world.create(target, cluster_id, _json(raw))
        raise RpcError("UNIMPLEMENTED", f"{method} {path} is not a method of this service.")
    raise RpcError("NOT_FOUND", f"The requested URL {path} was not found on this server.")


def _compute(world: GcpWorld, method: str, path: str) -> dict[str, Any]:
    if method != "GET":
        raise RpcError("UNIMPLEMENTED", f"{method} {path}: the simulator answers Compute Engine's reads only.")
    compute = Compute(world.data)
    region = _REGION.match(path)
    if region:
        return compute.region(region["project"], region["region"])
    zonal = _ZONAL.match(path)
    if zonal and zonal["kind"] == "machineTypes":
        return compute.machine_type(zonal["project"], zonal["zone"], zonal["name"])
    if zonal:
        return compute.reservation(zonal["project"], zonal["zone"], zonal["name"])
    raise RpcError("NOT_FOUND", f"The requested URL {path} was not found on this server.")


def _json(raw: Any) -> Any:
    if raw is None or raw == b"" or raw == "":
        return {}
    try:
        return json.loads(raw.decode("utf-8") if isinstance(raw, bytes) else raw)
    except (ValueError, UnicodeDecodeError) as error:
        raise RpcError("INVALID_ARGUMENT", f"Invalid JSON payload received. {error}") from None


def _int(value: str | None, field: str) -> int | None:
    if value is None:
        return None
    try:
        return int(value)
    except ValueError:
        raise RpcError("INVALID_ARGUMENT", f"Invalid value at '{field}' (TYPE_INT32), \"{value}\"") from None


def _response(request: PreparedRequest, status: int, payload: dict[str, Any]) -> Response:
    response = Response()
    response.status_code = status
    response._content = json.dumps(payload).encode("utf-8")
    response.headers = CaseInsensitiveDict({"Content-Type": "application/json; charset=UTF-8"})
    response.url = request.url or ""
    response.request = request
    response.encoding = "utf-8"
    response.reason = "OK" if status == 200 else "Error"
    return response
