"""The body of a simulated HTTP response: a leaf both wires (JSON for SageMaker and Service Quotas,
REST-XML for S3) use, so neither imports the other."""

from __future__ import annotations

from typing import Any


class RawBody:
    """What AWSResponse.content reads: a `stream()` of the body bytes."""

    def __init__(self, body: bytes) -> None:
        self._body = body

    def stream(self, **_: Any):
        yield self._body

    def read(self, *_: Any, **__: Any) -> bytes:
        return self._body
