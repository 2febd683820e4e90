"""Virtual time.

The world keeps time as float epoch seconds (cheap to compare, trivially JSON) and only turns it
into datetimes at the API edge. Two clocks:

- `ManualClock` (in-memory worlds): starts at a fixed epoch and moves only with `advance()`, so a
  test that simulates three hours runs in milliseconds and always sees the same timestamps.
- `AnchoredClock` (persistent worlds): virtual = virtual_anchor + speed × (real − real_anchor).
  The anchors live in the database, so the Pulumi provider, the CLI and a test in three processes
  agree on "now" without talking to each other.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Callable

EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
EPOCH_SECONDS = EPOCH.timestamp()


def to_datetime(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc)


def to_seconds(value: "dt.datetime | float | int | str") -> float:
    """A request timestamp (botocore sends epoch numbers; ISO strings are accepted too)."""
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)).timestamp()
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return to_seconds(dt.datetime.fromisoformat(value.replace("Z", "+00:00")))
    return float(value)


class ManualClock:
    """Moves only when told to."""

    def __init__(self, now: float = EPOCH_SECONDS) -> None:
        self._now = now

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    def state(self) -> dict:
        return {"kind": "manual", "now": self._now}


class AnchoredClock:
    """Runs at `speed` × real time from shared anchors; `advance()` shifts the virtual anchor."""

    def __init__(
        self,
        virtual_anchor: float,
        real_anchor: float,
        speed: float,
        real_time: Callable[[], float] = time.time,
    ) -> None:
        self.virtual_anchor = virtual_anchor
        self.real_anchor = real_anchor
        self.speed = speed
        self._real_time = real_time

    def now(self) -> float:
        return self.virtual_anchor + (self._real_time() - self.real_anchor) * self.speed

    def advance(self, seconds: float) -> None:
        self.virtual_anchor += seconds

    def state(self) -> dict:
        return {
            "kind": "anchored",
            "virtual_anchor": self.virtual_anchor,
            "real_anchor": self.real_anchor,
            "speed": self.speed,
        }


def clock_from_state(state: dict) -> "ManualClock | AnchoredClock":
    if state.get("kind") == "anchored":
        return AnchoredClock(state["virtual_anchor"], state["real_anchor"], state["speed"])
    return ManualClock(state["now"])
