"""A saved plan is its inputs: `apply --plan` makes the plan again from the spec, policy, roles and
observed cluster the file saved (plan() is pure) and runs it only when its steps are the file's;
and the file names where it was made (cloud, region, account, backend) and is refused elsewhere.

Every edit here is resealed (the hash recomputed, as anyone who can write the file can do)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod import connect, observe
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.cli import MUTATING, SPECS, hyperpod, seed004_world

SEED004 = "leo-stg-hyperpod-cluster"
HEAD, COMPUTE = "leo-stg-head-ig", "leo-stg-compute-ig"


@pytest.fixture
def world(tmp_path, monkeypatch):
    return seed004_world(monkeypatch, tmp_path)


@pytest.fixture
def three(world):
    """Seed 004 scaled out to three compute nodes, and the scale-in plan back to one saved."""
    hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--wait", "Target", "--timeout", "600")
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-in.json"), "--out", "p.json")
    return world


def run(*args: str):
    return CliRunner().invoke(main, ["--backend", "fake", *args])


def state():
    return observe(connect(backend="fake", simulator=Simulator.open_default()), SEED004)


def mutating_calls_since(start: int) -> list[str]:
    return [op for op, _ in Simulator.open_default().calls[start:] if op in MUTATING]


def reseal(path, edit) -> None:
    from pulumi_hyperpod.core.planfile import digest as _digest

    data = json.loads(path.read_text())
    edit(data)
    body = {k: v for k, v in data.items() if k != "integrity"}
    path.write_text(json.dumps({**body, "integrity": _digest(body)}))


def applied_edit(world, edit, *options: str):
    reseal(world / "p.json", edit)
    start = len(Simulator.open_default().calls)
    result = run(*options, "apply", "--plan", "p.json", "--yes")
    return result, mutating_calls_since(start)


# ---- edits that used to run -----------------------------------------------------------------------
def _delete_action(data):
    data["plan"]["action"] = "delete"
    data["plan"]["steps"] = [
        {"operation": "DeleteCluster", "request": {"ClusterName": SEED004}, "reasons": ["tidy"], "victims": [], "kind": "delete-cluster"}
    ]


def _delete_head_group(data):
    data["plan"]["steps"].insert(
        0,
        {
            "operation": "UpdateCluster",
            "reasons": ["tidy"],
            "victims": [],
            "kind": "update-cluster",
            "request": {"ClusterName": SEED004, "InstanceGroupsToDelete": [HEAD]},
        },
    )


def test_an_update_plan_resealed_as_a_delete_is_refused_and_the_cluster_stays(world):
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")

    result, calls = applied_edit(world, _delete_action)

    assert result.exit_code == 1, result.output
    assert "not the plan its spec, policy, roles and observed cluster make" in result.output
    assert calls == [] and state().status == "InService"


def test_an_inserted_update_that_deletes_a_group_is_refused(world):
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")

    result, calls = applied_edit(world, _delete_head_group)

    assert result.exit_code == 1 and "step 1" in result.output, result.output
    assert calls == [] and state().group(HEAD) is not None


def test_a_victim_swapped_for_the_head_node_is_refused(three):
    head = state().nodes_of(HEAD)[0].key

    def swap(data):
        step = data["plan"]["steps"][0]
        step["request"]["NodeIds"][0] = head
        step["victims"][0].update(node_id=head, group=HEAD)

    result, calls = applied_edit(three, swap)

    assert result.exit_code == 1, result.output
    assert calls == [] and len(state().nodes_of(HEAD)) == 1


def test_a_duplicated_scale_in_step_is_refused_and_no_more_nodes_go_than_the_plan_showed(three):
    def duplicate(data):
        data["plan"]["steps"].append(data["plan"]["steps"][0])

    result, calls = applied_edit(three, duplicate)

    assert result.exit_code == 1, result.output
    assert calls == [] and len([n for n in state().nodes_of(COMPUTE) if n.status == "Running"]) == 3


# ---- the inputs themselves edited -----------------------------------------------------------------
def test_a_spec_edited_under_its_plan_is_refused(world):
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")

    def more(data):
        data["spec"]["InstanceGroups"][1]["InstanceCount"] = 9

    result, calls = applied_edit(world, more)

    assert result.exit_code == 1 and "make the plan again" in result.output, result.output
    assert calls == []


def test_an_observation_edited_is_refused(world):
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")

    def lie(data):
        data["observed"]["DescribeCluster"]["InstanceGroups"][1]["TargetCount"] = 7

    result, calls = applied_edit(world, lie)

    assert result.exit_code == 1, result.output
    assert calls == []


def test_an_unedited_scale_in_plan_still_applies(three):
    result = run("apply", "--plan", "p.json", "--yes", "--wait", "none")

    assert result.exit_code == 0, result.output
    assert len([n for n in state().nodes_of(COMPUTE) if n.status == "Running"]) == 1


# ---- where the plan was made ----------------------------------------------------------------------
def test_the_file_names_its_cloud_region_account_and_backend(world):
    hyperpod("--region", "us-west-2", "plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")

    saved = json.loads((world / "p.json").read_text())

    assert saved["target"]["cloud"] == "aws" and saved["target"]["backend"] == "fake"
    assert saved["target"]["region"] == "us-west-2"
    assert saved["target"]["account"] == state().arn.split(":")[4]


def test_a_create_plan_made_for_one_region_is_refused_in_another(world):
    hyperpod("--region", "us-west-2", "plan", "-f", str(SPECS / "seed000-create-cluster.json"), "--out", "p.json")
    start = len(Simulator.open_default().calls)

    result = run("--region", "eu-west-1", "apply", "--plan", "p.json", "--yes")

    assert result.exit_code == 1, result.output
    assert "us-west-2" in result.output and "eu-west-1" in result.output
    assert mutating_calls_since(start) == []


def test_a_plan_made_on_the_simulator_is_refused_against_aws(world, monkeypatch):
    hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--out", "p.json")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")  # no call must be made: a client is all it gets to
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "example")

    result = CliRunner().invoke(main, ["--backend", "aws", "--region", "us-west-2", "apply", "--plan", "p.json", "--yes"])

    assert result.exit_code == 1, result.output
    assert "backend fake" in result.output and "aws" in result.output


def test_a_plan_for_a_cluster_in_another_account_is_refused_naming_it():
    """The same cluster name in another account (or region): the saved ARN says where the plan is for."""
    import dataclasses

    from pulumi_hyperpod.aws.planner.premise import stale_reasons
    from tests.support.factories import observed_from, slurm_spec
    from pulumi_hyperpod.aws.planner import plan

    here = observed_from(slurm_spec(workers=2))
    the_plan = plan(slurm_spec(workers=3), here)
    other = here.arn.replace(here.arn.split(":")[4], "999999999999")
    moved = dataclasses.replace(here, arn=other)

    [reason] = stale_reasons(the_plan, moved)

    assert "another account or region" in reason and "999999999999" in reason
