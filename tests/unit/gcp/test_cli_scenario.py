"""Done-when, through the CLI, offline: create seed 002's cluster on the simulator, change
PreemptMode and grow the a4 pool, `hyperpod gcp plan` shows one PATCH with the mask paths and the
per-key config change, apply reaches RUNNING with the new count, re-planning is empty."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.gcp import default_path
from tests.support.cli import use_fake_world

from tests.support.gcp import EXAMPLE, NAME


def gcp(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", *args], catch_exceptions=False)
    assert result.exit_code == code, f"exit {result.exit_code}:\n{result.output}"
    return result.output


@pytest.fixture
def spec_file(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    path = tmp_path / "gcp-cluster.json"
    shutil.copy(EXAMPLE, path)
    return path


def edit(path, change) -> None:
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def test_seed_002_create_change_and_converge(spec_file):
    assert default_path() == spec_file.parent / "gcp-fake.sqlite"  # beside the HyperPod world
    first = gcp("plan", "-f", str(spec_file))
    assert "1 × CreateModelDevelopmentCluster" in first
    gcp("apply", "-f", str(spec_file), "--yes")
    status = json.loads(gcp("status", "-f", str(spec_file), "--json"))
    assert status["state"] == "RUNNING" and status["pools"]["a4"]["nodes"] == {"RUNNING": 2}

    def change(doc):
        doc["orchestratorSpec"]["slurmSpec"]["config"]["PreemptMode"] = "CANCEL"
        doc["node_pools"][1]["scaling_spec"] = {"min_node_count": 4, "max_node_count": 4}

    edit(spec_file, change)
    shown = gcp("plan", "-f", str(spec_file))
    assert "1 × PatchModelDevelopmentCluster" in shown and "CreateModelDevelopmentCluster" not in shown
    assert "update mask: node_pools, orchestrator_spec.slurm_spec.config" in shown
    assert "~ PreemptMode: REQUEUE → CANCEL" in shown
    assert "grow (+2)" in shown and "2 → 4" in shown
    saved = json.loads(gcp("plan", "-f", str(spec_file), "--json"))
    assert [s["operation"] for s in saved["steps"]] == ["PatchModelDevelopmentCluster"]
    assert saved["steps"][0]["request"]["updateMask"] == "node_pools,orchestrator_spec.slurm_spec.config"

    result = json.loads(gcp("apply", "-f", str(spec_file), "--yes", "--json"))
    assert result["result"]["calls"] == ["PatchModelDevelopmentCluster"]
    assert result["result"]["status"]["state"] == "RUNNING"
    assert result["result"]["status"]["pools"]["a4"] == {
        "machine_type": "a4-highgpu-8g",
        "target": 4,
        "nodes": {"RUNNING": 4},
        "provisioning_model": "RESERVATION",
        "min_node_count": 4,
    }
    again = json.loads(gcp("plan", "-f", str(spec_file), "--json"))
    assert again["empty"] and again["steps"] == []
    assert "No changes" in gcp("plan", "-f", str(spec_file))

    gcp("delete", "-f", str(spec_file), "--yes")
    assert json.loads(gcp("status", "--name", NAME, "--json", code=1)) == {"exists": False}


def test_bad_spec_is_one_line_naming_file_and_path(spec_file):
    edit(spec_file, lambda d: d["node_pools"][1].update(scaling_spec={"min_node_count": 3, "max_node_count": 1}))
    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", "plan", "-f", str(spec_file)])
    assert result.exit_code == 1
    assert f"error: {spec_file}: node_pools[1].scaling_spec.min_node_count: min_node_count (3) is above" in result.output.replace("\n", "")
    assert not default_path().exists() or "llmtrain" not in default_path().read_bytes().decode("latin-1")


def test_refused_replacement_exits_2_and_changes_nothing(spec_file):
    gcp("apply", "-f", str(spec_file), "--yes")
    edit(spec_file, lambda d: d["network"].update(network="projects/my-project/global/networks/other"))
    out = gcp("apply", "-f", str(spec_file), "--yes", code=2)
    assert "REFUSED [replacement]" in out
    status = json.loads(gcp("status", "-f", str(spec_file), "--json"))
    assert status["state"] == "RUNNING"


def test_usage_errors_exit_1(spec_file):
    gcp("plan", code=1)  # no -f
    gcp("status", code=1)  # neither -f nor --name
    gcp("list", code=1)  # no --project/--location


def test_list_and_bare_names(spec_file):
    gcp("apply", "-f", str(spec_file), "--yes")
    listed = json.loads(gcp("--project", "my-project", "--location", "us-central1", "list", "--json"))
    assert [{k: row[k] for k in ("name", "state", "node_count")} for row in listed] == [{"name": NAME, "state": "RUNNING", "node_count": 3}]
    assert (
        json.loads(gcp("--project", "my-project", "--location", "us-central1", "status", "--name", "llmtrain", "--json"))["state"]
        == "RUNNING"
    )


def test_a_saved_plan_is_applied_exactly_or_refused_when_the_cluster_moved(spec_file, tmp_path):
    saved = tmp_path / "create.json"
    gcp("plan", "-f", str(spec_file), "--out", str(saved))
    gcp("apply", "--plan", str(saved), "--yes")
    assert json.loads(gcp("status", "-f", str(spec_file), "--json"))["state"] == "RUNNING"
    stale = gcp("apply", "--plan", str(saved), "--yes", code=1)  # stale: the cluster exists now
    assert "stale plan: " in stale and "Nothing was changed" in stale  # the label HyperPod's apply prints (core/messages.py)

    edit(spec_file, lambda d: d.update(display_name="first"))
    first = tmp_path / "first.json"
    gcp("plan", "-f", str(spec_file), "--out", str(first))
    edit(spec_file, lambda d: d.update(display_name="second"))
    gcp("apply", "-f", str(spec_file), "--yes")  # someone else changed the cluster meanwhile
    out = gcp("apply", "--plan", str(first), "--yes", code=1)  # stale: an error (1), not a guard (2)
    assert "changed since the plan was made" in out.replace("\n", " ")
    assert json.loads(gcp("status", "-f", str(spec_file), "--json"))["state"] == "RUNNING"

    gcp("apply", "--plan", str(spec_file), "--yes", code=1)  # a spec is not a saved plan
    gcp("apply", "-f", str(spec_file), "--plan", str(first), code=1)


def test_offline_plan_from_a_snapshot(spec_file, tmp_path):
    snapshot = tmp_path / "cluster.json"
    snapshot.write_text(gcp("snapshot", "-f", str(spec_file)))
    assert json.loads(snapshot.read_text()) == {}
    assert "CreateModelDevelopmentCluster" in gcp("plan", "-f", str(spec_file), "--observed", str(snapshot))
    gcp("apply", "-f", str(spec_file), "--yes")
    snapshot.write_text(gcp("snapshot", "-f", str(spec_file)))
    edit(spec_file, lambda d: d["node_pools"][1].update(scaling_spec={"min_node_count": 3, "max_node_count": 3}))
    offline = json.loads(gcp("plan", "-f", str(spec_file), "--observed", str(snapshot), "--json"))
    live = json.loads(gcp("plan", "-f", str(spec_file), "--json"))
    assert offline["steps"] == live["steps"] and offline["steps"][0]["request"]["updateMask"] == "node_pools"
    snapshot.write_text("[1, 2]")
    gcp("plan", "-f", str(spec_file), "--observed", str(snapshot), code=1)


def test_the_top_level_plan_and_apply_detect_a_gcp_spec(spec_file):
    """`hyperpod plan|apply -f gcp-cluster.json` (no `gcp`): the cloud comes from the file's shape."""

    def top(*args: str, code: int = 0) -> str:
        result = CliRunner().invoke(main, ["--backend", "fake", *args], catch_exceptions=False)
        assert result.exit_code == code, f"exit {result.exit_code}:\n{result.output}"
        return result.output

    assert "1 × CreateModelDevelopmentCluster" in top("plan", "-f", str(spec_file))
    top("apply", "-f", str(spec_file), "--yes")
    assert json.loads(gcp("status", "-f", str(spec_file), "--json"))["state"] == "RUNNING"
    assert json.loads(top("plan", "-f", str(spec_file), "--json"))["steps"] == []
    assert "--lifecycle and --slurm are for HyperPod" in top("plan", "-f", str(spec_file), "--lifecycle", str(spec_file.parent), code=1)


def test_no_preflight_skips_the_compute_engine_reads_and_says_so(spec_file):
    planned = json.loads(gcp("plan", "-f", str(spec_file), "--json", "--no-preflight"))
    assert planned["preflight"]["skipped"].startswith("--no-preflight")
    checked = json.loads(gcp("plan", "-f", str(spec_file), "--json"))
    assert checked["preflight"]["skipped"] is None
    gcp("apply", "-f", str(spec_file), "--yes", "--no-preflight")
    assert "No changes" in gcp("plan", "-f", str(spec_file), "--no-preflight")


def test_hyperpod_plan_of_a_google_spec_keeps_no_preflight_and_refuses_hyperpod_only_node_flags(spec_file):
    def hyperpod(*args: str, code: int = 0) -> str:
        result = CliRunner().invoke(main, ["--backend", "fake", *args], catch_exceptions=False)
        assert result.exit_code == code, f"exit {result.exit_code}:\n{result.output}"
        return result.output

    planned = json.loads(hyperpod("plan", "-f", str(spec_file), "--json", "--no-preflight"))
    assert planned["preflight"]["skipped"].startswith("--no-preflight")
    for flag in ("--reboot", "--replace"):
        refused = hyperpod("plan", "-f", str(spec_file), flag, "node-1", code=1)
        assert "--replace and --reboot are for HyperPod clusters" in refused
        refused = hyperpod("apply", "-f", str(spec_file), flag, "node-1", "--yes", code=1)
        assert "for HyperPod clusters" in refused
