"""No credential in outputs, logs, the pickled provider or the simulator's world; the world file is
private (0600); nothing in the package hands input to a shell.

(tests/engine scans the real Pulumi engine's state; this file covers what runs without it.)
"""

from __future__ import annotations

import base64
import json
import re
import stat

import pytest
from click.testing import CliRunner
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.provider import ClusterProvider

from tests.support.reliability import NAME, spec_dict
from tests.support.paths import PACKAGE
from tests.support.reliability import _wire

CREDENTIALS = {
    "AWS_ACCESS_KEY_ID": "AKIARELIABILITYFAKE9",
    "AWS_SECRET_ACCESS_KEY": "reliabilityFakeSecret/MustNeverLeak+0123456789",
    "AWS_SESSION_TOKEN": "ReliabilityFakeSessionTokenMustNeverLeakZZ",
}


@pytest.fixture
def credentials(monkeypatch, tmp_path):
    for key, value in CREDENTIALS.items():
        monkeypatch.setenv(key, value)
    state = tmp_path / "world" / "fake.sqlite"
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(state))
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.05")
    monkeypatch.chdir(tmp_path)
    Simulator(state, scenario={"speed": 3000, "timing": {"launch_seconds": 10, "lifecycle_seconds": 20}})
    return state


def assert_clean(blob: str | bytes, where: str) -> None:
    data = blob.encode() if isinstance(blob, str) else blob
    for name, value in CREDENTIALS.items():
        assert value.encode() not in data, f"{name} found in {where}"


def test_cli_json_outputs_hold_no_credential(credentials, tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(spec_dict(True, 2, 1)))
    runner = CliRunner()
    for args in (
        ["plan", "-f", str(spec), "--json"],
        ["apply", "-f", str(spec), "--yes", "--json", "--wait", "Target", "--timeout", "60"],
        ["apply", "-f", str(spec), "--yes"],
        ["status", NAME, "--json"],
        ["nodes", NAME, "--json"],
        ["snapshot", NAME],
        ["events", NAME],
    ):
        result = runner.invoke(main, ["--backend", "fake", *args])
        assert result.exit_code == 0, result.output
        assert_clean(result.output, f"hyperpod {' '.join(args)}")
    assert_clean(credentials.read_bytes(), "the simulator's world")


def test_world_file_is_private(credentials):
    for path in credentials.parent.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path


def test_provider_outputs_logs_and_pickle_hold_no_credential(credentials, capfd):
    provider = ClusterProvider()  # backend "fake" without a registered name: the persistent world
    checked = provider.check({}, _wire({"spec": spec_dict(True, 1, 1), "backend": "fake", "wait": "Target"}))
    assert not checked.failures, checked.failures
    created = provider.create(_wire(checked.inputs))
    read = provider.read(created.id, _wire(created.outs))
    blob = base64.b64decode(serialize_provider(provider))
    logs = capfd.readouterr()
    for where, data in (
        ("create outputs", json.dumps(created.outs, default=str)),
        ("read outputs", json.dumps(read.outs, default=str)),
        ("read inputs", json.dumps(read.inputs, default=str)),
        ("provider output", logs.out + logs.err),
        ("pickled provider", blob),
    ):
        assert_clean(data, where)
    assert_clean(credentials.read_bytes(), "the simulator's world")


def test_nothing_is_passed_to_a_shell():
    pattern = re.compile(r"shell\s*=\s*True|os\.system\s*\(|os\.popen\s*\(|subprocess\.getoutput|subprocess\.getstatusoutput")
    found = [
        f"{path.relative_to(PACKAGE.parent)}:{number}: {line.strip()}"
        for path in sorted(PACKAGE.rglob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert found == []
    assert len(list(PACKAGE.rglob("*.py"))) > 20  # the scan did look at the package
