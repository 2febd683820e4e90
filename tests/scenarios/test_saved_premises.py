"""A saved plan acts at most once and only while its premise holds (issue 36, items 1-4), through the
real CLI (`hyperpod --backend fake`) on a persistent simulated world: each premise a step kind
declares (plans/steps.py) is read again before the first call, and a file whose premise moved is
refused naming what changed, exit 1, nothing sent."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.support.cli import SPECS, hyperpod, slurm_workload_world, use_fake_world

ROLLOUT = SPECS / "slurm-rollout.json"
CONSENT = SPECS.parent / "policies" / "slurm-rollout.yaml"  # allow_controller_disruption


def _events(name: str) -> list[str]:
    return [e["Description"] for e in json.loads(hyperpod("events", name, "--json"))]


def _nodes(name: str, group: str) -> list[str]:
    return [n["instance_id"] for n in json.loads(hyperpod("nodes", name, "--json")) if n["group"] == group]


def _spec(tmp_path: Path, source: Path, name: str, edit) -> str:
    data = json.loads(source.read_text())
    edit(data)
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def _reseal(path: Path, edit) -> None:
    from pulumi_hyperpod.core.planfile import digest

    data = json.loads(path.read_text())
    edit(data)
    body = {k: v for k, v in data.items() if k != "integrity"}
    path.write_text(json.dumps({**body, "integrity": digest(body)}))


@pytest.fixture()
def rollout_world(monkeypatch, tmp_path):
    use_fake_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", str(ROLLOUT), "--yes", "--wait", "Target", "--timeout", "600")
    return tmp_path


# ---- item 1: a saved plan acts at most once --------------------------------------------------------
def test_a_saved_reboot_applied_twice_reboots_once(rollout_world) -> None:
    worker = _nodes("slurm-rollout", "workers")[0]
    hyperpod("plan", "-f", str(ROLLOUT), "--reboot", worker, "--out", "reboot.json")
    assert "calls: BatchRebootClusterNodes" in hyperpod("apply", "--plan", "reboot.json", "--yes", "--timeout", "600")
    hyperpod("fake", "advance", "900")  # the reboot is over: the node is Running again, as it was planned against
    again = hyperpod("apply", "--plan", "reboot.json", "--yes", "--timeout", "600", code=1)
    assert "stale plan" in again and worker in again and "acted already" in again
    assert sum(1 for e in _events("slurm-rollout") if e.startswith(f"Reboot of EC2 Instance {worker}")) == 1


def test_a_saved_software_update_applied_after_it_finished_is_stale(rollout_world) -> None:
    new = str(SPECS / "slurm-rollout-new-ami.json")
    hyperpod("plan", "-f", new, "--policy", str(CONSENT), "--out", "rollout.json")  # the rollout takes the controller down
    assert "calls: UpdateClusterSoftware" in hyperpod("apply", "--plan", "rollout.json", "--yes", "--timeout", "3600")
    assert "No changes" in hyperpod("plan", "-f", new)
    again = hyperpod("apply", "--plan", "rollout.json", "--yes", "--timeout", "3600", code=1)
    assert "stale plan" in again and "software was updated since the plan was made" in again
    assert sum(1 for e in _events("slurm-rollout") if "software update started" in e) == 1


def test_a_saved_reboot_on_a_cluster_without_events_is_refused_when_loaded(monkeypatch, tmp_path) -> None:
    from tests.support.cli import seed004_world

    seed004_world(monkeypatch, tmp_path)
    spec = str(SPECS / "seed004-initial.json")
    name = json.loads(Path(spec).read_text())["ClusterName"]
    node = next(n["instance_id"] for n in json.loads(hyperpod("nodes", name, "--json")) if n["instance_id"])
    hyperpod("plan", "-f", spec, "--reboot", node, "--out", "reboot.json")
    out = hyperpod("apply", "--plan", "reboot.json", "--yes", code=1)
    assert "a saved plan acts at most once" in out and node in out
    assert not any("Reboot" in line for line in out.splitlines() if line.startswith("•"))


# ---- item 2: another writer's change is not overwritten -----------------------------------------------
def test_a_plan_saved_against_one_on_create_is_stale_after_another_writer_set_a_third(rollout_world) -> None:
    def on_create(script: str):
        def edit(data: dict) -> None:
            data["InstanceGroups"][1]["LifeCycleConfig"]["OnCreate"] = script

        return edit

    a = _spec(rollout_world, ROLLOUT, "a.json", on_create("on_create_a.sh"))
    b = _spec(rollout_world, ROLLOUT, "b.json", on_create("on_create_b.sh"))
    hyperpod("plan", "-f", a, "--out", "a-plan.json")
    hyperpod("apply", "-f", b, "--yes", "--timeout", "600")  # the other writer
    out = hyperpod("apply", "--plan", "a-plan.json", "--yes", "--timeout", "600", code=1)
    assert "group workers: its configuration is not the one the plan was computed against" in out
    assert "LifeCycleConfig.OnCreate" in out
    snapshot = json.loads(hyperpod("snapshot", "slurm-rollout"))
    assert snapshot["DescribeCluster"]["InstanceGroups"][1]["LifeCycleConfig"]["OnCreate"] == "on_create_b.sh"


# ---- item 3: victims chosen by their workload ------------------------------------------------------------
@pytest.fixture()
def slurm_world(monkeypatch, tmp_path):
    return slurm_workload_world(monkeypatch, tmp_path)


def test_a_victim_chosen_idle_that_is_busy_at_apply_is_refused_naming_it_and_its_job(slurm_world) -> None:
    hyperpod("plan", "-f", str(SPECS / "workload-slurm-2.json"), "--read-workload", "--out", "p.json")
    saved = json.loads((slurm_world / "p.json").read_text())
    victims = [v["node_id"] for s in saved["plan"]["steps"] for v in s["victims"]]
    assert len(victims) == 2
    hyperpod("fake", "workload", "submit", "workload-demo", "--node", victims[0], "--runs", "5h", "--user", "carol")
    out = hyperpod("apply", "--plan", "p.json", "--read-workload", "--yes", "--wait", "none", code=1)
    assert "stale plan" in out and victims[0] in out and "carol" in out and "idle" in out
    without = hyperpod("apply", "--plan", "p.json", "--yes", "--wait", "none", code=1)
    assert "give --read-workload" in without
    assert set(victims) <= {n["instance_id"] for n in json.loads(hyperpod("nodes", "workload-demo", "--json"))}


# ---- item 4: what apply --plan shows and policies read is the plan made again ---------------------------
def test_a_resealed_cost_and_note_are_refused(rollout_world) -> None:
    bigger = _spec(rollout_world, ROLLOUT, "bigger.json", lambda d: d["InstanceGroups"][1].update(InstanceCount=24))
    hyperpod("plan", "-f", bigger, "--out", "grow.json")
    path = rollout_world / "grow.json"

    def cheaper(data: dict) -> None:
        data["plan"]["cost"]["cluster"]["delta_per_hour"] = 0
        data["plan"]["notes"].append("reviewed: no new instances")

    _reseal(path, cheaper)
    out = hyperpod("apply", "--plan", "grow.json", "--yes", "--wait", "none", code=1)
    assert "its cost section is not the one they make" in out
    assert "reviewed" not in out
    assert len(_nodes("slurm-rollout", "workers")) == 4


def test_a_resealed_note_alone_is_refused(rollout_world) -> None:
    bigger = _spec(rollout_world, ROLLOUT, "bigger.json", lambda d: d["InstanceGroups"][1].update(InstanceCount=6))
    hyperpod("plan", "-f", bigger, "--out", "grow.json")
    _reseal(rollout_world / "grow.json", lambda data: data["plan"]["notes"].append("reviewed: no new instances"))
    out = hyperpod("apply", "--plan", "grow.json", "--yes", "--wait", "none", code=1)
    assert "its notes section is not the one they make" in out


# ---- item 6: roles are how the nodes were built --------------------------------------------------------
def test_a_bundle_rewritten_to_swap_controller_and_worker_is_a_refusal_naming_both(monkeypatch, tmp_path) -> None:
    from tests.support.premise_trials import swapped_bundle

    use_fake_world(monkeypatch, tmp_path)
    no_controller = swapped_bundle(tmp_path)
    out = hyperpod("plan", "-f", str(no_controller), "--read-workload", code=2)
    assert "roles-disagree" in out
    assert "makes worker-group-1 the Controller group" in out and "makes controller-machine a Compute group" in out
    controller = _nodes("legacy", "controller-machine")
    out = hyperpod("apply", "-f", str(no_controller), "--read-workload", "--yes", code=2)
    assert _nodes("legacy", "controller-machine") == controller


def test_a_file_without_facts_still_loads_and_its_premises_are_still_read(rollout_world) -> None:
    """A hyperpod-plan/3 file saved before plans recorded premises (or with them stripped and
    resealed) is the plan made again, whose facts come from the saved inputs: still checked."""

    def on_create(script: str):
        return lambda data: data["InstanceGroups"][1]["LifeCycleConfig"].update(OnCreate=script)

    a = _spec(rollout_world, ROLLOUT, "a.json", on_create("on_create_a.sh"))
    hyperpod("plan", "-f", a, "--out", "a-plan.json")
    _reseal(rollout_world / "a-plan.json", lambda data: data["plan"]["basis"].pop("facts"))
    hyperpod("apply", "-f", _spec(rollout_world, ROLLOUT, "b.json", on_create("on_create_b.sh")), "--yes", "--timeout", "600")
    out = hyperpod("apply", "--plan", "a-plan.json", "--yes", "--timeout", "600", code=1)
    assert "its configuration is not the one the plan was computed against" in out


def test_a_saved_tag_change_is_stale_once_another_writer_tagged_the_cluster(rollout_world) -> None:
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.sim.aws.simulator import Simulator

    def tags(value: str):
        return lambda data: data.update(Tags=[{"Key": "team", "Value": value}])

    hyperpod("apply", "-f", _spec(rollout_world, ROLLOUT, "a.json", tags("a")), "--yes", "--timeout", "600")
    hyperpod("plan", "-f", _spec(rollout_world, ROLLOUT, "b.json", tags("b")), "--out", "tags.json")
    sagemaker = connect("fake", simulator=Simulator.open_default())
    arn = sagemaker.describe_cluster(ClusterName="slurm-rollout")["ClusterArn"]
    sagemaker.add_tags(ResourceArn=arn, Tags=[{"Key": "team", "Value": "c"}])  # the other writer
    out = hyperpod("apply", "--plan", "tags.json", "--yes", "--timeout", "600", code=1)
    assert "its tags changed since the plan was made" in out
    assert {"Key": "team", "Value": "c"} in sagemaker.list_tags(ResourceArn=arn)["Tags"]
