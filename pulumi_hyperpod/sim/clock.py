"""The simulators' one clock: virtual time for both clouds' simulated worlds.

Time is float epoch seconds (cheap to compare, trivially JSON), turned into datetimes only at an
API edge. Two kinds of clock:

- `ManualClock` (in-memory worlds, and persistent worlds frozen with scenario `speed: 0`): moves
  only with `advance()`, so a test that simulates three hours runs in milliseconds and always sees
  the same timestamps.
- `WallClock` (persistent worlds): the wall clock plus a `lead`, how far the worlds have been
  fast-forwarded. Nobody waiting, the worlds follow real time; someone waiting moves them ahead
  (`advance()`, `hyperpod fake advance`, a client polling at the scenario's `speed`).

`SharedClock` keeps that state in one place for every persistent world of a directory:
`clock.sqlite` beside the HyperPod world (`$HYPERPOD_FAKE_STATE`, default `.hyperpod/fake.sqlite`).
The SageMaker simulator (sim/aws) and the Google Cloud simulator (sim/gcp) both read "now" from it
and move it, so `hyperpod fake advance 2h` moves both clouds' time together, and the CLI, the Pulumi
providers and a test in separate processes agree on "now" without talking. Neither simulator imports
the other: this module is all they share.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any
from collections.abc import Callable
import re

from pulumi_hyperpod.sim.store import immediate, open_file
from pulumi_hyperpod.sim.worldfile import AWS_ENV, CLOCK, CLOCK_FILE, check, delete, places

EPOCH = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
EPOCH_SECONDS = EPOCH.timestamp()
DEFAULT_SPEED = 600.0  # virtual seconds per real second while a client waits (the scenario's `speed`)
FORMAT = "hyperpod-fake-clock/1"
STATE_ENV = AWS_ENV  # the HyperPod world; the clock lives in its directory
SOURCE = f"{CLOCK_FILE} beside ${STATE_ENV}"  # where a clock's path comes from, for an error line


def to_datetime(seconds: float) -> dt.datetime:
    return dt.datetime.fromtimestamp(seconds, tz=dt.timezone.utc)


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
    def lead(self) -> float | None:
        return None

    def state(self) -> dict[str, Any]:
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

    def state(self) -> dict[str, Any]:
        return {"kind": "wall", "lead": self._lead, "speed": self.speed}


def clock_from_state(state: dict[str, Any], real_time: Callable[[], float] = time.time) -> ManualClock | WallClock:
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


def new_persistent_clock(speed: float, real_time: Callable[[], float] = time.time) -> ManualClock | WallClock:
    """The clock of a new persistent world: the wall clock, or frozen at the current time for `speed: 0`."""
    return WallClock(0.0, speed, real_time) if speed else ManualClock(real_time(), real_time)


def clock_note(now: float, real_now: float, running: bool) -> str | None:
    """What a plan made against a simulated world says of its clock, once: its time, and how far from
    this machine's it is (a waited-on world runs ahead: 600x by default), or None when it follows the
    wall clock within a minute. `running`: False for a stopped clock (moves only when advanced)."""
    gap = now - real_now
    if running and abs(gap) < 60:
        return None
    where = f"{_span(abs(gap))} {'ahead of' if gap > 0 else 'behind'} this machine" if abs(gap) >= 60 else "this machine's time"
    stopped = "stopped, it moves only when advanced; " if not running else ""
    return f"simulator clock: {to_datetime(now):%Y-%m-%d %H:%M} UTC ({stopped}{where})"


def _span(seconds: float) -> str:
    """`seconds` in its two largest units, down to the minute: `9 h 21 min`, `2 d 3 h`, `45 min`."""
    minutes = int(seconds // 60)
    days, hours, minutes = minutes // 1440, minutes // 60 % 24, minutes % 60
    parts = [f"{value} {unit}" for value, unit in ((days, "d"), (hours, "h"), (minutes, "min")) if value]
    return " ".join(parts[:2]) or "0 min"


_UNITS = {"d": 86400.0, "h": 3600.0, "m": 60.0, "s": 1.0}


MAX_DURATION = 365 * 86400


def parse_duration(text: str) -> float:
    """Seconds in a duration such as `90`, `90s`, `15m`, `3h`, `1h30m` or `2d`; positive and at most
    a year (`MAX_DURATION`), or ValueError."""
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


# What a simulator holds each answer back (`fake serve --latency`, $HYPERPOD_FAKE_LATENCY), to rehearse a real
# service's round-trips (tens to hundreds of milliseconds); far above that is a mistyped unit.
MAX_LATENCY = 10.0
_LATENCY = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?P<unit>ms|s)")


def parse_latency(text: str) -> float:
    """Seconds in a latency such as `150ms`, `0.15s` or `1s`: from 0 to `MAX_LATENCY`, or ValueError
    saying the rule (the caller names the option or variable it came from)."""
    found = _LATENCY.fullmatch(text.strip().lower())
    if found is None:
        raise ValueError("must be milliseconds or seconds, like 150ms, 0.15s or 1s")
    seconds = float(found["number"]) / (1000 if found["unit"] == "ms" else 1)
    if seconds > MAX_LATENCY:
        raise ValueError(f"must be at most {MAX_LATENCY:g}s (a round-trip of the real service is well under a second)")
    return seconds


# ---- the one clock of a directory's persistent worlds ---------------------------------------------
class ClockFileError(ValueError):
    """The clock file cannot be used: one line naming it and what to do."""


def default_clock_path() -> Path:
    """`clock.sqlite` beside the HyperPod world ($HYPERPOD_FAKE_STATE, default .hyperpod/fake.sqlite
    here), where the Google Cloud world (`gcp-fake.sqlite`) lives too: one directory, one clock."""
    return places()[2].path


class SharedClock:
    """The clock of every persistent world of a directory, as one row of `clock.sqlite`.

    The worlds use it as they use a `ManualClock` or a `WallClock` (`now`, `advance`,
    `fast_forward`, `lead`, `state`); it reads the row on every `now()` and changes it in one
    transaction, so processes moving it at once all count. A new file starts from the clock of the
    world that opens it first (`adopt`): an existing world keeps its time, a new one starts at the
    wall clock. A file deleted under it (`hyperpod fake reset`) is made again on next use.
    """

    def __init__(self, path: str | Path, real_time: Callable[[], float] = time.time, source: str = SOURCE) -> None:
        self.path = Path(path)
        self.source = source
        check(self.path, CLOCK, source)  # before any world beside it is opened or made: a foreign file stops all
        self.real_time = real_time
        self._initial: dict[str, Any] = WallClock(0.0, DEFAULT_SPEED).state()
        self._adopted = False
        self._lock = threading.RLock()
        self._db: sqlite3.Connection | None = None
        self._identity: tuple[int, int] | None = None

    # ---- what a world asks of its clock ------------------------------------------------------
    def now(self) -> float:
        return self._read().now()

    def advance(self, seconds: float) -> None:
        self._change(lambda clock: clock.advance(seconds))

    def fast_forward(self, real_seconds: float) -> None:
        if real_seconds > 0:
            self._change(lambda clock: clock.fast_forward(real_seconds))

    def at_least(self, moment: float) -> None:
        """Moved up to `moment` if it is behind it (no world's time goes back)."""

        def move(clock: ManualClock | WallClock) -> None:
            if clock.now() < moment:
                clock.advance(moment - clock.now())

        self._change(move)

    @property
    def lead(self) -> float | None:
        return self._read().lead

    @property
    def speed(self) -> float | None:
        clock = self._read()
        return clock.speed if isinstance(clock, WallClock) else None

    def state(self) -> dict[str, Any]:
        return self._read().state()

    def adopt(self, state: dict[str, Any]) -> SharedClock:
        """This clock for a world whose own clock was `state` (a world's stored clock, or a new
        world's): the file is made from it when there is none, else moved up to its time (a world
        loaded again after another process, perhaps one on its own clock, moved it ahead)."""
        own = clock_from_state(state, self.real_time)
        with self._lock:
            if not self._adopted:
                self._initial = own.state()  # an `anchored` clock of an old world, as it runs now
                self._adopted = True
            moment = own.now()
            if self.now() < moment:  # a read first: the write transaction only when it is behind
                self.at_least(moment)
        return self

    # ---- the row -----------------------------------------------------------------------------
    def _read(self) -> ManualClock | WallClock:
        with self._lock:
            row = self._connection().execute("SELECT state FROM clock WHERE id = 1").fetchone()
        return self._decode(row)

    def _change(self, change: Callable[[ManualClock | WallClock], None]) -> None:
        with self._lock, immediate(self._connection()) as db:
            clock = self._decode(db.execute("SELECT state FROM clock WHERE id = 1").fetchone())
            change(clock)
            db.execute("UPDATE clock SET state = ? WHERE id = 1", (json.dumps({"format": FORMAT, **clock.state()}),))

    def _decode(self, row: tuple[str] | None) -> ManualClock | WallClock:
        try:
            data = json.loads(row[0]) if row else None
            if not isinstance(data, dict) or data.get("format") != FORMAT:
                raise ValueError(f"format {data.get('format') if isinstance(data, dict) else None!r}, not {FORMAT}")
            return clock_from_state(data, self.real_time)
        except (ValueError, KeyError, TypeError) as error:
            raise ClockFileError(self._unusable(str(error))) from None

    def _unusable(self, why: str) -> str:
        return f"{self.path}: not the simulators' clock ({why[:80]}); move it away (or delete it: it holds only the simulated time)"

    def _connection(self) -> sqlite3.Connection:
        identity = _identity(self.path)
        if self._db is not None and identity is not None and identity == self._identity:
            return self._db
        if self._db is not None:  # deleted or replaced under us: open the new one
            self._db.close()
            self._db = None
        try:
            # the simulators' own (its marker), made when missing, else refused untouched; WAL: a clock
            # moves on many requests, no fsync of a journal each time (sim/store.py)
            db = open_file(self.path, CLOCK, self.source)
            db.execute("CREATE TABLE IF NOT EXISTS clock (id INTEGER PRIMARY KEY CHECK (id = 1), state TEXT NOT NULL)")
            db.execute("INSERT OR IGNORE INTO clock (id, state) VALUES (1, ?)", (json.dumps({"format": FORMAT, **self._initial}),))
        except sqlite3.DatabaseError as error:
            raise ClockFileError(self._unusable(f"sqlite: {error}")) from None
        self._db, self._identity = db, _identity(self.path)
        return db

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


def _identity(path: Path) -> tuple[int, int] | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def delete_clock(path: str | Path, source: str = SOURCE) -> bool:
    """Delete a clock file (and SQLite's side files); False when there was none. A file the
    simulators did not make is refused (ForeignFile), left alone: `hyperpod fake reset` deletes only
    what they made."""
    return delete(path, CLOCK, source)
