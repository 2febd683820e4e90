"""The one way the provider shows text to the user (plans, progress, warnings).

Under the engine, each block of text is one diagnostic on the resource the call is about: a host
with an engine connection installs a sink (`set_sink`) that sends the block to the engine's log
with that resource's URN (`CURRENT_URN`, set for the length of each call: provider/process.py in
the dynamic provider's host, native/server.py in the native one; the sink: provider/engine_log.py).
The engine then shows the block's first line on the resource's row and the whole block once under
that resource in the Diagnostics. Progress (`progress=True`: a wait's polls, each call as it
starts) is ephemeral there: shown on the row while it runs, left out of the Diagnostics.

Without a sink (a program, a test, a host that could not reach the engine), the text goes to
stderr, one line per line, each prefixed with `[hyperpod NAME]`, written under a lock (the provider
serves several requests at once) and flushed at once. A dynamic provider's stderr reaches the user
too: the engine shows each of its lines as an info diagnostic of the stack (pulumi
sdk/go/common/resource/plugin/plugin.go, `runtrace`), which is why the engine's log is preferred.

HYPERPOD_PROVIDER_OUTPUT switches the dynamic provider's path without a code change: `stderr`,
`stdout`, or `log` (pulumi.log.info, for an in-program use where the SDK's engine connection
exists); unset, the engine's log when the host has it, else stderr.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import threading
from collections.abc import Callable, Iterator

_LOCK = threading.Lock()
PREFIX = "hyperpod"
OUTPUT_ENV = "HYPERPOD_PROVIDER_OUTPUT"
# The URN of the resource the current provider call is about ("" when unknown: the stack's).
CURRENT_URN: contextvars.ContextVar[str] = contextvars.ContextVar("hyperpod_urn", default="")
# A host with a channel of its own installs it here: it receives each block of lines, prefixed, and
# whether the block is progress (ephemeral).
Sink = Callable[[str, bool], None]
_SINK: Sink | None = None


def set_sink(sink: Sink | None) -> None:
    global _SINK
    _SINK = sink


@contextlib.contextmanager
def about(urn: str) -> Iterator[None]:
    """The text said inside is about the resource `urn`."""
    token = CURRENT_URN.set(urn)
    try:
        yield
    finally:
        CURRENT_URN.reset(token)


def say(text: str, cluster: str | None = None, *, progress: bool = False) -> None:
    header = f"[{PREFIX}{' ' + cluster if cluster else ''}] "
    lines = [line.rstrip() for line in text.splitlines() if line.strip()] or [""]
    block = "\n".join(header + line for line in lines) + "\n"
    if _SINK is not None:
        _SINK(block.rstrip("\n"), progress)
        return
    mode = os.environ.get(OUTPUT_ENV) or "stderr"
    if mode == "log":
        import pulumi  # noqa: PLC0415 - pulumi: only HYPERPOD_PROVIDER_OUTPUT=log goes through the SDK; the provider process writes stderr

        pulumi.log.info(block.rstrip("\n"), ephemeral=progress)
        return
    stream = sys.stdout if mode == "stdout" else sys.stderr
    with _LOCK:
        stream.write(block)
        stream.flush()
