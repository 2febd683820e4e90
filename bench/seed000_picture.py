"""The seeds' headline as a picture: `.venv/bin/python bench/seed000_picture.py [OUT.svg]`.

A 16-node p5 training group asked for when only 12 instances are free, 4 more freeing up after
2 hours (seed 000's capacity shortage), simulated (in-memory world, seed 0, virtual clock):
- Continuous provisioning: drawn by `hyperpod timeline`'s own code from the cluster's events
  (ListClusterEvents + DescribeClusterEvent through a real botocore client): 12 usable within
  minutes, all 16 once the shortage ends;
- all-or-nothing: no events are kept in that mode, so the bench samples DescribeCluster and
  ListClusterNodes every minute while an operator retries the failed create every 15 minutes:
  nothing usable until all 16 can start at once.
Writes docs/img/seed000-headline.svg by default (the README shows it).
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from sim_bench import _request, _scenario

from pulumi_hyperpod.cli.timeline_commands import read_panels
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.timeline import Panel, Point, render_svg
from pulumi_hyperpod.aws.timeline.files import write_picture

NAME, GROUP, ASKED = "train-16", "training", 16
HORIZON = 3.5 * 3600  # virtual seconds drawn: past the end of the shortage (2 h) and the last retry
STEP = 60
RETRY_GAP = 900
DEFAULT_OUT = ROOT / "docs" / "img" / "seed000-headline.svg"


def continuous(seed: int = 0) -> Panel:
    sim = Simulator(seed=seed, scenario=_scenario(seed))
    client = sim.client()
    client.create_cluster(**_request(continuous=True))
    start = sim.now()
    while (sim.now() - start).total_seconds() < HORIZON:
        sim.advance(STEP)
    _described, panels = read_panels(client, NAME, GROUP, now=sim.now())
    panel = panels[0]
    return Panel("Continuous provisioning (from the cluster's events)", panel.points, panel.end, panel.notes)


def _sample(client) -> tuple[int, int]:
    """(instances that exist, usable) of the training group now; (0, 0) when there is no cluster."""
    if not any(c["ClusterName"] == NAME for c in client.list_clusters()["ClusterSummaries"]):
        return 0, 0
    groups = client.describe_cluster(ClusterName=NAME)["InstanceGroups"]
    usable = next(g["CurrentCount"] for g in groups if g["InstanceGroupName"] == GROUP)
    pages = client.get_paginator("list_cluster_nodes").paginate(ClusterName=NAME, InstanceGroupNameContains=GROUP)
    existing = sum(
        1
        for page in pages
        for node in page["ClusterNodeSummaries"]
        if node["InstanceGroupName"] == GROUP and node["InstanceStatus"]["Status"] != "Pending"
    )
    return existing, usable


def all_or_nothing(seed: int = 0) -> Panel:
    """An operator retrying the create RETRY_GAP after each failure, sampled every STEP seconds."""
    sim = Simulator(seed=seed, scenario=_scenario(seed))
    client = sim.client()
    start = sim.now()
    points: list[Point] = []
    attempts, retry_at = 0, 0.0

    def elapsed() -> float:
        return (sim.now() - start).total_seconds()

    while elapsed() <= HORIZON:
        listed = {c["ClusterName"]: c["ClusterStatus"] for c in client.list_clusters()["ClusterSummaries"]}
        status = listed.get(NAME)
        if status is None and elapsed() >= retry_at:
            client.create_cluster(**_request(continuous=False))
            attempts += 1
        elif status == "Failed":
            client.delete_cluster(ClusterName=NAME)
            retry_at = elapsed() + RETRY_GAP
        existing, usable = _sample(client)
        point = Point(elapsed(), ASKED, existing, usable)
        if not points or (points[-1].current, points[-1].usable) != (point.current, point.usable):
            points.append(point)
        sim.advance(STEP)
    note = (
        f"sampled every {STEP} s (no events in this mode); the failed create deleted and retried "
        f"{RETRY_GAP // 60} min later: {attempts} attempts"
    )
    return Panel("all-or-nothing (sampled)", tuple(points), HORIZON, (note,))


def main(out: Path) -> None:
    panels = [continuous(), all_or_nothing()]
    out.parent.mkdir(parents=True, exist_ok=True)
    svg = render_svg(
        f"{ASKED} × ml.p5.48xlarge asked: 12 free now, 4 more after 2 h",
        panels,
        "seed 000's capacity shortage, simulated (in-memory world, seed 0, virtual time)",
    )
    write_picture(str(out), svg)
    for panel in panels:
        first_full = next((p.seconds for p in panel.points if p.usable >= ASKED), None)
        first_any = next((p.seconds for p in panel.points if p.usable > 0), None)
        print(f"{panel.title}: first usable node at {_hours(first_any)}, all {ASKED} at {_hours(first_full)}")
    print(f"wrote {out.relative_to(ROOT) if out.is_relative_to(ROOT) else out}")


def _hours(seconds: float | None) -> str:
    return "never" if seconds is None else f"{seconds / 3600:.2f} h"


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else DEFAULT_OUT)
