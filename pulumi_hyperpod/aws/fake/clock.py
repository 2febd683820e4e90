"""Virtual time.

The world keeps time as float epoch seconds (cheap to compare, trivially JSON) and only turns it
into datetimes at the API edge. Two clocks:

- `ManualClock` (in-memory worlds, and persistent worlds with scenario `speed: 0`): moves only with
  `advance()`, so a test that simulates three hours runs in milliseconds and always sees the same
  timestamps.
- `WallClock` (persistent worlds): the wall clock plus a `lead` — how far the world has been fast-
  forwarded. Nobody waiting, the world follows real time, so a cluster created an hour ago shows an
  hour of events and an hour of billing. Someone waiting on it moves it ahead: `advance()` (also
  `hyperpod fake advance`), and a client polling (`PollTracker`): the real time between a client's
  repeated identical reads runs at the scenario's `speed`. The lead lives in the database, so the
  Pulumi provider, the CLI and a test in three processes agree on "now" without talking.
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Callable, Hashable, Optional

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

    def __init__(self, now: float = EPOCH_SECONDS, real_time: Callable[[], float] = time.time) -> None:
        self._now = now
        self.real_time = real_time

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> None:
        self._now += seconds

    def fast_forward(self, real_seconds: float) -> None:
        """A waiting client does not move a manual clock: only `advance()` does."""

    @property
    def lead(self) -> Optional[float]:
        return None

    def state(self) -> dict:
        return {"kind": "manual", "now": self._now}


class WallClock:
    """Real time plus `lead` seconds; waiting on the world runs it at `speed` × real time."""

    def __init__(self, lead: float, speed: float, real_time: Callable[[], float] = time.time) -> None:
        self._lead = lead
        self.speed = speed
        self.real_time = real_time

    def now(self) -> float:
        return self.real_time() + self._lead

    def advance(self, seconds: float) -> None:
        self._lead += seconds

    def fast_forward(self, real_seconds: float) -> None:
        """`real_seconds` someone spent waiting on the world pass at `speed` (the wall clock already gave 1×)."""
        if real_seconds > 0 and self.speed > 1:
            self._lead += real_seconds * (self.speed - 1)

    @property
    def lead(self) -> float:
        """Seconds the world is ahead of the wall clock."""
        return self._lead

    def state(self) -> dict:
        return {"kind": "wall", "lead": self._lead, "speed": self.speed}


def clock_from_state(state: dict, real_time: Callable[[], float] = time.time) -> "ManualClock | WallClock":
    kind = state.get("kind")
    if kind == "wall":
        return WallClock(state["lead"], state["speed"], real_time)
    if kind == "anchored":  # worlds made before the wall clock: keep their "now", then follow real time
        if not state["speed"]:
            return ManualClock(state["virtual_anchor"], real_time)
        now = real_time()
        virtual = state["virtual_anchor"] + (now - state["real_anchor"]) * state["speed"]
        return WallClock(virtual - now, state["speed"], real_time)
    return ManualClock(state["now"], real_time)


def new_persistent_clock(speed: float, real_time: Callable[[], float] = time.time) -> "ManualClock | WallClock":
    """The clock of a new persistent world: the wall clock, or frozen at the current time for `speed: 0`."""
    return WallClock(0.0, speed, real_time) if speed else ManualClock(real_time(), real_time)


class PollTracker:
    """Tells which of one client's requests are polls and how long the client waited between them.

    A poll is a read the same client already sent, identical (operation and parameters, NextToken
    included) — what a waiter does. The real time since that earlier request counts as waiting unless
    it was already counted (pages of one listing, or two polled reads, never count a second twice) or
    is longer than `window` (a client silent that long was not polling: say, a Pulumi provider that
    reads again an hour later).
    """

    MAX_KEYS = 1024

    def __init__(self, window: Optional[float]) -> None:
        self.window = window  # None until known: the simulator sets it from the world's scenario
        self._seen: dict[Hashable, float] = {}
        self._counted_until: Optional[float] = None

    def waited(self, key: Hashable, real_now: float) -> float:
        previous = self._seen.get(key)
        if len(self._seen) >= self.MAX_KEYS:
            self._seen.clear()
        self._seen[key] = real_now
        if previous is None or real_now - previous > self.window:
            return 0.0
        start = max(previous, self._counted_until if self._counted_until is not None else previous)
        self._counted_until = max(real_now, self._counted_until or real_now)
        return max(0.0, real_now - start)


_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


MAX_DURATION = 365 * 86400


def parse_duration(text: str) -> float:
    """Seconds in a duration such as `90`, `90s`, `15m`, `3h`, `1h30m` or `2d`; positive and at most
    a year (`MAX_DURATION`), or ValueError."""
    import re

    cleaned = text.strip().lower()
    parts = re.findall(r"(\d+(?:\.\d+)?)([dhms]?)", cleaned)
    if (
        not cleaned
        or "".join(number + unit for number, unit in parts) != cleaned
        or (len(parts) > 1 and not all(unit for _, unit in parts))
    ):
        raise ValueError(f"duration {text!r} is not like 90s, 15m, 3h or 1h30m")
    units = [unit or "s" for _, unit in parts]
    if units != sorted(set(units), key=lambda unit: -_UNITS[unit]):  # `1h1h` is a typo, not 2 h
        raise ValueError(f"duration {text!r}: give each unit once each, largest first (like 1d2h30m15s)")
    seconds = sum(float(number) * _UNITS[unit or "s"] for number, unit in parts)
    if seconds <= 0:
        raise ValueError(f"duration {text!r} must be longer than zero")
    if seconds > MAX_DURATION:  # virtual time is a datetime: it ends in the year 9999
        raise ValueError(f"duration {text!r} must be at most 365d")
    return seconds
