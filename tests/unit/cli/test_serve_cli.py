"""Where a region or user text enters through the CLI: `--region` / $AWS_REGION is checked against
botocore's partition data before anything is opened, and what a user typed reaches the terminal with
its control characters escaped (click's usage errors included, e.g. `fake fail-node`'s). And `hyperpod
fake serve`'s bounds are real options: `--idle-timeout`, `--read-timeout`, `--max-connections`, seen
on a server run as its own process on 127.0.0.1 (stopping by itself)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from contextlib import closing
from pathlib import Path

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator

BIN = Path(sys.executable).parent
ESCAPE = "\x1b]0;owned\x07\x1b[2J"


@pytest.fixture
def world(tmp_path, monkeypatch):
    path = tmp_path / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(path))
    monkeypatch.delenv("AWS_REGION", raising=False)
    return path


@pytest.mark.parametrize("region", ["mars-north-9", "aws-global", "us-west-2-extra", f"us-west-2{ESCAPE}"])
def test_a_region_no_partition_has_is_refused_before_anything_is_opened(world, region):
    result = CliRunner().invoke(main, ["--backend", "fake", "--region", region, "list"])
    assert result.exit_code == 1, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "--region" in errors[0] and "not an AWS region" in errors[0], result.output
    assert "\x1b" not in result.output and "\x07" not in result.output
    assert not world.exists(), "the world was opened for a command refused on its region"


@pytest.mark.parametrize("region", ["us-west-2", "eu-north-1", "cn-northwest-1", "us-gov-east-1", "us-east-9"])
def test_regions_of_the_partitions_and_their_patterns_pass(world, region):
    result = CliRunner().invoke(main, ["--backend", "fake", "--region", region, "list"])
    assert result.exit_code == 0, result.output


def test_fail_node_prints_a_node_id_with_control_characters_escaped(world):
    from tests.support.sim_helpers import seed004_groups

    sim = Simulator(world, scenario={"speed": 0})
    sim.client().create_cluster(ClusterName="leo", InstanceGroups=seed004_groups(1))
    sim.advance(1800)
    result = CliRunner().invoke(main, ["--backend", "fake", "fake", "fail-node", "leo", f"i-0{ESCAPE}"])
    assert result.exit_code == 1, result.output
    assert "\x1b" not in result.output and "\x07" not in result.output, repr(result.output)
    assert "\\x1b" in result.output and "has no running instance" in result.output


def test_a_usage_error_quoting_what_was_set_is_escaped(tmp_path, monkeypatch):
    """Every click usage error the commands raise (here `fake reset`'s, naming $HYPERPOD_FAKE_STATE)."""
    path = tmp_path / f"world{ESCAPE}.sqlite"
    Simulator(path)
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(path))
    result = CliRunner().invoke(main, ["fake", "reset"])
    assert result.exit_code == 1 and "--yes" in result.output, result.output
    assert "\x1b" not in result.output and "\\x1b" in result.output, repr(result.output)
    assert path.exists()


@pytest.mark.parametrize(
    "option, value, rule",
    [
        ("--idle-timeout", "0", "more than 0"),
        ("--read-timeout", "-1", "more than 0"),
        ("--read-timeout", "inf", "more than 0"),
        ("--idle-timeout", "nan", "more than 0"),
        ("--max-connections", "0", "at least 1"),
    ],
)
def test_serves_bounds_must_be_bounds(world, option, value, rule):
    result = CliRunner().invoke(main, ["fake", "serve", "--port", "0", option, value])
    assert result.exit_code == 1 and option in result.output and rule in result.output, result.output


@pytest.fixture
def serve_process(tmp_path):
    """Start `hyperpod fake serve --port 0 OPTIONS…` (ends by itself after 30 s); its (host, port)."""
    started: list[subprocess.Popen] = []
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "HYPERPOD_"))}
    env["HYPERPOD_FAKE_STATE"] = str(tmp_path / "fake.sqlite")

    def start(*options: str) -> tuple[str, int]:
        process = subprocess.Popen(
            [str(BIN / "hyperpod"), "fake", "serve", "--port", "0", "--stop-after", "30", "--quiet", *options],
            env=env,
            cwd=tmp_path,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        line = process.stdout.readline()
        assert " at http://" in line, (line, process.stderr.read() if process.poll() is not None else "")
        host, _, port = line.rsplit("http://", 1)[1].strip().rpartition(":")
        return host, int(port)

    yield start
    for process in started:
        process.terminate()
        process.wait(10)


def test_serve_closes_idle_connections_after_its_idle_timeout(serve_process):
    address = serve_process("--idle-timeout", "0.5")
    with closing(socket.create_connection(address, timeout=5)) as sock:
        started = time.monotonic()
        assert sock.recv(1) == b""
        assert time.monotonic() - started < 3


def test_serve_turns_away_connections_over_its_bound(serve_process):
    address = serve_process("--max-connections", "1", "--idle-timeout", "10")
    with closing(socket.create_connection(address, timeout=5)) as held:
        held.sendall(b"GET /nothing HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n")
        assert held.recv(12).startswith(b"HTTP/1.1")  # the first is being served (kept alive)
        with closing(socket.create_connection(address, timeout=5)) as extra:
            answer = b""
            while b"}" not in answer:
                chunk = extra.recv(4096)
                if not chunk:
                    break
                answer += chunk
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 503") and json.loads(body)["__type"] == "ServiceUnavailable", answer
