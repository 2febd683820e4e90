"""A cluster's events as step series per instance group: target, current and usable nodes.

- target: the group's TargetCount, from the `InstanceGroupScaling` metadata of its events
  (DescribeClusterEvent's EventDetails: create, update, scale-up), and DescribeCluster's TargetCount now;
- current: instances that exist — provisioned, and not yet terminated, lost or replaced;
- usable: instances whose creation completed (lifecycle script and health checks done) and that
  have not failed since: what a job can run on.

The instance events are the service's own sentences (seed 000/001; the simulator emits the same),
read by the few phrases below; an event none of them matches changes no count. Events are kept for
Continuous clusters only, so an all-or-nothing cluster has none to draw.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable

# what an Instance event says happened to its instance → the instance's state after it
_PHASES: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"successfully provisioned", re.I), "provisioned"),
    (re.compile(r"^Instance create \S+ .* completed successfully", re.I), "usable"),
    (re.compile(r"attach to Cluster .* completed", re.I), "usable"),
    (re.compile(r"^Termination of EC2 Instance", re.I), "gone"),
    (re.compile(r"was not found", re.I), "gone"),
    (re.compile(r"detached from Cluster", re.I), "gone"),
    (re.compile(r"is starting as part of instance replacement", re.I), "gone"),
)
EXISTING = ("provisioned", "usable", "failed")


@dataclass(frozen=True)
class Point:
    """The counts from `seconds` (since the panel's start) until the next point."""

    seconds: float
    target: int | None
    current: int
    usable: int


@dataclass(frozen=True)
class Panel:
    """One group's (or one scenario's) step series, `end` seconds long."""

    title: str
    points: tuple[Point, ...]
    end: float
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "title": self.title,
            "end_seconds": self.end,
            "notes": list(self.notes),
            "points": [{"seconds": p.seconds, "target": p.target, "current": p.current, "usable": p.usable} for p in self.points],
        }


@dataclass
class _Group:
    target: int | None = None
    instances: dict[str, str] = field(default_factory=dict)
    points: list[Point] = field(default_factory=list)

    def record(self, seconds: float) -> None:
        current = sum(1 for state in self.instances.values() if state in EXISTING)
        usable = sum(1 for state in self.instances.values() if state == "usable")
        point = Point(seconds, self.target, current, usable)
        if self.points and self.points[-1].seconds == seconds:
            self.points[-1] = point
        elif not self.points or _counts(self.points[-1]) != _counts(point):
            self.points.append(point)


def _counts(point: Point) -> tuple:
    return point.target, point.current, point.usable


def _seconds(moment: Any, start: dt.datetime) -> float:
    return (moment - start).total_seconds()


def instance_phase(event: dict) -> str | None:
    """The state an Instance event leaves its instance in, or None when it changes none."""
    description = event.get("Description") or ""
    if event.get("EventLevel") == "Error" and "was not found" not in description:
        return "failed"
    for pattern, phase in _PHASES:
        if pattern.search(description):
            return phase
    return None


def scaling_target(event: dict) -> int | None:
    """TargetCount of an event's InstanceGroupScaling metadata (DescribeClusterEvent's details)."""
    metadata = ((event.get("EventDetails") or {}).get("EventMetadata") or {}).get("InstanceGroupScaling") or {}
    target = metadata.get("TargetCount")
    return int(target) if isinstance(target, int) else None


def panels_from_events(described: dict, events: Iterable[dict], now: dt.datetime, only_group: str | None = None) -> list[Panel]:
    """One panel per instance group of DescribeCluster `described`, from `events` oldest first."""
    events = sorted(events, key=lambda e: e["EventTime"])
    start = described.get("CreationTime") or (events[0]["EventTime"] if events else now)
    groups: dict[str, _Group] = {g["InstanceGroupName"]: _Group() for g in described.get("InstanceGroups") or []}
    for event in events:
        name = event.get("InstanceGroupName")
        if not name:
            continue
        group = groups.setdefault(name, _Group())
        target = scaling_target(event)
        if target is not None:
            group.target = target
        instance = event.get("InstanceId")
        if event.get("ResourceType") == "Instance" and instance:
            phase = instance_phase(event)
            if phase is not None:
                group.instances[instance] = phase
        group.record(_seconds(event["EventTime"], start))
    end = max(0.0, _seconds(now, start))
    return [_panel(name, group, described, end) for name, group in groups.items() if only_group is None or name == only_group]


def _first_known(points: list[Point]) -> str:
    seconds = next((p.seconds for p in points if p.target is not None), None)
    return "now" if seconds is None else f"{seconds / 3600:.2f} h"


def _panel(name: str, group: _Group, described: dict, end: float) -> Panel:
    """The group's points, its count now from DescribeCluster appended, and what does not add up."""
    live = next((g for g in described.get("InstanceGroups") or [] if g["InstanceGroupName"] == name), None)
    notes = []
    if live is not None:
        if any(p.target is None for p in group.points):
            known = next((p.target for p in group.points if p.target is not None), live.get("TargetCount"))
            notes.append(f"no scaling event gives the target before {_first_known(group.points)}: drawn as {known}")
            group.points = [p if p.target is not None else Point(p.seconds, known, p.current, p.usable) for p in group.points]
        group.target = live.get("TargetCount", group.target)
        usable_now = sum(1 for state in group.instances.values() if state == "usable")
        if usable_now != live.get("CurrentCount", usable_now):
            notes.append(
                f"the events account for {usable_now} usable nodes; DescribeCluster says {live.get('CurrentCount')} "
                "running now (events older than the service keeps, or not yet listed)"
            )
    else:
        group.target, notes = 0, ["the group is gone"]
    if not group.points:  # a group without events: drawn from the start at what DescribeCluster says
        group.points.append(Point(0.0, group.target, 0, 0))
    group.record(end)
    return Panel(name, tuple(group.points), end, tuple(notes))
