"""`hyperpod fake serve`: the simulated worlds on a localhost HTTP endpoint, in the real wire protocols.

The in-process simulators answer at a client's transport (botocore's `before-send`, a `requests`
adapter). This server puts the very same dispatchers behind a socket, so any client — the AWS CLI,
another SDK, a user's own script, the tool itself with `--endpoint-url` — talks to one world:

- SageMaker and Service Quotas: AWS JSON 1.1 (`X-Amz-Target`), answered by `Simulator.answer`
  (fake/wire.py's dispatcher over the persistent HyperPod world);
- S3 (lifecycle bundles): REST-XML, path-style URLs (fake/s3.py), the same world;
- Google's REST for training clusters (`/v1beta1/projects/…/modelDevelopmentClusters…`), answered
  by the GCP simulator's `requests` adapter (gcp/fake/wire.py) over its persistent world, and the
  Compute Engine reads Google Cloud's preflight makes (`/compute/v1/projects/…/regions/R`,
  `…/zones/Z/machineTypes/M`, `…/zones/Z/reservations/N`): point the real client there with
  `HYPERPOD_GCP_ENDPOINT=URL HYPERPOD_GCP_COMPUTE_ENDPOINT=URL/compute/v1`.

Which AWS service a request is for comes from its SigV4 credential scope (`…/REGION/SERVICE/
aws4_request`), as AWS's own front ends route it; an unsigned request falls back to its
`X-Amz-Target` (JSON services) or S3. Signatures are not checked: the worlds hold nothing secret,
and the server listens on 127.0.0.1 unless told otherwise.

Requests are answered one at a time (a lock around each): the worlds are SQLite transactions, and
one at a time is what keeps every client's view consistent.
"""

from __future__ import annotations

import re
import sys
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

from .aws.client import DEFAULT_REGION

# SigV4 signing names → botocore service names (only the services the simulator answers)
SIGNING_NAMES = {"sagemaker": "sagemaker", "servicequotas": "service-quotas", "s3": "s3"}
TARGET_PREFIXES = {"SageMaker": "sagemaker", "ServiceQuotasV20190624": "service-quotas"}
_SCOPE = re.compile(r"Credential=[^/,]+/\d{8}/(?P<region>[^/]+)/(?P<service>[^/]+)/aws4_request")
GCP_PREFIX = "/v1beta1/"
COMPUTE_PREFIX = "/compute/v1/"  # Compute Engine's path under its own host (compute.googleapis.com)
MAX_BODY = 64 * 1024 * 1024  # far above any request the tools send; a bound on what one request may hold


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


class Worlds:
    """Both simulators' persistent worlds (opened on first use), answering one request at a time."""

    def __init__(self, hyperpod: Any = None, gcp: Any = None) -> None:
        self._hyperpod, self._gcp = hyperpod, gcp
        self._lock = threading.Lock()
        self._polls: Any = None

    def hyperpod(self) -> Any:
        if self._hyperpod is None:
            from .aws.fake.simulator import Simulator

            self._hyperpod = Simulator.open_default()
        return self._hyperpod

    def gcp(self) -> Any:
        if self._gcp is None:
            from .gcp.fake import GcpSimulator

            self._gcp = GcpSimulator.open_default()
        return self._gcp

    def answer(self, request: ServedRequest) -> tuple[int, dict[str, str], bytes]:
        """(HTTP status, headers, body) for one request."""
        with self._lock:
            if urlsplit(request.url).path.startswith((GCP_PREFIX, COMPUTE_PREFIX)):
                return self._answer_gcp(request)
            return self._answer_aws(request)

    def _answer_aws(self, request: ServedRequest) -> tuple[int, dict[str, str], bytes]:
        from .aws.fake.clock import PollTracker

        if self._polls is None:  # one tracker for the endpoint: a client repeating a read is waiting
            self._polls = PollTracker(None)
        service, region = aws_route(request.headers)
        response = self.hyperpod().answer(service, region, request, self._polls)
        return response.status_code, dict(response.headers), response.content

    def _answer_gcp(self, request: ServedRequest) -> tuple[int, dict[str, str], bytes]:
        import requests

        from .gcp.fake.wire import COMPUTE_HOST

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
    server: "SimulatorServer"

    def _answer(self) -> None:
        from requests.structures import CaseInsensitiveDict

        body = self._body()
        if body is None:
            return
        headers = CaseInsensitiveDict(self.headers.items())
        host = self.headers.get("Host") or "%s:%s" % self.server.server_address[:2]
        request = ServedRequest(f"http://{host}{self.path}", self.command, headers, body)
        try:
            status, reply_headers, content = self.server.worlds.answer(request)
        except Exception as error:  # noqa: BLE001 - one bad request must not stop the endpoint
            self.server.log(f"error answering {self.command} {self.path}: {error!r}")
            status, reply_headers, content = 500, {"Content-Type": "text/plain"}, f"simulator error: {error}".encode()
        self.send_response(status)
        for name, value in reply_headers.items():
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        # a HEAD answer has no body but the length of the one a GET would get (S3's HeadObject)
        head_length = reply_headers.get("Content-Length") if self.command == "HEAD" else None
        self.send_header("Content-Length", head_length or str(len(content)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(content)

    def _body(self) -> Optional[bytes]:
        """The request body (Content-Length or chunked), or None after answering 413."""
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            return self._chunked()
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            self.send_error(413, f"request body over {MAX_BODY} bytes")
            return None
        return self.rfile.read(length) if length else b""

    def _chunked(self) -> Optional[bytes]:
        data = bytearray()
        while True:
            size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):  # trailers
                    pass
                return bytes(data)
            if len(data) + size > MAX_BODY:
                self.send_error(413, f"request body over {MAX_BODY} bytes")
                return None
            data += self.rfile.read(size)
            self.rfile.readline()

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = _answer

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's signature
        self.server.log(f"{self.command} {self.path} {args[1] if len(args) > 1 else ''}".rstrip())


class SimulatorServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], worlds: Worlds, log: Callable[[str], None] = lambda line: None) -> None:
        super().__init__(address, _Handler)
        self.worlds, self.log = worlds, log

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        return f"http://{host}:{port}"


def serve(
    host: str,
    port: int,
    *,
    stop_after: Optional[float] = None,
    quiet: bool = False,
    ready: Callable[[SimulatorServer], None] = lambda server: None,
) -> None:
    """Listen on host:port (0: a free port) until interrupted or `stop_after` seconds have passed."""

    def log(line: str) -> None:
        if not quiet:
            print(line, file=sys.stderr, flush=True)

    with SimulatorServer((host, port), Worlds(), log) as server:
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
