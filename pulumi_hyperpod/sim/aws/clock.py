"""Virtual time for the SageMaker simulator.

The clocks themselves (`ManualClock`, `WallClock`, the `SharedClock` every persistent world of a
directory reads, durations) are the simulators' one clock model, in sim/clock.py; this module
keeps what only the SageMaker wire needs: request timestamps, and `PollTracker`, which tells a
client polling (a waiter) from one reading once. A persistent world's clock is the directory's
`SharedClock` when the world is the default one (`Simulator.open_default`), so `hyperpod fake
advance` and a client waiting on either cloud move both clouds' time.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Hashable

from pulumi_hyperpod.sim.clock import (  # noqa: F401 - re-exported: the simulator's modules import them from here
    EPOCH,
    EPOCH_SECONDS,
    MAX_DURATION,
    ManualClock,
    SharedClock,
    WallClock,
    clock_from_state,
    new_persistent_clock,
    parse_duration,
    to_datetime,
)


def to_seconds(value: dt.datetime | float | int | str) -> float:
    """A request timestamp (botocore sends epoch numbers; ISO strings are accepted too), by the one
    reader (core/timestamps.py): the operations' model check (validation.check_model) refused one out
    of range as a ValidationException already."""
    from pulumi_hyperpod.core.timestamps import read_time  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

    return read_time(value).timestamp()


class PollTracker:
    """Tells which of one client's requests are polls and how long the client waited between them.

    A poll is a read the same client already sent, identical (operation and parameters, NextToken
    included) — what a waiter does. The real time since that earlier request counts as waiting unless
    it was already counted (pages of one listing, or two polled reads, never count a second twice) or
    is longer than `window` (a client silent that long was not polling: say, a Pulumi provider that
    reads again an hour later).
    """

    MAX_KEYS = 1024

    def __init__(self, window: float | None, held: float = 0.0) -> None:
        self.window = window  # None until known: the simulator sets it from the world's scenario
        # seconds an endpoint holds each answer back (`fake serve --latency`): real time between two polls
        # that the client spent on the wire, not waiting on the world, so it does not move the world's clock
        self.held = held
        self._seen: dict[Hashable, float] = {}
        self._counted_until: float | None = None

    def waited(self, key: Hashable, real_now: float) -> float:
        previous = self._seen.get(key)
        if len(self._seen) >= self.MAX_KEYS:
            self._seen.clear()
        self._seen[key] = real_now
        if previous is None or real_now - previous > self.window:
            return 0.0
        start = max(previous, self._counted_until if self._counted_until is not None else previous)
        self._counted_until = max(real_now, self._counted_until or real_now)
        return max(0.0, real_now - start - self.held)
