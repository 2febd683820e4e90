"""Issue 36, item 14: SIGINT during apply's wait says what was sent, what was in flight and how to
resume (exit 130), on both clouds — not click's bare "Aborted!". The signal is a real SIGINT sent to
this process while apply waits; re-running the same apply then converges."""

from __future__ import annotations

import json
import os
import shutil
import signal
import time

from click.testing import CliRunner

from pulumi_hyperpod.aws.apply import executor
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.core.contract import EXIT_INTERRUPTED
from pulumi_hyperpod.gcp.client import GcpClient
from tests.support.cli import SPECS, hyperpod, seed004_world, use_fake_world


def _sigint_once(monkeypatch, owner, name):
    """Replace owner.name by a wait that receives SIGINT (once), as a Ctrl-C at the terminal."""
    real = getattr(owner, name)
    sent = []

    def interrupted(*args, **kwargs):
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(5)  # the signal arrives here, as KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, interrupted)
    return sent


def test_aws_apply_interrupted_in_its_wait_says_what_was_sent_and_how_to_resume(monkeypatch, tmp_path):
    seed004_world(monkeypatch, tmp_path)
    sent = _sigint_once(monkeypatch, executor._Run, "_wait")
    scale_out = str(SPECS / "seed004-scale-out.json")
    result = CliRunner().invoke(main, ["--backend", "fake", "apply", "-f", scale_out, "--yes", "--wait", "Target", "--timeout", "600"])
    assert sent and result.exit_code == EXIT_INTERRUPTED == 130, result.output
    assert "Aborted!" not in result.output and "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("interrupted:")]
    assert "waiting for cluster leo-stg-hyperpod-cluster to reach Target" in line
    assert "1 call(s) were sent and accepted (UpdateCluster)" in line
    assert "run the same apply again" in line and "make the plan again" in line
    monkeypatch.undo()
    use_fake_world(monkeypatch, tmp_path)  # the same world again (undo reset the environment too)
    again = hyperpod("apply", "-f", scale_out, "--yes", "--wait", "Target", "--timeout", "600")
    assert "outcome: done; calls: none" in again  # the call was accepted before the signal: nothing to send twice


def test_gcp_apply_interrupted_in_its_wait_says_what_was_sent_and_how_to_resume(monkeypatch, tmp_path):
    from tests.support.gcp import EXAMPLE

    use_fake_world(monkeypatch, tmp_path)
    spec = tmp_path / "gcp-cluster.json"
    shutil.copy(EXAMPLE, spec)
    sent = _sigint_once(monkeypatch, GcpClient, "wait_operation")
    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", "apply", "-f", str(spec), "--yes"])
    assert sent and result.exit_code == EXIT_INTERRUPTED, result.output
    assert "Aborted!" not in result.output and "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("interrupted:")]
    assert "waiting on the operation of step 1/1 (CreateModelDevelopmentCluster, accepted)" in line
    assert "1 call(s) were sent and accepted (CreateModelDevelopmentCluster)" in line and "run the same apply again" in line
    monkeypatch.undo()
    use_fake_world(monkeypatch, tmp_path)
    again = CliRunner().invoke(main, ["--backend", "fake", "gcp", "apply", "-f", str(spec), "--yes", "--json"])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["result"]["outcome"] == "done"
