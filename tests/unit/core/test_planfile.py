"""Saved plans through the `hyperpod` CLI on the simulator's persistent world (seed 004, offline):
`plan --out`, `apply --plan`, the refusal of a stale plan naming the change, and of a file that was
edited, is of another format, or made by another version."""

from __future__ import annotations

import json
import os

import pytest
from click.testing import CliRunner

from pulumi_hyperpod import ClusterSpec, connect, observe
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.plans import PLAN_FORMAT
from tests.support.cli import MUTATING, SPECS, hyperpod, seed004_world

SEED004 = "leo-stg-hyperpod-cluster"


@pytest.fixture
def world(tmp_path, monkeypatch):
    return seed004_world(monkeypatch, tmp_path)


def run(*args: str):
    return CliRunner().invoke(main, ["--backend", "fake", *args])


def compute_nodes() -> int:
    state = observe(connect(backend="fake", simulator=Simulator.open_default()), SEED004)
    return len([n for n in state.nodes_of("leo-stg-compute-ig") if n.status == "Running"])


def mutating_calls_since(start: int) -> list[str]:
    return [op for op, _ in Simulator.open_default().calls[start:] if op in MUTATING]


def other_change(world, count: int) -> str:
    """Seed 004's spec with the compute group at `count`: the change someone else applies."""
    data = json.loads((SPECS / "seed004-initial.json").read_text())
    data["InstanceGroups"][1]["InstanceCount"] = count
    path = world / f"other-{count}.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_seed_004_plan_out_then_apply_plan_reaches_three_compute_nodes(world):
    assert compute_nodes() == 1
    out = hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")
    assert "1 → 3" in out
    saved = json.loads((world / "p.json").read_text())
    assert saved["format"] == PLAN_FORMAT and saved["cluster_name"] == SEED004
    assert {"spec", "policy", "observed_fingerprint", "tool_version", "integrity", "plan"} <= set(saved)
    assert saved["plan"]["observed_fingerprint"] == saved["observed_fingerprint"]

    applied = hyperpod("apply", "--plan", "p.json", "--yes", "--wait", "Target", "--timeout", "600")

    assert "outcome: done" in applied
    assert compute_nodes() == 3
    again = run("apply", "--plan", "p.json", "--yes")  # a saved plan is applied once
    assert again.exit_code == 1 and "TargetCount 1 → 3" in again.output and "was the plan applied before?" in again.output


def test_seed_004_a_change_between_plan_and_apply_is_named_and_nothing_is_touched(world):
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")
    hyperpod("apply", "-f", other_change(world, 2), "--yes", "--wait", "Target", "--timeout", "600")  # another writer
    start = len(Simulator.open_default().calls)

    result = run("apply", "--plan", "p.json", "--yes")

    assert result.exit_code == 1, result.output
    assert "changed since the plan was made" in result.output
    assert "leo-stg-compute-ig: TargetCount 1 → 2" in result.output and "make the plan again" in result.output
    assert mutating_calls_since(start) == []
    assert compute_nodes() == 2


def test_a_saved_plan_that_was_edited_is_refused(world):
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")
    saved = json.loads((world / "p.json").read_text())
    saved["plan"]["steps"][0]["request"]["InstanceGroups"][0]["InstanceCount"] = 30
    (world / "p.json").write_text(json.dumps(saved))
    start = len(Simulator.open_default().calls)

    result = run("apply", "--plan", "p.json", "--yes")

    assert result.exit_code == 1 and "p.json" in result.output and "integrity check failed" in result.output
    assert Simulator.open_default().calls[start:] == []


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("format", "hyperpod-plan/1", "plan format 'hyperpod-plan/1', this version reads hyperpod-plan/3"),
        ("tool_version", "0.0.1", "made by pulumi-hyperpod 0.0.1"),
        ("plan", [], "not a valid saved plan"),
        ("policy", {"max_scale_in_fraction": 7}, "not a valid saved plan"),
    ],
)
def test_a_saved_plan_of_another_format_or_version_is_refused(world, field, value, message):
    from pulumi_hyperpod.core.planfile import digest as _digest

    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")
    saved = json.loads((world / "p.json").read_text())
    saved[field] = value
    saved["integrity"] = _digest({k: v for k, v in saved.items() if k != "integrity"})
    (world / "p.json").write_text(json.dumps(saved))

    result = run("apply", "--plan", "p.json", "--yes")

    assert result.exit_code == 1 and message in result.output, result.output


def test_not_a_plan_file_is_refused_with_the_file_named(world):
    (world / "junk.json").write_text("{not json")
    result = run("apply", "--plan", "junk.json", "--yes")
    assert result.exit_code == 1 and "junk.json: not a saved plan" in result.output


def test_spec_and_plan_are_mutually_exclusive_and_one_is_needed(world):
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")
    both = run("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--plan", "p.json", "--yes")
    assert both.exit_code == 1 and "not both" in both.output
    neither = run("apply", "--yes")
    assert neither.exit_code == 1 and "nothing to apply" in neither.output
    policy = run("apply", "--plan", "p.json", "--protect", "i-0", "--yes")
    assert policy.exit_code == 1 and "part of a saved plan" in policy.output


def test_apply_without_yes_and_without_a_terminal_exits_1(world):
    start = len(Simulator.open_default().calls)
    result = run("apply", "-f", str(SPECS / "seed004-scale-out.json"))
    assert result.exit_code == 1 and "pass --yes" in result.output
    assert mutating_calls_since(start) == []


@pytest.mark.parametrize("timeout", ["0", "-5", "nan", "inf"])
def test_a_timeout_of_zero_or_less_is_refused(world, timeout):
    start = len(Simulator.open_default().calls)
    result = run("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--timeout", timeout)
    assert result.exit_code == 1 and "--timeout must be a number of seconds more than 0" in result.output
    assert Simulator.open_default().calls[start:] == []


def test_a_refused_saved_plan_lists_no_call_and_is_not_applied(world):
    """Seed 004 is a legacy Slurm cluster (no SlurmConfig): its roles are the lifecycle scripts'.
    Removing a group could remove the Slurm controller, so it is refused with how to state them."""
    data = json.loads((SPECS / "seed004-initial.json").read_text())
    data["InstanceGroups"] = data["InstanceGroups"][:1]
    (world / "removed.json").write_text(json.dumps(data))

    out = run("plan", "-f", "removed.json", "--out", "p.json", "--json")

    assert out.exit_code == 2
    the_plan = json.loads(out.output)
    assert the_plan["refused"] and the_plan["calls"] == {} and the_plan["steps"] == []
    [refusal] = the_plan["refusals"]
    assert refusal["rule"] == "slurm-roles-unknown" and "SlurmConfig.NodeType" in refusal["reason"] and "--lifecycle" in refusal["reason"]
    text = run("plan", "-f", "removed.json").output
    assert "API calls" not in text and "nothing will be changed" in text
    assert run("apply", "--plan", "p.json", "--yes").exit_code == 2
    assert ClusterSpec.from_dict(json.loads((world / "p.json").read_text())["spec"]).group("leo-stg-compute-ig") is None


def test_paths_with_brackets_are_printed_as_written(world):
    """User text is never read as rich markup (issue 12, item 1): a plan file named like markup."""
    out = CliRunner().invoke(main, ["--backend", "fake", "plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "[bold]p[red].json"])
    assert out.exit_code == 0 and (world / "[bold]p[red].json").exists()
    assert "plan saved to [bold]p[red].json" in out.stderr
    missing = run("apply", "--plan", "nope[/bogus].json", "--yes")
    assert missing.exit_code == 1 and "nope[/bogus].json: no such file" in missing.output
    assert "MarkupError" not in missing.output and "Traceback" not in missing.output
    unwritable = run("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", str(world / "no-dir" / "[b]p.json"))
    assert unwritable.exit_code == 1 and "[b]p.json: the plan cannot be saved" in unwritable.output


def test_a_plan_made_offline_from_a_snapshot_is_applied_later_with_json(world):
    """The CI story: review a plan made from `hyperpod snapshot` with no API call, apply it later."""
    (world / "one-node.json").write_text(hyperpod("snapshot", SEED004))
    start = len(Simulator.open_default().calls)
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--observed", "one-node.json", "--out", "p.json")
    assert Simulator.open_default().calls[start:] == []

    result = json.loads(hyperpod("apply", "--plan", "p.json", "--yes", "--json", "--wait", "Target", "--timeout", "600"))

    assert result["plan"]["format"] == PLAN_FORMAT and result["result"]["outcome"] == "done"
    assert result["result"]["calls"] == ["UpdateCluster"] and compute_nodes() == 3


def test_a_plan_out_that_cannot_be_written_is_one_line_naming_the_file_and_keeps_the_old_one(world):
    missing = run("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "no-such-dir/p.json")
    assert missing.exit_code == 1
    assert missing.output.strip().splitlines() == [  # said before any call, not after the plan is made
        "error: no-such-dir/p.json: the plan cannot be saved (no such directory 'no-such-dir')"
    ]
    assert ".tmp" not in missing.output

    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")
    before = (world / "p.json").read_text()
    (world / "p.json").chmod(0o444)
    world.chmod(0o555)  # a directory the new plan cannot be written into
    try:
        refused = run("plan", "-f", str(SPECS / "seed004-initial.json"), "--out", "p.json")
    finally:
        world.chmod(0o755)
    if os.geteuid() != 0:  # root writes anywhere
        assert refused.exit_code == 1 and "p.json" in refused.output and ".tmp" not in refused.output
        assert (world / "p.json").read_text() == before
    assert [p.name for p in world.iterdir() if p.name.endswith(".tmp")] == []


def _resealed(path, edit) -> None:
    """`edit` the saved plan's body and recompute its hash, as anyone who can write the file can."""
    from pulumi_hyperpod.core.planfile import digest as _digest

    data = json.loads(path.read_text())
    edit(data)
    body = {k: v for k, v in data.items() if k != "integrity"}
    path.write_text(json.dumps({**body, "integrity": _digest(body)}))


def _delete_other(data):
    data["plan"]["steps"][0] = {
        "operation": "DeleteCluster",
        "request": {"ClusterName": "my-training-cluster"},
        "reasons": ["looks harmless"],
        "victims": [],
        "kind": "delete-cluster",
    }


def _retarget(data):
    data["plan"]["steps"][0]["request"]["ClusterName"] = "my-training-cluster"


def _rename_everywhere(data):
    data["cluster_name"] = data["plan"]["cluster_name"] = "my-training-cluster"


@pytest.mark.parametrize(
    "edit, message",
    [
        (_delete_other, "an update plan makes no DeleteCluster call"),
        (_retarget, "acts on cluster 'my-training-cluster', the plan is for 'leo-stg-hyperpod-cluster'"),
        (_rename_everywhere, "names more than one cluster"),
    ],
)
def test_a_resealed_plan_whose_steps_are_not_its_own_is_refused_before_any_call(world, edit, message):
    """The hash only detects edits; a step must still fit the plan's own cluster and action."""
    other = json.loads((SPECS / "seed000-create-cluster.json").read_text())
    hyperpod("apply", "-f", str(SPECS / "seed000-create-cluster.json"), "--yes", "--wait", "none")
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")
    _resealed(world / "p.json", edit)
    start = len(Simulator.open_default().calls)

    result = run("apply", "--plan", "p.json", "--yes")

    assert result.exit_code == 1 and message in result.output, result.output
    assert mutating_calls_since(start) == []
    assert observe(connect(backend="fake", simulator=Simulator.open_default()), other["ClusterName"]).status != "Deleting"
