"""The removed-nodes table in the human output is capped (issue 16); the plan itself, its JSON and
a saved plan keep every victim."""

from __future__ import annotations

import datetime as dt
import json
import re

from pulumi_hyperpod import Policy
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.observe.state import NodeState
from pulumi_hyperpod.plans import Plan, plan_text
from pulumi_hyperpod.plans.render import VICTIMS_SHOWN

from tests.support.factories import node_id, observed_from, slurm_spec

NODE = re.compile(r"\bi-[0-9a-f]{17}\b")
ANY_SCALE_IN = Policy(max_scale_in_fraction=1.0)


def scale_in(workers: int, to: int) -> Plan:
    return plan(slurm_spec(workers=to), observed_from(slurm_spec(workers=workers)), ANY_SCALE_IN)


def test_a_large_scale_in_shows_the_first_victims_and_counts_the_rest():
    p = scale_in(1_200, 100)
    assert len(p.victims) == 1_100 and not p.refused
    text = plan_text(p)
    assert NODE.findall(text) == [v.node_id for v in p.victims[:VICTIMS_SHOWN]]  # the first ones, in order
    assert "… and 1,080 more: `hyperpod plan --json` lists them all" in text
    assert len(text) < 12_000  # grows with the groups, not with the nodes


def test_the_json_and_the_full_table_keep_every_victim():
    p = scale_in(300, 10)
    listed = [v["node_id"] for step in json.loads(p.to_json())["steps"] for v in step.get("victims", [])]
    assert listed == [v.node_id for v in p.victims] and len(listed) == 290
    everything = plan_text(p, victims_shown=None)
    assert NODE.findall(everything) == listed and "more:" not in everything


def test_up_to_the_cap_the_table_is_whole_with_no_count_line():
    p = scale_in(VICTIMS_SHOWN + 1, 1)
    assert len(p.victims) == VICTIMS_SHOWN
    text = plan_text(p)
    assert NODE.findall(text) == [v.node_id for v in p.victims] and "more:" not in text
    assert node_id(2, VICTIMS_SHOWN) in text  # the newest goes first


def test_a_preview_names_a_file_holding_every_victim_in_order(tmp_path, monkeypatch):
    """The provider's text (what `pulumi preview` shows): the file it names lists them all."""
    from pulumi_hyperpod.provider import provider

    monkeypatch.chdir(tmp_path)  # the engine runs the provider in the project's directory
    p = scale_in(1_200, 100)
    text = provider.plan_text(p)
    assert "… and 1,080 more: the file named below lists them all" in text
    named = re.search(r"^removed nodes, all 1,100: (\S+)$", text, re.MULTILINE)
    assert named, text
    written = json.loads(open(named.group(1)).read())
    assert named.group(1) == str(tmp_path / ".hyperpod" / "plans" / f"{p.cluster_name}-victims.json")
    assert written["count"] == 1_100 and [v["node_id"] for v in written["victims"]] == [v.node_id for v in p.victims]
    assert NODE.findall(text) == [v.node_id for v in p.victims[:VICTIMS_SHOWN]]


def test_an_unwritable_directory_leaves_the_preview_pointing_at_the_json(tmp_path, monkeypatch):
    from pulumi_hyperpod.provider import provider

    (tmp_path / ".hyperpod").write_text("")  # a file where the directory would be
    monkeypatch.chdir(tmp_path)
    text = provider.plan_text(scale_in(1_200, 100))
    assert "… and 1,080 more: `hyperpod plan --json` lists them all" in text


def test_a_small_scale_in_writes_no_file(tmp_path, monkeypatch):
    from pulumi_hyperpod.provider import provider

    monkeypatch.chdir(tmp_path)
    provider.plan_text(scale_in(VICTIMS_SHOWN + 1, 1))
    assert not (tmp_path / ".hyperpod").exists()


def test_a_write_that_fails_midway_leaves_no_file_behind(tmp_path, monkeypatch):
    """A full disk (or any error after the temporary file exists): no partial list, no stray file."""
    from pulumi_hyperpod.core import files
    from pulumi_hyperpod.provider import victims

    def full_disk(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", full_disk)
    assert victims.write_victims(scale_in(1_200, 100), base=tmp_path) is None
    plans = tmp_path / ".hyperpod" / "plans"
    assert plans.is_dir() and list(plans.iterdir()) == []


def test_every_tier_has_a_stable_code_beside_its_sentence() -> None:
    from pulumi_hyperpod.aws.planner.victims import CODES, TIERS

    assert set(CODES) == set(TIERS.values())
    assert sorted(CODES.values()) == ["health-checks", "never-launched", "newest", "unhealthy"]


def test_the_list_is_never_written_over_a_simulators_world(tmp_path, monkeypatch):
    """A world placed where the victims list goes (issue 36, item 9): the list is not written, the world stays."""
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.provider import victims

    the_plan = scale_in(1_200, 100)
    world = victims.victims_path(the_plan.cluster_name or "cluster", tmp_path)
    world.parent.mkdir(parents=True)
    sim = Simulator(world)
    sim.advance(60)
    sim._store.close()  # its connection's last checkpoint lands now, not while the file is compared
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(world))
    before = world.read_bytes()

    assert victims.write_victims(the_plan, base=tmp_path) is None
    assert world.read_bytes() == before


def _pending(message: str | None = None, instance_id: str | None = None) -> NodeState:
    launched = dt.datetime(2026, 12, 5, 22, 40, tzinfo=dt.timezone.utc) if instance_id else None
    return NodeState("workers", instance_id, "logical-1", "ml.c5.large", "Pending", launched, message)


def test_a_pending_node_is_waiting_for_capacity_only_when_the_service_reports_a_shortage() -> None:
    """Issue 39 item 6: two Pending nodes were "waiting for capacity" with no shortage anywhere."""
    from pulumi_hyperpod.aws.planner.victims import choose

    shortage = (
        "We currently do not have sufficient capacity to launch new ml.c5.large instances. Please try again. Retrying asynchronously."
    )
    ec2 = "InsufficientInstanceCapacity: We currently do not have sufficient ml.c5.large capacity in the Availability Zone you requested"
    reasons = {
        what: choose([node], 1)[0]
        for what, node in {
            "quiet": _pending(),
            "simulator's new node": _pending("Waiting for an instance to launch"),
            "shortage": _pending(shortage),
            "ec2": _pending(ec2),
            "launching": _pending("Running lifecycle scripts", "i-0123456789abcdef0"),
        }.items()
    }
    assert reasons["quiet"].reason == reasons["simulator's new node"].reason == "not launched yet: removed before any running node"
    assert "capacity" not in reasons["quiet"].reason
    assert reasons["shortage"].reason.startswith("never launched, waiting for capacity (We currently do not have sufficient")
    assert reasons["ec2"].reason.startswith("never launched, waiting for capacity (InsufficientInstanceCapacity")
    assert (
        reasons["launching"].reason
        == "Pending, launching since 2026-12-05 22:40:00Z (Running lifecycle scripts): removed before any running node"
    )
    assert {victim.code for victim in reasons.values()} == {"never-launched"}  # the stable code stays


def test_the_simulator_says_capacity_only_when_it_is_short() -> None:
    """Through the simulator: two nodes added with capacity to spare are launching (the issue's preview
    called them "waiting for capacity"); with none to spare, they wait for it and the service says so."""
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.aws.observe import observe
    from pulumi_hyperpod.aws.planner.victims import choose
    from pulumi_hyperpod.sim.aws import Simulator
    from tests.support.sim_helpers import seed000_request

    def victims_of_scale_in(scenario: dict) -> list:
        sim = Simulator(seed=1, scenario=scenario)
        client = connect(backend="fake", simulator=sim)
        client.create_cluster(**seed000_request("c", workers=1, login=False))
        sim.advance(3600)
        client.batch_add_cluster_nodes(ClusterName="c", NodesToAdd=[{"InstanceGroupName": "worker-gpu-a", "IncrementTargetCountBy": 2}])
        workers = [n for n in observe(client, "c").nodes if n.group == "worker-gpu-a"]
        return choose(workers, 2)

    launching = victims_of_scale_in({})
    assert [v.status for v in launching] == ["Pending", "Pending"] and not any(v.logical for v in launching)
    assert all(v.reason.startswith("Pending, launching since 2026-01-01 01:00:00Z") for v in launching)
    assert not any("capacity" in v.reason for v in launching)
    short = victims_of_scale_in({"capacity": [{"instance_type": "ml.p5.48xlarge", "available": 1}]})
    assert all(v.logical for v in short)
    assert all(v.reason.startswith("never launched, waiting for capacity (We currently do not have sufficient") for v in short)
