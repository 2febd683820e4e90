"""`hyperpod fake serve`: the simulated worlds on a localhost HTTP endpoint, in the real wire protocols.

The in-process simulators answer at a client's transport (botocore's `before-send`, a `requests`
adapter). This server puts the very same dispatchers behind a socket, so any client — the AWS CLI,
another SDK, a user's own script, the tool itself with `--endpoint-url` — talks to one world:

- SageMaker and Service Quotas: AWS JSON 1.1 (`X-Amz-Target`), answered by `Simulator.answer`
  (sim/aws/wire.py's dispatcher over the persistent HyperPod world);
- S3 (lifecycle bundles): REST-XML, path-style URLs (sim/aws/s3.py), the same world;
- Google's REST for training clusters (`/v1beta1/projects/…/modelDevelopmentClusters…`), answered
  by the GCP simulator's `requests` adapter (sim/gcp/wire.py) over its persistent world, and the
  Compute Engine reads Google Cloud's preflight makes (`/compute/v1/projects/…/regions/R`,
  `…/zones/Z/machineTypes/M`, `…/zones/Z/reservations/N`): point the real client there with
  `HYPERPOD_GCP_ENDPOINT=URL HYPERPOD_GCP_COMPUTE_ENDPOINT=URL/compute/v1`.

Which AWS service a request is for comes from its SigV4 credential scope (`…/REGION/SERVICE/
aws4_request`), as AWS's own front ends route it; an unsigned request falls back to its
`X-Amz-Target` (JSON services) or S3. Signatures are not checked: the worlds hold nothing secret,
and the server listens on 127.0.0.1 unless told otherwise.

With `--iam-policy FILE` (sim/iam.py, docs/iam.md), an AWS request the policy does not allow is
answered as AWS answers it, AccessDeniedException (S3: AccessDenied), before it reaches the world.

Requests are answered one at a time (a lock around each): the worlds are SQLite transactions, and
one at a time is what keeps every client's view consistent. `latency` (`--latency 150ms`) holds each
answer back that long after it is made, outside the lock, so a fleet's many connections each wait as
on the real service's round-trips without waiting on one another, and the world's clock does not
count the hold as a client's waiting on it (`PollTracker.held`).

Each request acts as the account its access key names (sim/aws/accounts.py).

It stays up whatever a client sends (docs/tools.md has the numbers): a connection waits for its
next request at most `idle_timeout` seconds and must send a whole request within `read_timeout`
(sim/serveio.py); at most `max_connections` are open at once, the next is answered 503 ServiceUnavailable
and closed; a request whose framing or JSON body is malformed, or whose SigV4 scope names a region no
AWS partition has (aws/regions.py), is a 4xx in its protocol's error shape (AWS JSON's `__type` and
`x-amzn-ErrorType`, S3's XML, google.rpc.Status); nothing reaches a client or the log as a traceback.
"""

from __future__ import annotations

import io
import json
import re
import socket
import sys
import threading
import time
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from collections.abc import Callable
from urllib.parse import urlsplit

import requests
from requests.structures import CaseInsensitiveDict

from pulumi_hyperpod.aws.client import DEFAULT_REGION
from pulumi_hyperpod.aws.regions import is_region, not_a_region
from pulumi_hyperpod.sim.serveio import IDLE_TIMEOUT, MAX_CONNECTIONS, READ_TIMEOUT, DeadlineReader, FramingError, read_body
from pulumi_hyperpod.core.terminal import shown
from pulumi_hyperpod.sim import iam
from pulumi_hyperpod.sim.aws import accounts, wire
from pulumi_hyperpod.sim.aws.errors import SerializationException
from pulumi_hyperpod.sim.aws.s3 import S3Error, error_xml
from pulumi_hyperpod.sim.aws.simulator import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.aws.clock import PollTracker
from pulumi_hyperpod.sim.gcp.wire import COMPUTE_HOST

# SigV4 signing names → botocore service names (only the services the simulator answers)
SIGNING_NAMES = {"sagemaker": "sagemaker", "servicequotas": "service-quotas", "s3": "s3"}
TARGET_PREFIXES = {"SageMaker": "sagemaker", "ServiceQuotasV20190624": "service-quotas"}
_SCOPE = re.compile(r"Credential=[^/,]+/\d{8}/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request")
GCP_PREFIX = "/v1beta1/"
COMPUTE_PREFIX = "/compute/v1/"  # Compute Engine's path under its own host (compute.googleapis.com)
MAX_BODY = 64 * 1024 * 1024  # far above any request the tools send; a bound on what one request may hold
REFUSAL_WRITE_TIMEOUT = 5.0  # seconds to hand a refusal to a client that may not be reading


@dataclass(frozen=True, slots=True)
class Refusal:
    """An error the endpoint answers itself, in each protocol's terms: AWS JSON's `__type`, S3's
    `<Code>`, google.rpc.Status's `status`."""

    status: int
    code: str
    s3_code: str
    gcp_status: str
    message: str


def malformed(message: str) -> Refusal:
    return Refusal(400, "SerializationException", "InvalidArgument", "INVALID_ARGUMENT", message)


def framing_refusal(error: FramingError) -> Refusal:
    if error.timeout:
        return Refusal(408, "RequestTimeoutException", "RequestTimeout", "DEADLINE_EXCEEDED", error.message)
    if error.too_large:
        return Refusal(413, "RequestEntityTooLargeException", "EntityTooLarge", "INVALID_ARGUMENT", error.message)
    return malformed(error.message)


BUSY = Refusal(
    503,
    "ServiceUnavailable",
    "SlowDown",
    "UNAVAILABLE",
    "The simulator's endpoint has as many connections open as it takes; retry when one is closed.",
)
INTERNAL = Refusal(
    500, "InternalFailure", "InternalError", "INTERNAL", "The simulator failed on this request; the endpoint's log says why."
)


def region_refusal(region: str) -> Refusal:
    return Refusal(
        403,
        "InvalidSignatureException",
        "AuthorizationHeaderMalformed",
        "INVALID_ARGUMENT",
        f"Credential should be scoped to a valid region: {not_a_region(region)}.",
    )


def refusal_answer(refusal: Refusal, path: str, headers: Any) -> tuple[int, dict[str, str], bytes]:
    """(status, headers, body) of `refusal` in the protocol of the request at `path` with `headers`
    (None: not read; then AWS JSON, the endpoint's default)."""
    if path.startswith((GCP_PREFIX, COMPUTE_PREFIX)):
        body = {"error": {"code": refusal.status, "message": refusal.message, "status": refusal.gcp_status}}
        return refusal.status, {"Content-Type": "application/json; charset=UTF-8"}, json.dumps(body).encode()
    if headers is not None and aws_route(headers)[0] == "s3":
        return refusal.status, {"Content-Type": "application/xml"}, error_xml(S3Error(refusal.status, refusal.s3_code, refusal.message))
    body = json.dumps({"__type": refusal.code, "message": refusal.message}).encode()
    return refusal.status, {"Content-Type": "application/x-amz-json-1.1", "x-amzn-ErrorType": refusal.code}, body


@dataclass
class ServedRequest:
    """What the simulators' wires read of a request: botocore's AWSPreparedRequest's attributes."""

    url: str
    method: str
    headers: Any  # case-insensitive mapping
    body: bytes


def aws_route(headers: Any) -> tuple[str, str]:
    """(botocore service name, region) of a request, from its SigV4 scope or its X-Amz-Target."""
    scope = _SCOPE.search(headers.get("Authorization") or "")
    if scope is not None:
        signing = scope["service"]
        return SIGNING_NAMES.get(signing, signing), scope["region"]
    target = (headers.get("X-Amz-Target") or "").partition(".")[0]
    return TARGET_PREFIXES.get(target, "s3" if not target else target), DEFAULT_REGION


def access_denied(service: str, message: str) -> Refusal:
    """AWS's refusal of a request no policy allows: AccessDeniedException (400) in the JSON protocols,
    S3's AccessDenied (403)."""
    return Refusal(403 if service == "s3" else 400, "AccessDeniedException", "AccessDenied", "PERMISSION_DENIED", message)


class Worlds:
    """Both simulators' persistent worlds (opened on first use), answering one request at a time;
    with `policy` (sim/iam.py), an AWS request it does not allow is refused as AWS refuses it."""

    def __init__(self, hyperpod: Any = None, gcp: Any = None, policy: iam.Policy | None = None, latency: float = 0.0) -> None:
        self._hyperpod, self._gcp, self._policy = hyperpod, gcp, policy
        self.latency = latency  # seconds each answer is held back (the handler waits them out)
        self._lock = threading.Lock()
        self._polls: Any = None

    def hyperpod(self) -> Any:
        if self._hyperpod is None:
            self._hyperpod = Simulator.open_default()
        return self._hyperpod

    def gcp(self) -> Any:
        if self._gcp is None:
            self._gcp = GcpSimulator.open_default()
        return self._gcp

    def answer(self, request: ServedRequest) -> tuple[int, dict[str, str], bytes]:
        """(HTTP status, headers, body) for one request."""
        with self._lock:
            if urlsplit(request.url).path.startswith((GCP_PREFIX, COMPUTE_PREFIX)):
                return self._answer_gcp(request)
            return self._answer_aws(request)

    def _answer_aws(self, request: ServedRequest) -> tuple[int, dict[str, str], bytes]:
        if self._polls is None:  # one tracker for the endpoint: a client repeating a read is waiting
            self._polls = PollTracker(None, held=self.latency)
        service, region = aws_route(request.headers)
        if not is_region(region):  # it would become a cluster's or a bucket's region, and be printed
            return refusal_answer(region_refusal(region), urlsplit(request.url).path, request.headers)
        denied = self._denied(self._policy, service, region, request) if self._policy is not None else None
        if denied is not None:
            return refusal_answer(access_denied(service, denied), urlsplit(request.url).path, request.headers)
        response = self.hyperpod().answer(service, region, request, self._polls)
        return response.status_code, dict(response.headers), response.content

    def _denied(self, policy: iam.Policy, service: str, region: str, request: ServedRequest) -> str | None:
        """AccessDenied's message when the policy refuses what `request` needs, else None. A request
        the wire cannot decode is left to the dispatcher, which answers its SerializationException."""
        world = self.hyperpod()
        account = world.account_of(accounts.access_key_id(request.headers))  # the caller's account, as the world answers it
        if service == "s3":
            needs = iam.s3_requested(request.method, request.url)
        else:
            try:
                operation, params = wire.decode(request)
            except SerializationException:
                return None
            # a name's ARN is read from the world only when a statement is scoped to some ARN
            clusters = world.overview()["clusters"] if policy.scoped else []
            arns = {c["name"]: c["arn"] for c in clusters if c["region"] == region and c["account"] == account}
            needs = iam.requested(service, operation, params, region=region, account=account, cluster_arn=arns.get)
        refused = iam.first_denied(policy, needs)
        return iam.denied_message(iam.principal(account), *refused) if refused else None

    def _answer_gcp(self, request: ServedRequest) -> tuple[int, dict[str, str], bytes]:
        headers = {k: v for k, v in request.headers.items() if k.lower() in ("content-type",)}
        url = request.url
        parts = urlsplit(url)
        if parts.path.startswith(COMPUTE_PREFIX):  # the adapter tells Compute Engine's reads by their host
            url = parts._replace(scheme="https", netloc=COMPUTE_HOST).geturl()
        prepared = requests.Request(request.method, url, headers=headers, data=request.body or None).prepare()
        response = self.gcp().adapter.send(prepared)
        return response.status_code, dict(response.headers), response.content


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive: botocore and requests reuse their connections
    server_version = "hyperpod-fake-serve"
    server: SimulatorServer

    def setup(self) -> None:
        super().setup()
        self._reader = DeadlineReader(self.connection, self.server.idle_timeout, self.server.read_timeout)
        self.rfile = io.BufferedReader(self._reader)

    def handle_one_request(self) -> None:
        """http.server's, with the waits bounded: a connection idle past its timeout is closed, a request
        not read whole within the read timeout is answered 408 and its connection closed."""
        self._reader.between_requests()
        # what send_error and the log read of a request not parsed yet
        self.command, self.path, self.headers = None, "", None  # type: ignore[assignment]
        try:
            self.raw_requestline = self.rfile.readline(65537)
            if len(self.raw_requestline) > 65536:
                self.send_error(HTTPStatus.REQUEST_URI_TOO_LONG, "The request line is over 65,536 bytes.")
                return
            if not self.raw_requestline:
                self.close_connection = True
                return
            if not self.parse_request():
                return
            method = getattr(self, "do_" + self.command, None)
            if method is None:
                self.send_error(HTTPStatus.NOT_IMPLEMENTED, f"The endpoint answers no {self.command} request.")
                return
            method()
            self.wfile.flush()
        except TimeoutError:
            self.close_connection = True
            if self._reader.in_request:  # a request started and never finished; an idle connection just ends
                self._refuse(framing_refusal(FramingError("the request was not sent within the read timeout", timeout=True)))

    def _answer(self) -> None:
        try:
            body = read_body(
                self.rfile, self.headers.get_all("Content-Length") or [], self.headers.get("Transfer-Encoding") or "", MAX_BODY
            )
        except FramingError as error:
            self.close_connection = True  # where this request ends, and the next begins, is lost
            return self._refuse(framing_refusal(error))
        self._reader.between_requests()
        headers = CaseInsensitiveDict(self.headers.items())
        host = self.headers.get("Host") or "{}:{}".format(*self.server.server_address[:2])
        request = ServedRequest(f"http://{host}{self.path}", self.command, headers, body)
        try:
            status, reply_headers, content = self.server.worlds.answer(request)
        except Exception as error:
            self.server.log(shown(f"error answering {self.command} {self.path}: {type(error).__name__}: {error}", one_line=True))
            status, reply_headers, content = refusal_answer(INTERNAL, self.path, headers)
        if self.server.worlds.latency:  # this connection's thread waits, not the others (no lock held)
            time.sleep(self.server.worlds.latency)
        self._send(status, reply_headers, content)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _answer

    def _send(self, status: int, reply_headers: dict[str, str], content: bytes) -> None:
        self.send_response(status)
        for name, value in reply_headers.items():
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        # a HEAD answer has no body but the length of the one a GET would get (S3's HeadObject)
        head_length = reply_headers.get("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", head_length or str(len(content)))
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content)

    def _refuse(self, refusal: Refusal) -> None:
        try:
            self.connection.settimeout(min(self.server.idle_timeout, REFUSAL_WRITE_TIMEOUT))  # not a read's leftover seconds
            self._send(*refusal_answer(refusal, self.path, self.headers))
        except OSError:  # the client is gone: nothing to tell it
            self.close_connection = True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a request line or headers it cannot parse, an unknown method),
        in the AWS shape rather than an HTML page."""
        self.close_connection = True
        self.request_version = self.protocol_version  # a line it could not parse leaves HTTP/0.9: no status line
        text = message or HTTPStatus(code).phrase
        self.log_message("%s", f"refused: {code} {text}")
        if code == HTTPStatus.NOT_IMPLEMENTED:
            refusal = Refusal(code, "UnknownOperationException", "NotImplemented", "UNIMPLEMENTED", text)
        else:
            refusal = Refusal(
                code, "SerializationException", "InvalidRequest", "INVALID_ARGUMENT", f"The request is not HTTP/1.1 as framed: {text}."
            )
        self._refuse(refusal)

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        status = f"{code:d}" if isinstance(code, int) else str(code)  # HTTPStatus as its number
        self.server.log(shown(f"{self.command or '-'} {self.path or '-'} {status}", one_line=True))

    def log_message(self, format: str, *args: Any) -> None:
        self.server.log(shown(f"{self.client_address[0]}: {format % args}", one_line=True))


class SimulatorServer(ThreadingHTTPServer):
    """The endpoint: a thread per connection, at most `max_connections` of them; each connection waits
    at most `idle_timeout` seconds for a request and reads each within `read_timeout` (sim/serveio.py)."""

    daemon_threads = True
    request_queue_size = 128  # a burst of connections waits to be accepted (and, over the bound, turned away)

    def __init__(
        self,
        address: tuple[str, int],
        worlds: Worlds,
        log: Callable[[str], None] = lambda line: None,
        *,
        idle_timeout: float = IDLE_TIMEOUT,
        read_timeout: float = READ_TIMEOUT,
        max_connections: int = MAX_CONNECTIONS,
    ) -> None:
        super().__init__(address, _Handler)
        self.worlds, self.log = worlds, log
        self.idle_timeout, self.read_timeout, self.max_connections = idle_timeout, read_timeout, max_connections
        self._open = 0
        self._open_lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"

    def process_request(self, request: Any, client_address: Any) -> None:
        with self._open_lock:
            admitted = self._open < self.max_connections
            self._open += admitted
        if not admitted:  # answered here, in the accepting thread, without reading: no thread for it
            self.log(f"{client_address[0]}: refused: 503, {self.max_connections} connections open")
            _turn_away(request)
            self.shutdown_request(request)
            return
        try:
            super().process_request(request, client_address)
        except BaseException:
            self._closed()
            raise

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._closed()

    def _closed(self) -> None:
        with self._open_lock:
            self._open -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line for a connection that failed (a client that reset it, a write that timed out), never
        socketserver's traceback on stderr."""
        error = sys.exc_info()[1]
        self.log(shown(f"{client_address[0]}: connection ended: {type(error).__name__}: {error}", one_line=True))


def _turn_away(sock: socket.socket) -> None:
    """503 on a connection over the bound, then what it sent so far read and dropped (not reading it
    would make the close a reset, which can lose the answer)."""
    status, headers, body = refusal_answer(BUSY, "", None)
    head = "".join(f"{name}: {value}\r\n" for name, value in {**headers, "Content-Length": str(len(body)), "Connection": "close"}.items())
    try:
        sock.settimeout(1.0)
        sock.sendall(f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n{head}\r\n".encode() + body)
        sock.setblocking(False)
        while sock.recv(65536):
            pass
    except OSError:  # nothing more to read now, or the client is already gone
        pass


def serve(
    host: str,
    port: int,
    *,
    stop_after: float | None = None,
    quiet: bool = False,
    ready: Callable[[SimulatorServer], None] = lambda server: None,
    idle_timeout: float = IDLE_TIMEOUT,
    read_timeout: float = READ_TIMEOUT,
    max_connections: int = MAX_CONNECTIONS,
    policy: iam.Policy | None = None,
    latency: float = 0.0,
) -> None:
    """Listen on host:port (0: a free port) until interrupted or `stop_after` seconds have passed;
    with `policy`, AWS requests it does not allow are answered AccessDenied; each answer held back
    `latency` seconds."""

    def log(line: str) -> None:
        if not quiet:
            print(line, file=sys.stderr, flush=True)

    limits = {"idle_timeout": idle_timeout, "read_timeout": read_timeout, "max_connections": max_connections}
    with SimulatorServer((host, port), Worlds(policy=policy, latency=latency), log, **limits) as server:
        timer = threading.Timer(stop_after, server.shutdown) if stop_after else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        ready(server)
        try:
            server.serve_forever(poll_interval=0.2)
        except KeyboardInterrupt:
            pass
        finally:
            if timer is not None:
                timer.cancel()
