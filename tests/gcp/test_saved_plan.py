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
from pulumi_hyperpod.gcp.saved import load
from pulumi_hyperpod.pipeline.saved import MAX_BYTES, _digest
from pulumi_hyperpod.plan.model import PLAN_FORMAT
from tests.support.cli import use_fake_world

from .conftest import EXAMPLE, NAME

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
    assert "the calls of 'update' plans are PatchModelDevelopmentCluster" in out.replace("\n", " ")
    assert _victim_exists()


def test_a_rehashed_step_on_another_cluster_is_refused(world):
    def retarget(data):
        data["plan"]["steps"][0]["request"]["name"] = OTHER

    _rewrite(world / "plan.json", retarget, rehash=True)
    assert "not on the plan's cluster" in gcp("apply", "--plan", str(world / "plan.json"), "--yes", code=1).replace("\n", " ")


def test_the_saved_plan_applies_when_untouched(world):
    gcp("apply", "--plan", str(world / "plan.json"), "--yes")
    assert "No changes" in gcp("plan", "-f", str(world / "cluster.json"))


def test_check_steps_refuses_a_delete_in_a_create_plan(world):
    the_plan = load(world / "plan.json")
    import dataclasses

    from pulumi_hyperpod.plan.model import Step

    forged = dataclasses.replace(the_plan, action="create", steps=(Step("DeleteModelDevelopmentCluster", {"name": NAME}, ("x",)),))
    with pytest.raises(PlanInvalid):
        check_steps(forged)


@pytest.mark.parametrize("content", [
    {"format": PLAN_FORMAT, "plan": {"action": "update"}},  # a HyperPod (AWS) saved plan
    {"format": "something/9", "plan": {}},
    [1, 2],
])
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
