"""The engine's log as the provider's channel (`console.say`'s sink) in a provider plugin process.

The engine starts every resource provider plugin with its own address as the last argument (after
its logging and tracing flags: pulumi pkg/resource/plugin, `newPlugin`) and serves the `Engine`
gRPC service there. A `LogRequest` carrying a resource's URN becomes a diagnostic of that resource,
and one request is one diagnostic, however many lines it holds: the engine's display shows its
first line on the resource's row and the whole text once in the Diagnostics (an ephemeral one
only on the row). Both hosts use it: the native provider (`native/server.py`) and the dynamic
provider's host (`provider/base.py`, which has no engine connection of its own: the SDK's dynamic
host drops the address).

Loaded only in a provider process (it imports grpc and the engine's protocol).
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from types import ModuleType

import grpc
from pulumi.runtime.proto import engine_pb2, engine_pb2_grpc

from pulumi_hyperpod.provider.console import CURRENT_URN, OUTPUT_ENV, set_sink

_ADDRESS = re.compile(r"^[\w.\-\[\]:]+:\d+$")  # host:port, as the engine's gRPC server listens


def engine_address(argv: Sequence[str]) -> str | None:
    """The engine's address among a plugin's arguments (`argv` without the program): the last
    argument when it is a host:port, else None (a process the engine did not start)."""
    last = argv[-1] if argv else ""
    return last if _ADDRESS.match(last) and not last.startswith("-") else None


class EngineLog:
    """`console.say`'s sink: one engine log entry per block of lines, on the resource of the call
    (`console.CURRENT_URN`; none known: the stack's)."""

    def __init__(self, address: str) -> None:
        self._engine = engine_pb2_grpc.EngineStub(grpc.insecure_channel(address))

    def __call__(self, text: str, ephemeral: bool = False) -> None:
        request = engine_pb2.LogRequest(severity=engine_pb2.INFO, message=text, urn=CURRENT_URN.get(), streamId=0, ephemeral=ephemeral)
        try:
            self._engine.Log(request)
        except grpc.RpcError:  # the engine went away: the text must not be lost with it
            sys.stderr.write(text + "\n")
            sys.stderr.flush()


_installed: list[EngineLog] = []


def install(host: ModuleType | None, argv: Sequence[str]) -> bool:
    """In the dynamic provider's host (`host`, None: not in it), send `console.say`'s text to the
    engine's log at the address among the host's arguments `argv`, unless HYPERPOD_PROVIDER_OUTPUT
    chose a channel. True when the text goes there; the second call changes nothing."""
    if _installed:
        return True
    address = engine_address(argv)
    if host is None or address is None or os.environ.get(OUTPUT_ENV):
        return False
    _installed.append(EngineLog(address))
    set_sink(_installed[0])
    return True
