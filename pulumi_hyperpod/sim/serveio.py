"""Reading HTTP requests off a socket as a server that must stay up: bounded in time and in framing.

`DeadlineReader` is the socket under a handler's `rfile`. A connection waits for its next request at
most `idle` seconds; once the request's first byte has come, its request line, headers and body must
all have come within `read` seconds, however slowly they trickle (a per-recv timeout alone lets a
client that sends a byte a second hold a thread for ever). `read_body` reads a body framed by
Content-Length or chunked transfer coding and refuses, with `FramingError`, anything else: a length
that is not a plain decimal number (`-1`, `abc`, `+2`, two different values), a chunk size that is not
hex, a body or chunk shorter than announced, a body over the bound.
"""

from __future__ import annotations

import io
import re
import socket
import time
from typing import Any

# A connection's bounds (`hyperpod fake serve --idle-timeout/--read-timeout/--max-connections`): far above
# what a client of the endpoint needs (botocore reconnects when an idle connection was closed; the largest
# request body, 64 MiB, takes well under a second on loopback), and what keeps a client that never finishes
# a request, or a thousand that open connections and wait, from holding the endpoint's threads.
IDLE_TIMEOUT = 60.0
READ_TIMEOUT = 30.0
MAX_CONNECTIONS = 64

_LENGTH = re.compile(r"[0-9]{1,19}")
_CHUNK_SIZE = re.compile(rb"[0-9a-fA-F]{1,16}")
_CHUNK_LINE = 4096  # a chunk-size line (with extensions) or a trailer line longer than this is not one


class FramingError(Exception):
    """A request whose body cannot be read as framed. `timeout`: it stopped coming (408, not 400);
    `too_large`: over the bound (413)."""

    def __init__(self, message: str, *, timeout: bool = False, too_large: bool = False) -> None:
        super().__init__(message)
        self.message, self.timeout, self.too_large = message, timeout, too_large

    @property
    def status(self) -> int:
        return 408 if self.timeout else 413 if self.too_large else 400


class DeadlineReader(io.RawIOBase):
    """A socket's reads: `idle` seconds for a request to start, then `read` seconds for all of it."""

    def __init__(self, sock: socket.socket, idle: float, read: float) -> None:
        super().__init__()
        self._sock, self._idle, self._read = sock, idle, read
        self._deadline: float | None = None  # None: between requests

    def between_requests(self) -> None:
        """The last request was read whole: the next wait is an idle one."""
        self._deadline = None
        self._sock.settimeout(self._idle)

    @property
    def in_request(self) -> bool:
        return self._deadline is not None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._deadline is None:
            self._sock.settimeout(self._idle)
        else:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request was not read within the read timeout")
            self._sock.settimeout(left)
        count = self._sock.recv_into(buffer)
        if count and self._deadline is None:
            self._deadline = time.monotonic() + self._read
        return count


def content_length(values: list[str]) -> int:
    """The one Content-Length of a request (0 without one); FramingError for anything but a plain number."""
    distinct = {value.strip() for value in values}
    if len(distinct) > 1:
        raise FramingError(f"Content-Length is given {len(values)} times with different values")
    if not distinct:
        return 0
    (value,) = distinct
    if not _LENGTH.fullmatch(value):
        raise FramingError("Content-Length must be a number of bytes (digits only)")
    return int(value)


def read_body(rfile: Any, length_values: list[str], transfer_encoding: str, limit: int) -> bytes:
    """The request body from `rfile`: chunked when Transfer-Encoding says so, else Content-Length bytes."""
    try:
        if "chunked" in transfer_encoding.lower():
            return _chunked(rfile, limit)
        length = content_length(length_values)
        if length > limit:
            raise FramingError(f"the request body is {length} bytes, over the {limit} a request may hold", too_large=True)
        return _exactly(rfile, length)
    except TimeoutError:
        raise FramingError("the request body did not arrive within the read timeout", timeout=True) from None


def _exactly(rfile: Any, size: int) -> bytes:
    data: bytes = rfile.read(size) if size else b""
    if len(data) < size:
        raise FramingError(f"the request body ended after {len(data)} of the {size} bytes announced")
    return data


def _line(rfile: Any, what: str) -> bytes:
    line = rfile.readline(_CHUNK_LINE + 1)
    if len(line) > _CHUNK_LINE:
        raise FramingError(f"a {what} line of the chunked body is over {_CHUNK_LINE} bytes")
    if not line.endswith(b"\n"):
        raise FramingError("the chunked request body ended before its last chunk")
    return line.rstrip(b"\r\n")


def _chunked(rfile: Any, limit: int) -> bytes:
    data = bytearray()
    while True:
        size_text = _line(rfile, "chunk-size").split(b";")[0].strip()
        if not _CHUNK_SIZE.fullmatch(size_text):
            raise FramingError("a chunk size of the chunked request body is not a hexadecimal number")
        size = int(size_text, 16)
        if size == 0:
            while _line(rfile, "trailer"):  # trailers, up to the empty line
                pass
            return bytes(data)
        if len(data) + size > limit:
            raise FramingError(f"the chunked request body is over the {limit} bytes a request may hold", too_large=True)
        data += _exactly(rfile, size)
        if _line(rfile, "chunk-end"):
            raise FramingError("a chunk of the chunked request body is longer than its size says")
