"""`hyperpod fake serve` as a user runs it (its own process on a free port of 127.0.0.1, stopping by
itself), and its server in this process over worlds a test holds."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path

from pulumi_hyperpod.sim.server import SimulatorServer, Worlds

BIN = Path(sys.executable).parent


def client_env(directory: Path) -> dict[str, str]:
    """The environment of a process that talks to `hyperpod fake serve` as a user's would (the AWS CLI,
    `hyperpod --endpoint-url`): test credentials, us-west-2, no AWS config, its world in `directory`."""
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "HYPERPOD_"))}
    return {
        **keep,
        "HYPERPOD_FAKE_STATE": str(directory / "fake.sqlite"),
        "HYPERPOD_POLL_SECONDS": "0.05",
        "AWS_ACCESS_KEY_ID": "test",
        "AWS_SECRET_ACCESS_KEY": "test",
        "AWS_DEFAULT_REGION": "us-west-2",
        "AWS_REGION": "us-west-2",
        "AWS_CONFIG_FILE": os.devnull,
        "AWS_SHARED_CREDENTIALS_FILE": os.devnull,
    }


@contextlib.contextmanager
def fake_serve(env: Mapping[str, str], cwd: Path, *options: str, stop_after: float = 90) -> Iterator[str]:
    """`hyperpod fake serve --port 0 OPTIONS…` (ending by itself after `stop_after` seconds even if the
    test dies): its URL, read from the line it prints when listening."""
    server = subprocess.Popen(
        [str(BIN / "hyperpod"), "fake", "serve", "--port", "0", "--stop-after", str(stop_after), "--quiet", *options],
        env=dict(env),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stdout.readline() if server.stdout else ""  # bounded: the server prints it or exits (then "" is read)
        assert " at http://127.0.0.1:" in line, f"no URL from fake serve: {line!r} {server.stderr.read() if server.stderr else ''}"
        yield line.rsplit(" at ", 1)[1].strip()
    finally:
        server.terminate()
        server.wait(10)


@contextlib.contextmanager
def served(worlds: Worlds) -> Iterator[str]:
    """The endpoint over `worlds` on a free port of 127.0.0.1, in a thread of this process: its URL."""
    server = SimulatorServer(("127.0.0.1", 0), worlds)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server.url
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
