"""`hyperpod fake serve` as a server (pulumi_hyperpod/sim/server.py, sim/serveio.py): malformed bodies and
framing are 4xx in the protocol's error shape (never a Python exception's text, never a traceback in
the log), connections are bounded in number and in time (idle, and reading one request), and a request
scoped to a region botocore's partition data does not know is refused. Raw sockets on 127.0.0.1 speak
the malformed HTTP no client library would send; every wait is bounded by a small timeout."""

from __future__ import annotations

import json
import socket
import threading
import time
from contextlib import closing, contextmanager

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.server import SimulatorServer, Worlds

CLIENT_WAIT = 5.0  # the longest any socket of these tests waits for the server
SIGNED = "AWS4-HMAC-SHA256 Credential=AK/20261201/{region}/{service}/aws4_request, SignedHeaders=host, Signature=0"


@contextmanager
def running(**limits):
    """A server over in-memory worlds on 127.0.0.1 with `limits`; (server, the lines it logged)."""
    logged: list[str] = []
    server = SimulatorServer(("127.0.0.1", 0), Worlds(Simulator(seed=3), GcpSimulator()), logged.append, **limits)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server, logged
    finally:
        server.shutdown()
        server.server_close()
        thread.join(CLIENT_WAIT)


@pytest.fixture
def served():
    with running(idle_timeout=2.0, read_timeout=2.0) as (server, logged):
        yield server, logged


def _connect(server: SimulatorServer) -> socket.socket:
    sock = socket.create_connection(server.server_address[:2], timeout=CLIENT_WAIT)
    return sock


def _read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """(status, headers (lower-case names), body) of one HTTP/1.1 response with a Content-Length."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError(f"closed before a response: {data!r}")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    length = int(headers.get("content-length", "0"))
    while len(body) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        body += chunk
    return int(lines[0].split()[1]), headers, body


def _exchange(server: SimulatorServer, raw: bytes, *, half_close: bool = False) -> tuple[int, dict[str, str], bytes]:
    with closing(_connect(server)) as sock:
        sock.sendall(raw)
        if half_close:
            sock.shutdown(socket.SHUT_WR)
        return _read_response(sock)


def _json_request(body: bytes, *, extra: str = "", target: str = "SageMaker.ListClusters") -> bytes:
    head = (
        f"POST / HTTP/1.1\r\nHost: localhost\r\nX-Amz-Target: {target}\r\n"
        f"Content-Type: application/x-amz-json-1.1\r\nAuthorization: {SIGNED.format(region='us-west-2', service='sagemaker')}\r\n"
    )
    if "Content-Length" not in extra and "Transfer-Encoding" not in extra:
        extra += f"Content-Length: {len(body)}\r\n"
    return (head + extra + "\r\n").encode() + body


def _assert_aws_error(status, headers, body, code: str, expected_status: int = 400) -> dict:
    assert status == expected_status, (status, body)
    payload = json.loads(body)
    assert payload["__type"] == code and payload["message"], payload
    assert headers.get("x-amzn-errortype") == code
    assert "Traceback" not in body.decode() and "Error(" not in body.decode()
    return payload


def _assert_no_traceback(logged: list[str], capsys) -> None:
    assert not [line for line in logged if "Traceback" in line]
    err = capsys.readouterr().err
    assert "Traceback" not in err, err


@pytest.mark.parametrize(
    "body",
    [b"{not json", b"[1, 2]", b'"a string"', b"\xff\xfe{}", b'{"MaxResults": 5'],
    ids=["broken", "array", "string", "not-utf8", "cut"],
)
def test_a_malformed_json_body_is_a_serialization_exception(served, capsys, body):
    server, logged = served
    payload = _assert_aws_error(*_exchange(server, _json_request(body)), "SerializationException")
    assert "JSONDecodeError" not in payload["message"] and "line 1 column" not in payload["message"]
    _assert_no_traceback(logged, capsys)


FRAMING = {
    "non-numeric length": (_json_request(b"{}", extra="Content-Length: abc\r\n"), False),
    "negative length": (_json_request(b"{}", extra="Content-Length: -1\r\n"), False),
    "two lengths": (_json_request(b"{}", extra="Content-Length: 2\r\nContent-Length: 3\r\n"), False),
    "length with sign": (_json_request(b"{}", extra="Content-Length: +2\r\n"), False),
    "body shorter than announced": (_json_request(b"{}", extra="Content-Length: 100\r\n"), True),
    "negative chunk size": (_json_request(b"-5\r\nabc\r\n0\r\n\r\n", extra="Transfer-Encoding: chunked\r\n"), False),
    "non-hex chunk size": (_json_request(b"zz\r\nabc\r\n0\r\n\r\n", extra="Transfer-Encoding: chunked\r\n"), False),
    "chunk shorter than announced": (_json_request(b"10\r\nabc", extra="Transfer-Encoding: chunked\r\n"), True),
    "chunks never ended": (_json_request(b"2\r\n{}\r\n", extra="Transfer-Encoding: chunked\r\n"), True),
}


@pytest.mark.parametrize("case", FRAMING, ids=list(FRAMING))
def test_bad_framing_is_a_4xx_in_the_aws_shape_not_a_dropped_connection(served, capsys, case):
    server, logged = served
    raw, half_close = FRAMING[case]
    started = time.monotonic()
    _assert_aws_error(*_exchange(server, raw, half_close=half_close), "SerializationException")
    assert time.monotonic() - started < 1.5, "answered only after the read timeout"
    _assert_no_traceback(logged, capsys)


def test_bad_framing_of_an_s3_request_is_s3s_xml_error(served):
    server, _logged = served
    raw = (
        "PUT /bucket/key HTTP/1.1\r\nHost: localhost\r\n"
        f"Authorization: {SIGNED.format(region='us-west-2', service='s3')}\r\nContent-Length: -1\r\n\r\n"
    ).encode()
    status, headers, body = _exchange(server, raw)
    assert status == 400 and headers["content-type"] == "application/xml"
    assert b"<Code>InvalidArgument</Code>" in body and b"Traceback" not in body


def test_a_request_line_http_server_cannot_parse_is_answered_in_the_aws_shape(served, capsys):
    server, logged = served
    _assert_aws_error(*_exchange(server, b"NOT-HTTP\r\n\r\n"), "SerializationException")
    _assert_no_traceback(logged, capsys)


def test_an_unexpected_failure_is_500_without_the_exceptions_text(served, capsys, monkeypatch):
    server, logged = served

    def fail(request):
        raise RuntimeError("internal detail /home/user/secret")

    monkeypatch.setattr(server.worlds, "answer", fail)
    status, headers, body = _exchange(server, _json_request(b"{}"))
    _assert_aws_error(status, headers, body, "InternalFailure", 500)
    assert b"secret" not in body
    assert any("RuntimeError" in line for line in logged)
    _assert_no_traceback(logged, capsys)


def test_an_idle_connection_is_closed_after_the_idle_timeout():
    with running(idle_timeout=0.3, read_timeout=5.0) as (server, _logged):
        socks = [_connect(server) for _ in range(5)]
        try:
            started = time.monotonic()
            assert all(sock.recv(1) == b"" for sock in socks)  # closed by the server, not by our timeout
            assert time.monotonic() - started < 2.0
        finally:
            for sock in socks:
                sock.close()


def test_a_keep_alive_connection_is_closed_once_idle_after_its_last_answer():
    with running(idle_timeout=0.3, read_timeout=5.0) as (server, _logged):
        with closing(_connect(server)) as sock:
            sock.sendall(_json_request(b"{}"))
            assert _read_response(sock)[0] == 200
            assert sock.recv(1) == b""


def test_a_request_sent_a_byte_at_a_time_is_cut_off_at_the_read_timeout():
    """Slow headers: every byte arrives within the idle timeout, the whole request never does."""
    with running(idle_timeout=0.5, read_timeout=1.0) as (server, _logged):
        with closing(_connect(server)) as sock:
            sock.sendall(b"POST / HTTP/1.1\r\nHost: localhost\r\n")
            started, answer = time.monotonic(), b""
            while time.monotonic() - started < 4.0:
                try:
                    sock.sendall(b"X")
                except OSError:
                    break
                sock.settimeout(0.2)
                try:
                    answer = sock.recv(65536)
                    break
                except TimeoutError:
                    continue
            elapsed = time.monotonic() - started
            assert elapsed < 2.5, "the server kept reading a request trickling in"
            assert answer == b"" or answer.startswith(b"HTTP/1.1 408")


def test_a_body_that_stops_coming_is_cut_off_at_the_read_timeout():
    with running(idle_timeout=5.0, read_timeout=0.5) as (server, _logged):
        started = time.monotonic()
        status, headers, body = _exchange(server, _json_request(b"{", extra="Content-Length: 50\r\n"))
        assert time.monotonic() - started < 2.5
        _assert_aws_error(status, headers, body, "RequestTimeoutException", 408)


def test_connections_over_the_bound_are_answered_503_at_once():
    with running(idle_timeout=10.0, read_timeout=10.0, max_connections=3) as (server, _logged):
        held = [_connect(server) for _ in range(3)]
        try:
            time.sleep(0.2)  # the three are accepted and counted
            started = time.monotonic()
            with closing(_connect(server)) as extra:
                status, headers, body = _read_response(extra)
            assert time.monotonic() - started < 1.0
            _assert_aws_error(status, headers, body, "ServiceUnavailable", 503)
        finally:
            for sock in held:
                sock.close()
        deadline = time.monotonic() + CLIENT_WAIT
        while True:  # once they are gone, there is room again
            status = _exchange(server, _json_request(b"{}"))[0]
            if status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert status == 200


@pytest.mark.parametrize("region", ["mars-north-9", "us-west-2\x1b[2J", "localhost", "us-west-2-extra"])
def test_a_request_scoped_to_an_unknown_region_is_refused(served, region):
    server, logged = served
    raw = _json_request(b"{}").replace(b"us-west-2/sagemaker", region.encode() + b"/sagemaker")
    status, headers, body = _exchange(server, raw)
    payload = _assert_aws_error(status, headers, body, "InvalidSignatureException", 403)
    assert "\x1b" not in payload["message"]
    assert not [line for line in logged if "\x1b" in line]


@pytest.mark.parametrize("region", ["us-west-2", "eu-central-2", "cn-north-1", "us-gov-west-1", "ap-southeast-7"])
def test_regions_of_botocores_partitions_are_answered(served, region):
    server, _logged = served
    raw = _json_request(b"{}").replace(b"us-west-2/sagemaker", region.encode() + b"/sagemaker")
    assert _exchange(server, raw)[0] == 200


def test_many_idle_connections_hold_no_more_threads_than_the_bound():
    with running(idle_timeout=0.5, read_timeout=5.0, max_connections=8) as (server, _logged):
        before = threading.active_count()
        socks = [_connect(server) for _ in range(20)]
        try:
            time.sleep(0.2)
            assert threading.active_count() - before <= 8
            answered = [sock.recv(12) for sock in socks]  # the 12 over the bound: 503 at once; the 8: closed when idle
            assert sum(1 for data in answered if data.startswith(b"HTTP/1.1 503")) == 12
            assert answered.count(b"") == 8
        finally:
            for sock in socks:
                sock.close()
        deadline = time.monotonic() + CLIENT_WAIT
        while threading.active_count() > before and time.monotonic() < deadline:
            time.sleep(0.05)
        assert threading.active_count() <= before


@pytest.mark.parametrize("raw", [b"zz\r\nabc\r\n0\r\n\r\n", b"-3\r\nabc\r\n0\r\n\r\n", b"3\r\nab", b"+3\r\nabc\r\n0\r\n\r\n"])
def test_a_malformed_aws_chunked_object_body_is_s3s_400(served, capsys, raw):
    """The body S3 decodes itself (Content-Encoding: aws-chunked, inside a well-framed request)."""
    server, logged = served
    signed = SIGNED.format(region="us-west-2", service="s3")
    bucket = f"PUT /chunked-bucket HTTP/1.1\r\nHost: localhost\r\nAuthorization: {signed}\r\nContent-Length: 0\r\n\r\n".encode()
    assert _exchange(server, bucket)[0] in (200, 409)
    put = (
        f"PUT /chunked-bucket/key HTTP/1.1\r\nHost: localhost\r\nAuthorization: {signed}\r\n"
        f"Content-Encoding: aws-chunked\r\nContent-Length: {len(raw)}\r\n\r\n"
    ).encode() + raw
    status, headers, body = _exchange(server, put)
    assert status == 400 and headers["content-type"] == "application/xml", (status, body)
    assert b"<Code>IncompleteBody</Code>" in body or b"<Code>InvalidArgument</Code>" in body
    _assert_no_traceback(logged, capsys)
    assert not [line for line in logged if "error answering" in line]


def test_a_body_over_the_bound_is_413_before_it_is_read(served):
    server, _logged = served
    started = time.monotonic()
    status, headers, body = _exchange(server, _json_request(b"", extra=f"Content-Length: {64 * 1024 * 1024 + 1}\r\n"))
    assert time.monotonic() - started < 1.5
    _assert_aws_error(status, headers, body, "RequestEntityTooLargeException", 413)
