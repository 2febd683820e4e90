"""The removed-nodes table in the human output is capped (issue 16); the plan itself, its JSON and
a saved plan keep every victim."""

from __future__ import annotations

import json
import re

from pulumi_hyperpod import Policy
from pulumi_hyperpod.aws.planner import plan
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
