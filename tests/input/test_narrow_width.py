"""Output that cannot vanish: whatever $COLUMNS says (0, 20), the plan, its cells, the result and
errors are printed at a minimum width; and apply shows the plan before it asks to apply it."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.input_cli import SPECS, run

NAME = "my-training-cluster"
HYPERPOD = Path(sys.executable).parent / "hyperpod"  # the installed command, as a user runs it


@pytest.fixture
def shrink(world, tmp_path, monkeypatch):
    """seed 000's cluster, and a spec that removes 4 of its workers."""
    monkeypatch.delenv("COLUMNS", raising=False)
    assert run("apply", "-f", str(SPECS / "seed000-create-cluster.json"), "--yes", "--wait", "none").code == 0
    data = json.loads((SPECS / "seed000-create-cluster.json").read_text())
    data["InstanceGroups"][2]["InstanceCount"] = 12
    (tmp_path / "shrink.json").write_text(json.dumps(data))
    return "shrink.json"


@pytest.mark.parametrize("columns", ["0", "1", "20"])
def test_the_plan_is_shown_at_any_columns(shrink, monkeypatch, columns):
    monkeypatch.setenv("COLUMNS", columns)

    output = run("plan", "-f", shrink).output

    assert NAME in output and "BatchDeleteClusterNodes" in output, output
    assert "worker-gpu-a" in output and "shrink" in output  # cells, not blank columns


def test_errors_are_shown_at_columns_zero(world, monkeypatch):
    monkeypatch.setenv("COLUMNS", "0")

    result = run("plan", "-f", "no-such-spec.json")

    assert result.code == 1 and "error:" in result.output and "no-such-spec.json" in result.output


def test_apply_yes_at_columns_zero_says_what_it_did(shrink, monkeypatch):
    monkeypatch.setenv("COLUMNS", "0")

    output = run("apply", "-f", shrink, "--yes", "--wait", "none").output

    assert "BatchDeleteClusterNodes" in output and "outcome: done" in output, output


def _ask(args: list[str], env: dict[str, str]) -> str:
    """Run the CLI with a terminal on stdin, answer "n" at the prompt; what it printed before asking."""
    main, terminal = pty.openpty()
    process = subprocess.Popen(
        [str(HYPERPOD), "--backend", "fake", *args], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env
    )
    os.close(terminal)
    seen = b""
    deadline = time.monotonic() + 60
    while b"Apply this plan?" not in seen and time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 1)
        if ready:
            chunk = os.read(process.stdout.fileno(), 65536)
            if not chunk:
                break
            seen += chunk
    os.write(main, b"n\n")
    rest, _ = process.communicate(timeout=60)
    os.close(main)
    return (seen + rest).decode()


@pytest.mark.parametrize("extra", [[], ["--json"]])
def test_the_plan_is_shown_before_the_prompt(shrink, extra):
    env = {**os.environ, "COLUMNS": "0"}

    output = _ask(["apply", "-f", shrink, *extra], env)

    assert "Apply this plan?" in output, output
    before = output.split("Apply this plan?")[0]
    assert "BatchDeleteClusterNodes" in before and "worker-gpu-a" in before, output
