"""A cluster's events as step series per instance group: target, current and usable nodes.

- target: the group's TargetCount, from the `InstanceGroupScaling` metadata of its events
  (DescribeClusterEvent's EventDetails: create, update, scale-up, scale-down), and DescribeCluster's
  TargetCount now. Where the two disagree (a change no scaling event reports: a BatchDeleteClusterNodes
  on a service that logs none), the new target is drawn from the group's first instance event after the
  last scaling event that moves the same way (a termination for a lower target, a provisioning for a
  higher one); with none, the events' target is drawn up to their last word on the group and the
  target is unknown (not drawn) from there to now. A note says which;
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
    scaled_at: float | None = None  # seconds of the last event that gave the target
    since_scaled: list[tuple[float, str]] = field(default_factory=list)  # (seconds, phase) of instance events after it
    last_event: float | None = None  # seconds of the group's last event

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
        seconds = _seconds(event["EventTime"], start)
        target = scaling_target(event)
        if target is not None:
            group.target, group.scaled_at, group.since_scaled = target, seconds, []
        instance = event.get("InstanceId")
        if event.get("ResourceType") == "Instance" and instance:
            phase = instance_phase(event)
            if phase is not None:
                group.instances[instance] = phase
                group.since_scaled.append((seconds, phase))
        group.last_event = seconds
        group.record(seconds)
    end = max(0.0, _seconds(now, start))
    return [_panel(name, group, described, end) for name, group in groups.items() if only_group is None or name == only_group]


def _hours(seconds: float) -> str:
    return f"{seconds / 3600:.2f} h"


def _first_known(points: list[Point]) -> str:
    seconds = next((p.seconds for p in points if p.target is not None), None)
    return "now" if seconds is None else _hours(seconds)


def _target_from(points: list[Point], moment: float, target: int | None) -> list[Point]:
    """`points` with `target` from `moment` on (None: unknown there), a step starting at `moment` added if none does."""
    before = [p for p in points if p.seconds < moment]
    after = [Point(p.seconds, target, p.current, p.usable) for p in points if p.seconds >= moment]
    if before and (not after or after[0].seconds > moment):
        after.insert(0, Point(moment, target, before[-1].current, before[-1].usable))
    return before + after


def _retarget(group: _Group, now_target: int) -> str:
    """DescribeCluster's target now, drawn from when the events show it took effect; the note saying so."""
    was, scaled_at = group.target, group.scaled_at or 0.0
    moving = "gone" if now_target < (was or 0) else "provisioned"
    moment = next((seconds for seconds, phase in group.since_scaled if phase == moving), None)
    said = f"the events' last TargetCount is {was} (at {_hours(scaled_at)}); DescribeCluster says {now_target} now"
    if moment is not None:
        group.points = _target_from(group.points, moment, now_target)
        what = "termination" if moving == "gone" else "provisioning"
        return f"{said}: drawn as {now_target} from {_hours(moment)}, the group's first {what} after that event"
    last = scaled_at if group.last_event is None else group.last_event
    group.points = _target_from(group.points, last, None)
    return f"{said}, and no event says when it changed: the target is not drawn from {_hours(last)}, the events' last word on the group"


def _panel(name: str, group: _Group, described: dict, end: float) -> Panel:
    """The group's points, DescribeCluster's target and count now reconciled with them, and what does not add up."""
    live = next((g for g in described.get("InstanceGroups") or [] if g["InstanceGroupName"] == name), None)
    notes = []
    if live is not None:
        if group.points and group.points[0].target is None:
            known = next((p.target for p in group.points if p.target is not None), live.get("TargetCount"))
            notes.append(f"no scaling event gives the target before {_first_known(group.points)}: drawn as {known}")
            first = next((index for index, p in enumerate(group.points) if p.target is not None), len(group.points))
            group.points[:first] = [Point(p.seconds, known, p.current, p.usable) for p in group.points[:first]]
            group.target = group.target if group.target is not None else known
        now_target = live.get("TargetCount", group.target)
        if group.scaled_at is not None and now_target is not None and now_target != group.target:
            notes.append(_retarget(group, int(now_target)))
        group.target = now_target
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
