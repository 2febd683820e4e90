"""A saved GCP plan is applied exactly as reviewed, or refused with one line and exit 1 before any
call: edited (hash), re-hashed but aimed at another cluster or at a call its action does not make,
another tool's format, a device or pipe, too big. Options are checked before any call too."""

from __future__ import annotations

import json
import os
import shutil

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.gcp.apply import PlanInvalid, check_steps
from pulumi_hyperpod.gcp.pipeline.saved import load
from pulumi_hyperpod.core.planfile import MAX_BYTES
from pulumi_hyperpod.core.planfile import digest as _digest
from pulumi_hyperpod.plans.model import PLAN_FORMAT
from tests.support.cli import use_fake_world

from tests.support.gcp import EXAMPLE, NAME

OTHER = NAME.replace("llmtrain", "victim")


def gcp(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", *args], catch_exceptions=False)
    assert result.exit_code == code, f"exit {result.exit_code}:\n{result.output}"
    assert "Traceback" not in result.output
    return result.output


@pytest.fixture
def world(tmp_path, monkeypatch):
    """Two clusters on the simulator (llmtrain and victim) and an update plan of llmtrain saved."""
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    spec, victim = tmp_path / "cluster.json", tmp_path / "victim.json"
    shutil.copy(EXAMPLE, spec)
    victim.write_text(EXAMPLE.read_text().replace("llmtrain", "victim"))
    gcp("apply", "-f", str(spec), "--yes")
    gcp("apply", "-f", str(victim), "--yes")
    doc = json.loads(spec.read_text())
    doc["display_name"] = "renamed"
    spec.write_text(json.dumps(doc))
    gcp("plan", "-f", str(spec), "--out", str(tmp_path / "plan.json"))
    return tmp_path


def _rewrite(path, change, rehash: bool) -> None:
    data = json.loads(path.read_text())
    change(data)
    if rehash:
        data["integrity"] = _digest({k: v for k, v in data.items() if k != "integrity"})
    path.write_text(json.dumps(data))


def _into_delete_of_victim(data) -> None:
    data["plan"]["steps"][0].update(operation="DeleteModelDevelopmentCluster", request={"name": OTHER})


def _victim_exists() -> bool:
    return json.loads(gcp("status", "--name", OTHER, "--json"))["exists"]


def test_an_edited_saved_plan_is_refused(world):
    _rewrite(world / "plan.json", _into_delete_of_victim, rehash=False)
    assert "integrity check failed" in gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1)
    assert _victim_exists()


def test_a_rehashed_plan_cannot_delete_another_cluster(world):
    _rewrite(world / "plan.json", _into_delete_of_victim, rehash=True)
    out = gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1)
    assert "not the ones its saved inputs (spec, policy, observed cluster) give" in out.replace("\n", " ")
    assert _victim_exists()


def test_a_rehashed_step_on_another_cluster_is_refused(world):
    def retarget(data):
        data["plan"]["steps"][0]["request"]["name"] = OTHER

    _rewrite(world / "plan.json", retarget, rehash=True)
    out = gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1).replace("\n", " ")
    assert "not the ones its saved inputs" in out


def test_the_saved_plan_applies_when_untouched(world):
    gcp("apply", "--plan", str(world / "plan.json"), "--yes")
    assert "No changes" in gcp("plan", "-f", str(world / "cluster.json"))


def test_check_steps_refuses_a_delete_in_a_create_plan(world):
    the_plan = load(world / "plan.json")
    import dataclasses

    from pulumi_hyperpod.plans.model import Step

    forged = dataclasses.replace(
        the_plan, action="create", steps=(Step("DeleteModelDevelopmentCluster", {"name": NAME}, ("x",), kind="delete-cluster"),)
    )
    with pytest.raises(PlanInvalid):
        check_steps(forged)


@pytest.mark.parametrize(
    "content",
    [
        {"format": PLAN_FORMAT, "plan": {"action": "update"}},  # a HyperPod (AWS) saved plan
        {"format": "something/9", "plan": {}},
        [1, 2],
    ],
)
def test_other_documents_are_one_clear_line(world, content):
    other = world / "other.json"
    other.write_text(json.dumps(content))
    out = gcp("apply", "--plan", str(other), "--yes", code=1)
    assert out.startswith(f"error: {other}") and "KeyError" not in out


def test_devices_pipes_and_huge_files_are_refused_without_reading_them(world):
    gcp("apply", "--plan", "/dev/zero", "--yes", code=1)
    fifo = world / "fifo"
    os.mkfifo(fifo)
    assert "not a regular file" in gcp("apply", "--plan", str(fifo), "--yes", code=1)
    huge = world / "huge.json"
    with huge.open("wb") as file:
        file.truncate(MAX_BYTES + 10)
    assert "larger than" in gcp("apply", "--plan", str(huge), "--yes", code=1)


@pytest.mark.parametrize("timeout", ["-3", "0", "nan", "inf"])
def test_a_bad_timeout_changes_nothing(tmp_path, monkeypatch, timeout):
    use_fake_world(monkeypatch, tmp_path)
    out = gcp("apply", "-f", str(EXAMPLE), "--yes", "--timeout", timeout, code=1)
    assert "--timeout must be a number of seconds more than 0" in out
    assert not json.loads(gcp("status", "--name", NAME, "--json", code=1))["exists"]
    gcp("delete", "--name", NAME, "--yes", "--timeout", timeout, code=1)


def test_deleting_a_missing_cluster_is_an_error(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    assert "no cluster" in gcp("delete", "--name", NAME, "--yes", code=1)


# ---- issue 24 item 2: a saved plan is its inputs ---------------------------------------------------
def _own(data) -> str:
    return data["cluster_name"]


@pytest.mark.parametrize(
    "edit",
    [
        lambda d: d["plan"].update(
            action="delete",
            steps=[
                {
                    "operation": "DeleteModelDevelopmentCluster",
                    "request": {"name": _own(d)},
                    "reasons": ["x"],
                    "victims": [],
                    "kind": "delete-cluster",
                }
            ],
        ),
        lambda d: d["plan"]["steps"].append(
            {
                "operation": "DeleteModelDevelopmentCluster",
                "request": {"name": _own(d)},
                "reasons": ["x"],
                "victims": [],
                "kind": "delete-cluster",
            }
        ),
        lambda d: d["plan"]["steps"][0]["request"].update(updateMask="node_pools"),
        lambda d: d["plan"]["steps"][0]["request"]["body"].update(node_pools=[]),
    ],
)
def test_a_rehashed_edit_of_the_plan_is_refused_by_re_deriving_it(world, edit):
    _rewrite(world / "plan.json", edit, rehash=True)
    out = gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1).replace("\n", " ")
    assert "not the ones its saved inputs" in out
    status = json.loads(gcp("status", "--name", NAME, "--json"))
    assert status["exists"] and status["node_count"] == 3 and status["state"] == "RUNNING"


def test_edited_inputs_that_no_longer_match_the_cluster_are_refused_before_the_write(world):
    """Inputs edited consistently with the steps (a smaller a4 pool, re-planned into the file) still
    fail: the saved observation must be the live cluster's configuration."""

    def shrink(data):
        observed = data["inputs"]["observed"]
        observed["displayName"] = "someone else's"

    _rewrite(world / "plan.json", shrink, rehash=True)
    out = gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1).replace("\n", " ")
    assert "not the ones its saved inputs" in out or "changed since the plan was made" in out
    assert json.loads(gcp("status", "--name", NAME, "--json"))["node_count"] == 3


def test_a_plan_without_inputs_is_refused(world):
    _rewrite(world / "plan.json", lambda d: d.pop("inputs"), rehash=True)
    assert "no saved inputs" in gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1).replace("\n", " ")


def test_a_plan_made_for_another_backend_is_refused(world):
    _rewrite(world / "plan.json", lambda d: d.update(backend="gcp"), rehash=True)
    out = gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1).replace("\n", " ")
    assert "made against the 'gcp' backend" in out


def test_a_saved_create_plan_applies(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    gcp("plan", "-f", str(EXAMPLE), "--out", str(tmp_path / "create.json"))
    gcp("apply", "--plan", str(tmp_path / "create.json"), "--yes")
    assert json.loads(gcp("status", "--name", NAME, "--json"))["exists"]


def test_hyperpod_apply_applies_a_gcp_saved_plan_one_format_for_both_clouds(world):
    data = json.loads((world / "plan.json").read_text())
    assert (data["format"], data["cloud"]) == ("hyperpod-plan/3", "gcp")  # CHANGELOG: one format, the cloud inside
    result = CliRunner().invoke(main, ["--backend", "fake", "apply", "--plan", str(world / "plan.json"), "--yes"])
    assert result.exit_code == 0, result.output
    assert "PatchModelDevelopmentCluster" in result.output


@pytest.mark.parametrize("older", ["hyperpod-gcp-saved-plan/1", "hyperpod-gcp-saved-plan/2", "hyperpod-plan/2"])
def test_a_plan_file_of_an_older_format_is_refused_make_it_again(world, older):
    _rewrite(world / "plan.json", lambda d: d.update(format=older), rehash=True)
    out = gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1).replace("\n", " ")
    assert f"plan format '{older}', this version reads hyperpod-plan/3; make the plan again" in out


def test_apply_refuses_a_plan_object_whose_patch_removes_nodes_its_rows_do_not_show(world):
    """Whatever a Plan object says (built by hand, edited in memory): the PATCH is checked against the
    live cluster and the plan's own rows before it goes out."""
    import dataclasses

    from pulumi_hyperpod.gcp.apply import apply
    from pulumi_hyperpod.gcp.client import connect

    the_plan = load(world / "plan.json")
    step = the_plan.steps[0]
    live = json.loads(gcp("snapshot", "--name", NAME))
    pools = [
        {
            "id": p["id"],
            "machine_spec": {
                "machine_type": p["machineSpec"]["machineType"],
                **(
                    {
                        "reservation_affinity": {
                            "reservation_affinity_type": "SPECIFIC_RESERVATION",
                            "values": p["machineSpec"]["reservationAffinity"]["values"],
                        }
                    }
                    if "reservationAffinity" in p["machineSpec"]
                    else {}
                ),
            },
            "scaling_spec": {"min_node_count": 1, "max_node_count": 1},
        }
        for p in live["nodePools"]
    ]
    forged_step = dataclasses.replace(
        step, request={**step.request, "updateMask": "display_name,node_pools", "body": {**step.request["body"], "node_pools": pools}}
    )
    forged = dataclasses.replace(the_plan, steps=(forged_step,))
    with pytest.raises(PlanInvalid, match="which the plan's rows do not show"):
        apply(connect("fake"), forged)
    assert json.loads(gcp("status", "--name", NAME, "--json"))["node_count"] == 3


@pytest.mark.parametrize(
    ("section", "change"),
    [
        ("cost", lambda data: data["plan"].update(cost=None)),
        ("notes", lambda data: data["plan"]["notes"].append("reviewed: no new instances")),
    ],
)
def test_a_rehashed_section_the_inputs_do_not_make_is_refused(world, section, change):
    """What `apply --plan` shows and what a policy reads in the file are what the saved inputs make
    (issue 36, item 4): a resealed cost or note is refused, nothing called."""
    _rewrite(world / "plan.json", change, rehash=True)
    out = gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1)
    assert f"its {section} section is not the one its saved inputs" in out.replace("\n", " ")
    assert "renamed" not in json.dumps(json.loads(gcp("status", "--name", NAME, "--json")))
