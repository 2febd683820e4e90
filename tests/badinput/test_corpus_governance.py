"""The task governance class of the bad-input corpus (tests/badinput/corpus-governance: the example
compute quota and scheduler configuration of examples/task-governance, each with one defect, written by hand; the fragments in
expected-governance.json are what the file breaks, from botocore's model): each file is refused by
`plan`, `apply` and `delete` before any call, with one line naming the file, the field and the rule."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from tests.support.cli import use_fake_world
from tests.support.paths import BADINPUT

EXPECTED = json.loads((BADINPUT / "expected-governance.json").read_text())


def test_the_corpus_is_complete():
    assert sorted(p.name for p in (BADINPUT / "corpus-governance").iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("command", [["plan"], ["apply", "--yes"], ["delete", "--yes"]])
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_bad_governance_spec_is_one_line_naming_file_field_and_rule(tmp_path, monkeypatch, name, command):
    world = use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "400")
    path, rule = EXPECTED[name]
    file = BADINPUT / "corpus-governance" / name
    result = CliRunner().invoke(main, ["--backend", "fake", *command[:1], "-f", str(file), *command[1:]])
    assert result.exit_code == 1, result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1 and str(file) in lines[0] and path in lines[0] and rule in lines[0], result.output
    assert not world.exists()  # no call reached the simulator
