"""The adversarial corpus's Google Cloud and Slurm classes (tests/badinput/corpus-gcp, corpus-slurm,
made by tests/badinput/make_corpus.py): each file is refused before any call with one line naming
the file, the field path and the rule."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.gcp import default_path
from tests.support.cli import use_fake_world
from tests.support.paths import BADINPUT, REPO

ROOT = REPO
EXPECTED = {kind: json.loads((BADINPUT / f"expected-{kind}.json").read_text()) for kind in ("gcp", "slurm")}


def mentions(text: str, path: str, rule: str) -> bool:
    return any(path in line and rule.lower() in line.lower() for line in text.splitlines())


def test_the_corpora_are_complete():
    for kind, expected in EXPECTED.items():
        assert sorted(p.name for p in (BADINPUT / f"corpus-{kind}").iterdir()) == sorted(expected), kind


@pytest.mark.parametrize("name", sorted(EXPECTED["gcp"]))
def test_a_bad_gcp_spec_is_one_line_naming_file_path_and_rule(tmp_path, monkeypatch, name):
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "400")
    path, rule = EXPECTED["gcp"][name]
    file = BADINPUT / "corpus-gcp" / name
    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", "plan", "-f", str(file)])
    assert result.exit_code == 1, result.output
    assert mentions(result.output, path, rule) and str(file) in result.output, result.output
    assert "Traceback" not in result.output
    assert not default_path().exists()  # no call reached the simulator


@pytest.mark.parametrize("name", sorted(EXPECTED["slurm"]))
def test_a_bad_slurm_spec_is_refused_by_check_naming_path_and_rule(tmp_path, monkeypatch, name):
    monkeypatch.setenv("COLUMNS", "400")
    path, rule = EXPECTED["slurm"][name]
    file = BADINPUT / "corpus-slurm" / name
    cluster = ROOT / "examples" / "slurm-training-cluster" / "cluster.json"
    result = CliRunner().invoke(main, ["slurm", "check", "-f", str(cluster), "--slurm", str(file)])
    assert result.exit_code == 1, result.output
    assert mentions(result.output, path, rule), result.output
