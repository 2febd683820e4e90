"""The one way the provider shows text to the user (plans, progress, warnings).

A dynamic provider runs in its own process (`python -m pulumi.dynamic`), started by the engine as
the plugin `pulumi-resource-pulumi-python`. That process has no engine connection of its own, so
`pulumi.log.*` falls back to printing `info: …` on stderr. The engine reads a dynamic plugin's
stdout and stderr line by line and shows every non-blank line as an info diagnostic (pulumi
sdk/go/common/resource/plugin/plugin.go, `runtrace`; a non-dynamic plugin's output is hidden).
So the text goes to stderr, one line per line of the table, written under a lock (the provider
serves several requests at once) and flushed at once.

HYPERPOD_PROVIDER_OUTPUT switches the path without a code change: `stderr` (default), `stdout`,
or `log` (pulumi.log.info, for an in-program use where the engine connection exists).
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable

_LOCK = threading.Lock()
PREFIX = "hyperpod"
# A host with a channel of its own installs it here (the native provider: the engine's log, since
# the engine hides a native plugin's stdout and stderr). It receives each block of lines, prefixed.
_SINK: Callable[[str], None] | None = None


def set_sink(sink: Callable[[str], None] | None) -> None:
    global _SINK
    _SINK = sink


def say(text: str, cluster: str | None = None) -> None:
    header = f"[{PREFIX}{' ' + cluster if cluster else ''}] "
    lines = [line.rstrip() for line in text.splitlines() if line.strip()] or [""]
    block = "\n".join(header + line for line in lines) + "\n"
    if _SINK is not None:
        _SINK(block.rstrip("\n"))
        return
    mode = os.environ.get("HYPERPOD_PROVIDER_OUTPUT", "stderr")
    if mode == "log":
        import pulumi  # noqa: PLC0415 - pulumi: only HYPERPOD_PROVIDER_OUTPUT=log goes through the SDK; the provider process writes stderr

        pulumi.log.info(block.rstrip("\n"))
        return
    stream = sys.stdout if mode == "stdout" else sys.stderr
    with _LOCK:
        stream.write(block)
        stream.flush()
