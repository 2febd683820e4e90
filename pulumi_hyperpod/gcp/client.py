"""The REST client: google-auth's AuthorizedSession over `requests`, v1beta1 URLs, JSON, list
pagination, google.rpc.Status errors made readable, and long-running operations waited on with a
deadline and progress.

No Python client library covers `modelDevelopmentClusters` today; this is the thin one the issue
asks for. `connect("gcp")` uses Application Default Credentials; `connect("fake")` the simulator
(same session class, anonymous credentials, the simulator mounted as the transport).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from pulumi_hyperpod.core import backends
from pulumi_hyperpod.gcp.spec import keys, names
from pulumi_hyperpod.core import envvars
from pulumi_hyperpod.core.extras import needed

API_VERSION = "v1beta1"
ENDPOINT_ENV = "HYPERPOD_GCP_ENDPOINT"  # e.g. a Private Service Connect endpoint; {location} is filled in
DEFAULT_ENDPOINT = "https://{location}-aiplatform.googleapis.com"
COMPUTE_ENDPOINT_ENV = "HYPERPOD_GCP_COMPUTE_ENDPOINT"  # Compute Engine's (the preflight's reads)
COMPUTE_ENDPOINT = "https://compute.googleapis.com/compute/v1"
SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
BACKENDS = backends.names("gcp")  # ("gcp", "fake"); "sim" is the simulator's alias
_RETRY_STATUS = frozenset({429, 500, 502, 503, 504})


class GcpApiError(Exception):
    """A google.rpc.Status from the service, with the call it answered."""

    def __init__(
        self, call: str, http_status: int, status: str, message: str, field_violations: list[tuple[str, str]] | None = None
    ) -> None:
        self.call, self.http_status, self.status, self.message = call, http_status, status, message
        self.field_violations = field_violations or []
        fields = "".join(f"; {f}: {d}" for f, d in self.field_violations if f and f not in message)
        super().__init__(f"{call}: {status} ({http_status}): {message}{fields}")


class OperationFailed(GcpApiError):
    """The long-running operation finished with an error."""


class OperationTimeout(TimeoutError):
    def __init__(self, operation: str, seconds: float) -> None:
        super().__init__(
            f"operation {operation} was not done after {seconds:g}s; it goes on in the service: "
            "re-run the command later, it plans again from what is there"
        )
        self.operation = operation


@dataclass(frozen=True)
class OperationProgress:
    operation: str
    verb: str
    elapsed: float
    done: bool
    cluster_state: str | None = None

    def __str__(self) -> str:
        state = f", cluster {self.cluster_state}" if self.cluster_state else ""
        return f"{self.verb}: {'done' if self.done else 'running'} after {self.elapsed:.0f}s{state}"


@dataclass
class GcpClient:
    session: Any
    endpoint: str = field(default_factory=lambda: os.environ.get(ENDPOINT_ENV) or DEFAULT_ENDPOINT)
    poll_seconds: float = 30.0
    sleep: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic
    backend: str = "gcp"

    # ---- URLs --------------------------------------------------------------------------------
    def url(self, resource: str) -> str:
        location = _location_of(resource)
        return f"{self.endpoint.format(location=location).rstrip('/')}/{API_VERSION}/{resource}"

    # ---- one call ----------------------------------------------------------------------------
    def compute_url(self, resource: str) -> str:
        base = COMPUTE_ENDPOINT if self.backend == "fake" else os.environ.get(COMPUTE_ENDPOINT_ENV) or COMPUTE_ENDPOINT
        return f"{base.rstrip('/')}/{resource}"

    def _call(
        self,
        method: str,
        resource: str,
        *,
        params: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
        url: str | None = None,
    ) -> dict[str, Any]:
        import requests  # noqa: PLC0415 - requests: only a real HTTP call

        call = f"{method} {resource}"
        attempts = 4 if method == "GET" else 1  # only reads are retried blindly
        for attempt in range(attempts):
            try:
                response = self.session.request(
                    method, url or self.url(resource), params=params, json=keys.to_camel(body) if body is not None else None, timeout=60
                )
            except requests.RequestException as error:
                if attempt + 1 < attempts:
                    self.sleep(min(2**attempt, 8))
                    continue
                raise GcpApiError(call, 0, "UNAVAILABLE", f"no answer from the service: {error}") from None
            if response.status_code in _RETRY_STATUS and attempt + 1 < attempts:
                self.sleep(min(2**attempt, 8))
                continue
            return _payload(call, response)
        raise AssertionError("unreachable")

    # ---- the resource ------------------------------------------------------------------------
    def get_cluster(self, name: str) -> dict[str, Any]:
        return self._call("GET", name)

    def find_cluster(self, name: str) -> dict[str, Any] | None:
        """The cluster, or None when the service says NOT_FOUND."""
        try:
            return self.get_cluster(name)
        except GcpApiError as error:
            if error.status == "NOT_FOUND":
                return None
            raise

    def list_clusters(self, parent: str, page_size: int | None = None) -> Iterator[dict[str, Any]]:
        token: str | None = None
        while True:
            params = {k: v for k, v in (("pageSize", page_size), ("pageToken", token)) if v}
            page = self._call("GET", f"{parent}/{names.COLLECTION}", params=params)
            yield from page.get("modelDevelopmentClusters") or ()
            token = page.get("nextPageToken")
            if not token:
                return

    def create_cluster(self, parent: str, cluster_id: str, body: dict[str, Any]) -> dict[str, Any]:
        return self._call("POST", f"{parent}/{names.COLLECTION}", params={"modelDevelopmentClusterId": cluster_id}, body=body)

    def patch_cluster(self, name: str, update_mask: list[str] | tuple[str, ...], body: dict[str, Any]) -> dict[str, Any]:
        return self._call("PATCH", name, params={"updateMask": ",".join(update_mask)}, body=body)

    def delete_cluster(self, name: str) -> dict[str, Any]:
        return self._call("DELETE", name)

    def get_operation(self, name: str) -> dict[str, Any]:
        return self._call("GET", name)

    # ---- Compute Engine: what a preflight reads ----------------------------------------------------
    def get_region(self, project: str, region: str) -> dict[str, Any]:
        """compute/v1 regions.get: the region's quotas (metric, limit, usage)."""
        resource = f"projects/{project}/regions/{region}"
        return self._call("GET", resource, url=self.compute_url(resource))

    def get_machine_type(self, project: str, zone: str, machine_type: str) -> dict[str, Any]:
        """compute/v1 machineTypes.get: NOT_FOUND when the zone does not offer the type."""
        resource = f"projects/{project}/zones/{zone}/machineTypes/{machine_type}"
        return self._call("GET", resource, url=self.compute_url(resource))

    def get_reservation(self, project: str, zone: str, name: str) -> dict[str, Any]:
        """compute/v1 reservations.get."""
        resource = f"projects/{project}/zones/{zone}/reservations/{name}"
        return self._call("GET", resource, url=self.compute_url(resource))

    # ---- long-running operations -------------------------------------------------------------
    def wait_operation(
        self,
        operation: dict[str, Any],
        timeout: float,
        verb: str = "operation",
        progress: Callable[[OperationProgress], None] | None = None,
    ) -> dict[str, Any]:
        """Poll `…/operations/ID` until done or the deadline; the finished operation, or
        OperationFailed with its google.rpc.Status, or OperationTimeout."""
        name = operation["name"]
        started = self.monotonic()
        while True:
            if operation.get("done"):
                if progress:
                    progress(OperationProgress(name, verb, self.monotonic() - started, True, _state(operation.get("response"))))
                error = operation.get("error")
                if error:
                    raise OperationFailed(f"{verb} ({name})", 200, _code_name(error.get("code")), error.get("message") or "failed")
                return operation
            elapsed = self.monotonic() - started
            if elapsed >= timeout:
                raise OperationTimeout(name, timeout)
            if progress:
                progress(OperationProgress(name, verb, elapsed, False))
            self.sleep(min(self.poll_seconds, max(timeout - elapsed, 0.0)))
            operation = self.get_operation(name)


# ---- helpers -----------------------------------------------------------------------------------
_CODE_NAMES = {
    1: "CANCELLED",
    2: "UNKNOWN",
    3: "INVALID_ARGUMENT",
    4: "DEADLINE_EXCEEDED",
    5: "NOT_FOUND",
    6: "ALREADY_EXISTS",
    7: "PERMISSION_DENIED",
    8: "RESOURCE_EXHAUSTED",
    9: "FAILED_PRECONDITION",
    10: "ABORTED",
    11: "OUT_OF_RANGE",
    12: "UNIMPLEMENTED",
    13: "INTERNAL",
    14: "UNAVAILABLE",
    15: "DATA_LOSS",
    16: "UNAUTHENTICATED",
}


def _code_name(code: Any) -> str:
    return _CODE_NAMES.get(code, str(code)) if isinstance(code, int) else str(code or "UNKNOWN")


def _state(cluster: Any) -> str | None:
    return ((cluster or {}).get("clusterStatus") or {}).get("state") if isinstance(cluster, dict) else None


def _location_of(resource: str) -> str:
    parts = resource.split("/")
    if len(parts) < 4 or parts[0] != "projects" or parts[2] != "locations":
        raise ValueError(f"{resource!r} is not a projects/P/locations/L/… resource name")
    return parts[3]


def _payload(call: str, response: Any) -> dict[str, Any]:
    try:
        data = response.json() if response.content else {}
    except ValueError:
        data = None
    if 200 <= response.status_code < 300:
        if not isinstance(data, dict):
            raise GcpApiError(call, response.status_code, "INTERNAL", "the answer was not a JSON object")
        return data
    error = data.get("error") if isinstance(data, dict) else None
    if not isinstance(error, dict):
        text = (response.text or "").strip().splitlines()
        raise GcpApiError(call, response.status_code, "UNKNOWN", text[0][:200] if text else response.reason or "error")
    violations = [
        (v.get("field", ""), v.get("description", ""))
        for detail in error.get("details") or ()
        if isinstance(detail, dict)
        for v in detail.get("fieldViolations") or ()
    ]
    return _raise(call, response.status_code, error, violations)


def _raise(call: str, http_status: int, error: dict[str, Any], violations: list[tuple[str, str]]) -> dict[str, Any]:
    status = error.get("status") or _code_name(error.get("code"))
    raise GcpApiError(call, http_status, status, error.get("message") or "", violations)


# ---- connecting --------------------------------------------------------------------------------
def default_poll_seconds(backend: str) -> float:
    if os.environ.get("HYPERPOD_POLL_SECONDS", "").strip():
        return envvars.number("HYPERPOD_POLL_SECONDS", 30.0)  # 0: no pause (the simulators move their clocks per request)
    return 0.0 if backends.is_simulated("gcp", backend) else 30.0  # the simulator's clock moves per request, not per second


class CredentialsMissing(RuntimeError):
    pass


def connect(backend: str = "gcp", *, simulator: Any = None, poll_seconds: float | None = None) -> GcpClient:
    """A client for the real service (ADC credentials) or the simulator ("fake", or "sim"), as
    core/backends.py's registry names them."""
    chosen = backends.resolve("gcp", backend)
    poll = default_poll_seconds(chosen.name) if poll_seconds is None else poll_seconds
    made: GcpClient = chosen.load()(simulator=simulator, poll_seconds=poll)
    return made


def simulated_client(*, simulator: Any, poll_seconds: float) -> GcpClient:
    from pulumi_hyperpod.sim.gcp import GcpSimulator  # noqa: PLC0415 - pending: connect() reaches the simulator through the backend registry (issue 38)

    world = simulator if simulator is not None else GcpSimulator.open_default()
    return GcpClient(world.session(), endpoint=DEFAULT_ENDPOINT, poll_seconds=poll_seconds, backend="fake")


def service_client(*, simulator: Any, poll_seconds: float) -> GcpClient:
    return GcpClient(authorized_session(), poll_seconds=poll_seconds, backend="gcp")


def authorized_session() -> Any:
    with needed("gcp"):
        import google.auth  # noqa: PLC0415 - google-auth (the gcp extra): loaded when a real Google Cloud session is made
        from google.auth.exceptions import DefaultCredentialsError  # noqa: PLC0415 - google-auth (the gcp extra): loaded when a real Google Cloud session is made
        from google.auth.transport.requests import AuthorizedSession  # noqa: PLC0415 - google-auth (the gcp extra): loaded when a real Google Cloud session is made

    try:
        credentials, _project = google.auth.default(scopes=list(SCOPES))
    except DefaultCredentialsError:
        raise CredentialsMissing(
            "no Google Cloud credentials found (Application Default Credentials): run "
            "`gcloud auth application-default login` or set GOOGLE_APPLICATION_CREDENTIALS; "
            "to try without Google Cloud, use --backend fake"
        ) from None
    return AuthorizedSession(credentials)


def default_project() -> str | None:
    """The project ADC names (GOOGLE_CLOUD_PROJECT, the gcloud config), if any; no network call."""
    return os.environ.get("GOOGLE_CLOUD_PROJECT") or os.environ.get("CLOUDSDK_CORE_PROJECT")
