"""`hyperpod fleet plan` (cli/fleet_commands.py) over previews stood in for: its exit codes, its
table (user text never markup) and its JSON. The engine itself: tests/engine/test_fleet_plan.py."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.fleet import preview
from pulumi_hyperpod.fleet.summary import StackPlans

from .test_summary import plan

FLEET = """\
stacks:
  - {name: east, project: member, stack: east, account: "111122223333", region: us-west-2, backend: fake}
  - {name: west, project: member, stack: west, account: "111122223333", region: us-west-2, backend: fake}
"""


@pytest.fixture
def fleet(tmp_path, monkeypatch):
    (tmp_path / "member").mkdir()
    (tmp_path / "member" / "Pulumi.yaml").write_text("name: member\nruntime: python\n")
    path = tmp_path / "fleet.yaml"
    path.write_text(FLEET)
    results: dict = {}

    def previews(stacks, base, parallel, run=None):
        assert base == tmp_path.resolve() and parallel == 3
        return [StackPlans(s.name, s.account, s.region, **results.get(s.name, {})) for s in stacks]

    monkeypatch.setattr(preview, "preview_fleet", previews)
    return path, results


def run(path, *extra):
    return CliRunner().invoke(main, ["fleet", "plan", str(path), "--parallel", "3", *extra])


def test_no_changes_exit_0_even_with_detailed_exitcode(fleet):
    path, results = fleet
    results.update(east={"plans": (plan("a"),)}, west={"plans": (plan("b"),)})
    assert run(path, "--detailed-exitcode").exit_code == 0


def test_changes_exit_3_with_detailed_exitcode(fleet):
    path, results = fleet
    results.update(east={"plans": (plan("a", adds=1, in_use=0),)})
    assert run(path).exit_code == 0
    assert run(path, "--detailed-exitcode").exit_code == 3


def test_a_fleet_quota_refusal_exits_2_naming_both_stacks(fleet):
    path, results = fleet
    results.update(east={"plans": (plan("a", adds=2, in_use=2),)}, west={"plans": (plan("b", adds=2, in_use=2),)})
    result = run(path, "--json")
    assert result.exit_code == 2
    assert "refused: stacks east, west together add 4 ml.g5.xlarge in account 111122223333 region us-west-2" in result.stderr
    document = json.loads(result.stdout)
    assert document["format"] == "hyperpod-fleet-plan/1" and document["refused"]


def test_a_failed_preview_exits_1_and_its_text_is_never_markup(fleet):
    path, results = fleet
    results.update(east={"error": "[bold]boom[/bold] in the program"}, west={"plans": (plan("[red]b[/red]", adds=1, in_use=0),)})
    result = run(path)
    assert result.exit_code == 1
    assert "[bold]boom[/bold]" in result.stdout and "[red]b[/red]" in result.stdout


def test_a_bad_fleet_file_is_one_line_before_any_preview(tmp_path, monkeypatch):
    monkeypatch.setattr(preview, "preview_fleet", lambda *a, **k: pytest.fail("no preview runs for a bad file"))
    path = tmp_path / "fleet.yaml"
    path.write_text("stacks: [{name: a, project: p, stack: s, region: us-west-2, account: '42'}]\n")
    result = run(path)
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [f"error: {path}: stacks[0].account: an AWS account id is 12 digits; got '42'"]
