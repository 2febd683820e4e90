"""`hyperpod fleet plan` and `fleet apply` (cli/fleet_commands.py) over previews, ups and gates stood
in for: their exit codes, their output (user text never markup) and the plan's JSON. The engine
itself: tests/engine/test_fleet_plan.py, tests/engine/test_fleet_apply.py."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.fleet import gates as gates_module
from pulumi_hyperpod.fleet import preview
from pulumi_hyperpod.fleet.gates import FAILED, PASSED, GateResult
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


WAVES = (
    FLEET
    + """\
waves:
  - {name: canary, stacks: [east]}
  - {name: rest, stacks: [west]}
"""
)


@pytest.fixture
def applying(fleet, monkeypatch):
    """`fleet apply` over the fleet with two waves: its ups and gates recorded, their results set by the test."""
    path, results = fleet
    path.write_text(WAVES)
    ups, gated, failing = [], [], {}

    def up(stack, base, operation="preview", run=None):
        assert operation == "up"
        ups.append(stack.name)
        return StackPlans(
            stack.name, stack.account, stack.region, **{"plans": (plan(f"{stack.name}-cluster"),), **results.get(f"up:{stack.name}", {})}
        )

    def gates(wave_gates, targets):
        gated.append([(stack.name, name) for stack, name in targets])
        return [
            GateResult("no_failed_nodes", stack.name, name, FAILED if name in failing else PASSED, failing.get(name, ""))
            for stack, name in targets
        ]

    monkeypatch.setattr(preview, "run_stack", up)
    monkeypatch.setattr(gates_module, "check_gates", gates)
    return path, results, ups, gated, failing


def apply_(path, *extra):
    return CliRunner().invoke(main, ["fleet", "apply", str(path), "--parallel", "3", *extra])


def test_apply_without_yes_shows_the_fleet_plan_and_applies_nothing(applying):
    path, results, ups, gated, _ = applying
    results.update(east={"plans": (plan("a", adds=1, in_use=0),)})
    result = apply_(path)
    assert result.exit_code == 0, result.output
    assert "fleet plan" in result.stdout and "pass --yes to apply it" in result.stderr
    assert ups == [] and gated == []


def test_a_refused_fleet_plan_applies_nothing_even_with_yes(applying):
    path, results, ups, _, _ = applying
    results.update(east={"plans": (plan("a", adds=2, in_use=2),)}, west={"plans": (plan("b", adds=2, in_use=2),)})
    result = apply_(path, "--yes")
    assert result.exit_code == 2 and ups == []
    assert "refused: stacks east, west together add 4" in result.stderr


def test_apply_runs_the_waves_and_gates_each_on_its_clusters(applying):
    path, results, ups, gated, _ = applying
    results.update({"up:east": {"changes": {"update": 1}}})
    result = apply_(path, "--yes")
    assert result.exit_code == 0, result.output
    assert ups == ["east", "west"]
    assert gated == [[("east", "east-cluster")], [("west", "west-cluster")]]
    assert "updated east: update 1" in result.stdout
    assert "no-op west: nothing to do (already at its spec)" in result.stdout
    assert "applied 2 wave(s); nothing to do for west" in result.stdout


def test_a_failed_gate_exits_1_naming_wave_gate_and_cluster_and_never_starts_the_next_wave(applying):
    path, _, ups, _, failing = applying
    failing["east-cluster"] = "node i-0[bold]x[/bold] (workers) is Failure"
    result = apply_(path, "--yes")
    assert result.exit_code == 1 and ups == ["east"]
    assert (
        "failed: wave canary: gate no_failed_nodes failed on cluster east-cluster (stack east): node i-0[bold]x[/bold] (workers) is Failure"
        in result.stderr
    )
    assert "stopped: later waves not started: rest" in result.stderr
    assert "gate failed wave canary, no_failed_nodes, cluster east-cluster (stack east): node i-0[bold]x[/bold]" in result.stdout


def test_a_missing_gate_policy_file_is_one_line_before_any_preview(applying, monkeypatch):
    path, _, ups, _, _ = applying
    monkeypatch.setattr(preview, "preview_fleet", lambda *a, **k: pytest.fail("no preview runs"))
    path.write_text(WAVES.replace("{name: rest, stacks: [west]}", "{name: rest, stacks: [west], gates: {policy: nowhere.rego}}"))
    result = apply_(path, "--yes")
    assert result.exit_code == 1 and ups == []
    assert result.stderr.strip().splitlines() == [f"error: {path.parent / 'nowhere.rego'}: no such policy file or directory"]


def test_no_opa_is_one_line_before_any_preview(fleet, monkeypatch, tmp_path):
    path, _ = fleet
    monkeypatch.setattr(preview, "preview_fleet", lambda *a, **k: pytest.fail("no preview runs"))
    monkeypatch.delenv("HYPERPOD_OPA", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "member"))
    monkeypatch.setenv("PULUMI_HYPERPOD_CACHE", str(tmp_path))
    result = run(path, "--policy", str(path))
    assert result.exit_code == 1
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error: no opa found to evaluate the fleet policy (set HYPERPOD_OPA, put opa on PATH")


def deny_all(tmp_path):
    """A stand-in fleet policy: every stack with a plan is denied (the rules themselves: tests/policies)."""
    rules = tmp_path / "deny.rego"
    rules.write_text(
        'package hyperpod.fleet\n\ndeny contains {"code": "no", "message": sprintf("stack %s: [bold]no[/bold]", [s.stack]), '
        '"stacks": [s.stack]} if {\n\tsome s in input.stacks\n\tcount(s.plans) > 0\n}\n'
    )
    return rules


@pytest.fixture
def with_opa(monkeypatch):
    from tests.support.policy_tools import opa_path

    monkeypatch.setenv("HYPERPOD_OPA", opa_path())


def test_a_fleet_policy_deny_exits_2_in_the_json_and_as_a_line(fleet, tmp_path, with_opa):
    path, results = fleet
    results.update(east={"plans": (plan("a"),)})
    result = run(path, "--json", "--policy", str(deny_all(tmp_path)))
    assert result.exit_code == 2, result.output
    document = json.loads(result.stdout)
    assert document["policy"]["violations"] == [{"code": "no", "message": "stack east: [bold]no[/bold]", "stacks": ["east"]}]
    assert document["refused"] and "refused: fleet policy no: stack east: [bold]no[/bold]" in result.stderr
    assert json.loads(run(path, "--json").stdout)["policy"] is None
    shown = run(path, "--policy", str(deny_all(tmp_path)))
    assert shown.exit_code == 2 and "fleet policy" in shown.stdout and "[bold]no[/bold]" in shown.stdout


def test_a_waves_policy_gate_stops_the_fleet_before_the_wave(applying, tmp_path, with_opa):
    path, results, ups, _, _ = applying
    deny_all(tmp_path)
    path.write_text(WAVES.replace("{name: rest, stacks: [west]}", "{name: rest, stacks: [west], gates: {policy: deny.rego}}"))
    results.update(west={"plans": (plan("w"),)})
    result = apply_(path, "--yes")
    assert result.exit_code == 1 and ups == ["east"], result.output
    assert "gate failed wave rest, policy, stacks west (before the wave): fleet policy no: stack west: [bold]no[/bold]" in result.stdout
    assert "failed: wave rest: gate policy failed on stacks west (before the wave): fleet policy no: stack west" in result.stderr


def bare(name):
    """A plan with nothing to do and no preflight (the pin comparison reads it as a Plan)."""
    return {**plan(name), "preflight": None}


def test_a_saved_fleet_plan_is_applied_with_its_plans_pinned(applying, tmp_path):
    path, results, _, _, _ = applying
    results.update(east={"plans": (bare("east-cluster"),)}, west={"plans": (bare("west-cluster"),)})
    saved = tmp_path / "fleet-plan.json"
    assert run(path, "--out", str(saved)).exit_code == 0
    assert json.loads(saved.read_text())["pinned"]["stacks"][0] == {"stack": "east", "plans": [bare("east-cluster")]}
    envs = []
    pinned_up = preview.run_stack

    def up(stack, base, operation="preview", run=None):
        envs.append(stack.env)
        return pinned_up(stack, base, operation, run)

    preview.run_stack = up
    try:
        result = apply_(path, "--plan", str(saved), "--yes")
    finally:
        preview.run_stack = pinned_up
    assert result.exit_code == 0, result.output
    assert [sorted(env) for env in envs] == [["HYPERPOD_PINNED_PLAN_DIR"]] * 2
    results.update(west={"plans": (bare("west-cluster"), bare("new-cluster"))})
    result = apply_(path, "--plan", str(saved), "--yes")
    assert result.exit_code == 1
    assert result.stderr.strip().splitlines() == [
        "error: stack west, cluster new-cluster: its preview now shows a plan (none) the saved fleet plan does not pin",
        "refused: the saved fleet plan no longer holds; nothing was applied: make the fleet plan again",
    ]


def test_a_saved_fleet_plan_of_a_changed_fleet_file_is_refused_before_any_preview(applying, tmp_path, monkeypatch):
    path, _, ups, _, _ = applying
    saved = tmp_path / "fleet-plan.json"
    assert run(path, "--out", str(saved)).exit_code == 0
    path.write_text(WAVES.replace("{name: rest, stacks: [west]}", "{name: rest, stacks: [west], parallelism: 2}"))
    monkeypatch.setattr(preview, "preview_fleet", lambda *a, **k: pytest.fail("no preview runs"))
    result = apply_(path, "--plan", str(saved), "--yes")
    assert result.exit_code == 1 and ups == []
    assert result.stderr.strip().splitlines() == [
        f"error: {saved}: pinned.fleet_digest: made from the fleet file 'fleet.yaml' as it was then; {path} is not that file "
        "(another fleet, or changed since): make the fleet plan again"
    ]


def test_wave_runs_only_the_named_waves_and_an_unknown_one_is_refused_before_any_preview(applying, monkeypatch):
    path, _, ups, gated, _ = applying
    result = apply_(path, "--yes", "--wave", "rest")
    assert result.exit_code == 0, result.output
    assert ups == ["west"] and gated == [[("west", "west-cluster")]]
    assert "applied 1 wave(s)" in result.stdout

    monkeypatch.setattr(preview, "preview_fleet", lambda *a, **k: pytest.fail("no preview for a bad --wave"))
    result = apply_(path, "--yes", "--wave", "nightly")
    assert result.exit_code == 1 and ups == ["west"]
    assert "--wave: " in result.stderr and "has no wave 'nightly'; its waves: canary, rest" in result.stderr


def test_a_stack_skipped_on_its_lock_exits_1_and_says_so(applying):
    path, results, ups, gated, _ = applying
    results["up:east"] = {
        "error": "skipped: the stack is locked, held by [b]root[/b]@vm (pid 7) since t; left to that update (--on-locked skip)"
    }
    result = apply_(path, "--yes", "--on-locked", "skip")
    assert result.exit_code == 1 and ups == ["east"] and gated == []
    assert "skipped east: the stack is locked, held by [b]root[/b]@vm (pid 7)" in result.stdout
    assert "skipped: wave canary: stack east was not updated: the stack is locked, held by [b]root[/b]@vm" in result.stderr
    assert "stopped: later waves not started: rest" in result.stderr


def test_the_progress_shows_each_clusters_steps_after_its_stacks_up(applying):
    """Waves, stacks and their steps: the steps of each plan the stack's provider applied, and none for a no-op."""
    path, results, _, _, _ = applying
    results["up:east"] = {"plans": (plan("east-[b]cluster[/b]", adds=2),), "changes": {"update": 1}}
    result = apply_(path, "--yes")
    assert result.exit_code == 0, result.output
    assert "updated east: update 1" in result.stdout
    assert "steps east, cluster east-[b]cluster[/b]: UpdateCluster" in result.stdout  # user text, not markup
    assert "steps west" not in result.stdout  # its up applied a plan with no step
