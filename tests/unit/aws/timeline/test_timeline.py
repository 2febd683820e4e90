"""`hyperpod timeline`: target, current and usable nodes per group over time, read from a cluster's
events through a real botocore client (pulumi_hyperpod.aws.timeline), drawn as SVG; and the seed-000
headline picture the README shows (bench/seed000_picture.py)."""

from __future__ import annotations

import datetime as dt
import importlib.util
import sys
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.cli.timeline_commands import read_panels
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.timeline import Panel, Point, panels_from_events, render_svg
from pulumi_hyperpod.aws.timeline.series import instance_phase
from tests.support.sim_helpers import seed000_request
from tests.support.cli import SPECS, hyperpod, use_fake_world
from tests.support.paths import REPO

ROOT = REPO
SVG = "{http://www.w3.org/2000/svg}"
SHORTAGE = {
    "capacity": [{"instance_type": "ml.p5.48xlarge", "available": 3}],
    "capacity_changes": [{"at": 3600, "instance_type": "ml.p5.48xlarge", "add": 1}],
}


def at(panel: Panel, seconds: float) -> Point:
    """The step in force at `seconds`."""
    return [p for p in panel.points if p.seconds <= seconds][-1]


@pytest.fixture
def shortage():
    """A Continuous cluster asking for 4 p5 workers when 3 are free, the 4th freed after 1 h."""
    sim = Simulator(seed=2, scenario=SHORTAGE)
    client = connect(backend="fake", simulator=sim)
    client.create_cluster(**seed000_request("short", workers=4, login=False))
    for _ in range(12):
        sim.advance(600)
    return sim, client


def test_the_events_give_target_current_and_usable_through_a_capacity_shortage(shortage):
    sim, client = shortage
    _described, panels = read_panels(client, "short", now=sim.now())
    workers = next(p for p in panels if p.title == "worker-gpu-a")
    assert {p.target for p in workers.points} == {4}  # from the create event's InstanceGroupScaling
    assert at(workers, 1800).usable == 3 and at(workers, 3500).usable == 3  # partial capacity, usable at once
    last = workers.points[-1]
    assert (last.target, last.current, last.usable) == (4, 4, 4) and workers.end == 7200  # all four once it ends
    assert all(p.usable <= p.current <= 4 for p in workers.points)
    assert min(p.seconds for p in workers.points if p.usable == 4) > 3600
    assert workers.notes == ()


def test_a_node_deleted_by_id_leaves_both_counts_and_the_target_follows_describe_cluster(shortage):
    sim, client = shortage
    node = next(
        n for n in client.list_cluster_nodes(ClusterName="short")["ClusterNodeSummaries"] if n["InstanceGroupName"] == "worker-gpu-a"
    )
    client.batch_delete_cluster_nodes(ClusterName="short", NodeIds=[node["InstanceId"]])
    sim.advance(600)
    _described, [workers] = read_panels(client, "short", "worker-gpu-a", now=sim.now())
    assert (workers.points[-1].target, workers.points[-1].current, workers.points[-1].usable) == (3, 3, 3)


@pytest.mark.parametrize(
    "event, phase",
    [
        ({"Description": "EC2 Instance i-1 successfully provisioned in Cluster c and IG g", "EventLevel": "Info"}, "provisioned"),
        ({"Description": "Instance create i-1 in Cluster c and IG g completed successfully", "EventLevel": "Info"}, "usable"),
        ({"Description": "Instance lifecycle script execution for EC2 Instance i-1 has Succeeded", "EventLevel": "Info"}, None),
        ({"Description": "Termination of EC2 Instance i-1 is currently in progress in Cluster c and IG g", "EventLevel": "Info"}, "gone"),
        ({"Description": "EC2 Instance i-1 in Cluster c and IG g was not found", "EventLevel": "Error"}, "gone"),
        ({"Description": "Instance i-1 failed deep health checks", "EventLevel": "Error"}, "failed"),
    ],
)
def test_each_instance_sentence_moves_its_instance_to_one_state(event, phase):
    assert instance_phase(event) == phase


SENTENCES = {
    "provisioned": "EC2 Instance {i} successfully provisioned in Cluster c and IG g",
    "usable": "Instance create {i} in Cluster c and IG g completed successfully",
    "failed": "EC2 Instance {i} in Cluster c and IG g failed health checks",
    "gone": "Termination of EC2 Instance {i} is currently in progress in Cluster c and IG g",
    "lost": "EC2 Instance {i} in Cluster c and IG g was not found",
}


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.sampled_from(sorted(SENTENCES)), st.integers(0, 300)), max_size=40), st.integers(0, 8))
def test_any_event_sequence_gives_counts_that_never_go_negative_and_usable_never_exceeds_current(steps, target_now):
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    moment, events = start, []
    for instance, kind, gap in steps:
        moment += dt.timedelta(seconds=gap)
        events.append(
            {
                "InstanceGroupName": "g",
                "InstanceId": f"i-{instance}",
                "ResourceType": "Instance",
                "EventTime": moment,
                "EventLevel": "Error" if kind in ("failed", "lost") else "Info",
                "Description": SENTENCES[kind].format(i=f"i-{instance}"),
            }
        )
    described = {"CreationTime": start, "InstanceGroups": [{"InstanceGroupName": "g", "TargetCount": target_now, "CurrentCount": 0}]}
    [panel] = panels_from_events(described, events, moment + dt.timedelta(seconds=60))
    assert all(0 <= p.usable <= p.current <= 6 for p in panel.points)
    assert [p.seconds for p in panel.points] == sorted({p.seconds for p in panel.points})
    assert panel.points[-1].target == target_now and panel.end >= panel.points[-1].seconds
    alive = {}
    for event in events:  # the last word on each instance decides whether it counts now
        alive[event["InstanceId"]] = instance_phase(event)
    assert panel.points[-1].current == sum(state in ("provisioned", "usable", "failed") for state in alive.values())


def test_the_svg_is_well_formed_and_shows_text_as_written():
    panel = Panel("<group & [bold]>", (Point(0, 4, 0, 0), Point(600, 4, 3, 3), Point(4000, 4, 4, 4)), 5000, ("a note with <tags>",))
    document = ET.fromstring(render_svg("cluster <x>", [panel], "sub & title"))
    texts = [t.text for t in document.iter(f"{SVG}text")]
    assert "cluster <x>" in texts and "<group & [bold]>" in texts and "a note with <tags>" in texts
    assert len([p for p in document.iter(f"{SVG}path") if p.get("fill") == "none"]) == 3  # target, current, usable
    with pytest.raises(ValueError, match="nothing to draw"):
        render_svg("empty", [])


def test_the_cli_draws_a_continuous_cluster_and_says_why_it_cannot_draw_others(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", str(SPECS / "seed000-create-cluster.json"), "--yes", "--wait", "none")
    hyperpod("fake", "advance", "30m")
    out = tmp_path / "t.svg"
    assert "wrote" in hyperpod("timeline", "my-training-cluster", "--out", str(out))
    titles = [t.text for t in ET.parse(out).getroot().iter(f"{SVG}text")]
    assert "worker-gpu-a" in titles and "controller-group" in titles

    calls = len(Simulator.open_default().calls)
    assert ".svg or .png" in hyperpod("timeline", "my-training-cluster", "--out", str(tmp_path / "t.gif"), code=1)
    assert len(Simulator.open_default().calls) == calls  # said before any call
    hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes", "--wait", "none")
    assert "NodeProvisioningMode is Continuous" in hyperpod("timeline", "leo-stg-hyperpod-cluster", "--out", str(out), code=1)
    assert "no cluster nothing-here" in hyperpod("timeline", "nothing-here", "--out", str(out), code=1)
    png = tmp_path / "t.png"
    if importlib.util.find_spec("cairosvg") is None:  # the optional extra
        assert "pulumi-hyperpod[png]" in hyperpod("timeline", "my-training-cluster", "--out", str(png), code=1)
        assert not png.exists()
    else:
        hyperpod("timeline", "my-training-cluster", "--out", str(png))
        assert png.read_bytes().startswith(b"\x89PNG\r\n\x1a\n")


def test_the_seed_000_headline_continuous_is_usable_hours_before_all_or_nothing(tmp_path):
    sys.path.insert(0, str(ROOT / "bench"))
    try:
        import seed000_picture as bench
    finally:
        sys.path.remove(str(ROOT / "bench"))
    continuous, all_or_nothing = bench.continuous(), bench.all_or_nothing()
    assert at(continuous, 1800).usable == 12 and continuous.points[-1].usable == 16
    assert max(p.usable for p in all_or_nothing.points if p.seconds < 2 * 3600) == 0  # nothing until all can start
    assert all_or_nothing.points[-1].usable == 16
    out = tmp_path / "headline.svg"
    bench.main(out)
    assert ET.parse(out).getroot().tag == f"{SVG}svg"


def test_after_a_scale_in_the_target_is_the_new_one_from_the_delete_on(shortage):
    """The issue's picture: nine hours after a BatchDeleteClusterNodes the old target was still drawn."""
    sim, client = shortage
    node = next(
        n for n in client.list_cluster_nodes(ClusterName="short")["ClusterNodeSummaries"] if n["InstanceGroupName"] == "worker-gpu-a"
    )
    client.batch_delete_cluster_nodes(ClusterName="short", NodeIds=[node["InstanceId"]])
    deleted = 7200
    sim.advance(9 * 3600)
    _described, [workers] = read_panels(client, "short", "worker-gpu-a", now=sim.now())
    assert at(workers, deleted - 1).target == 4
    assert at(workers, deleted).target == 3 and at(workers, deleted + 3600).target == 3
    assert workers.notes == ()  # the scale-down event and DescribeCluster agree


def _group_events(*steps: tuple[float, str, str | None, int | None]) -> list[dict]:
    """Events of group g: (seconds, kind: 'scale' | a SENTENCES key, instance, target)."""
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    events = []
    for seconds, kind, instance, target in steps:
        moment = start + dt.timedelta(seconds=seconds)
        if kind == "scale":
            events.append(
                {
                    "InstanceGroupName": "g",
                    "ResourceType": "InstanceGroup",
                    "EventTime": moment,
                    "EventLevel": "Info",
                    "Description": "InstanceGroup g update started successfully in Cluster c",
                    "EventDetails": {"EventMetadata": {"InstanceGroupScaling": {"TargetCount": target}}},
                }
            )
        else:
            events.append(
                {
                    "InstanceGroupName": "g",
                    "InstanceId": instance,
                    "ResourceType": "Instance",
                    "EventTime": moment,
                    "EventLevel": "Info",
                    "Description": SENTENCES[kind].format(i=instance),
                }
            )
    return events


def _described(target: int, current: int) -> dict:
    start = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    return {"CreationTime": start, "InstanceGroups": [{"InstanceGroupName": "g", "TargetCount": target, "CurrentCount": current}]}


NINE_HOURS = dt.datetime(2026, 1, 1, 9, tzinfo=dt.timezone.utc)


def test_a_lower_target_no_event_gives_is_drawn_from_the_first_termination_and_noted():
    events = _group_events(
        (0, "scale", None, 3),
        *((60, "provisioned", f"i-{n}", None) for n in range(3)),
        *((300, "usable", f"i-{n}", None) for n in range(3)),
        (1800, "gone", "i-2", None),  # BatchDeleteClusterNodes on a service that logs no scale-down
        (1800, "gone", "i-1", None),
    )
    [panel] = panels_from_events(_described(1, 1), events, NINE_HOURS)
    assert at(panel, 1799).target == 3 and at(panel, 1800).target == 1 and panel.points[-1].target == 1
    [note] = panel.notes
    assert "TargetCount is 3" in note and "DescribeCluster says 1" in note and "from 0.50 h" in note and "termination" in note


def test_a_target_change_no_event_dates_is_not_drawn_after_the_events_last_word():
    events = _group_events((0, "scale", None, 3), (60, "provisioned", "i-0", None), (300, "usable", "i-0", None))
    [panel] = panels_from_events(_described(1, 1), events, NINE_HOURS)
    assert at(panel, 299).target == 3
    assert at(panel, 300).target is None and at(panel, 8 * 3600).target is None  # unknown, not the old 3
    assert panel.points[-1].target == 1 and panel.points[-1].seconds == 9 * 3600
    [note] = panel.notes
    assert "no event says when it changed" in note and "0.08 h" in note
    assert panel.to_dict()["notes"] == [note]  # the JSON carries it too
    document = ET.fromstring(render_svg("c", [panel]))
    [target] = [p for p in document.iter(f"{SVG}path") if p.findtext(f"{SVG}title") == "target"]
    assert target.get("d").count("M") == 2  # the line breaks where the target is unknown
    assert note in [t.text for t in document.iter(f"{SVG}text")]
