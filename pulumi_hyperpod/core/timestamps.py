"""The one reader of a time that user data carries: a snapshot's or a saved plan's `LaunchTime` and
`CreationTime`, a Slurm `--json` output's `end_time`, a pod's `creationTimestamp`, a saved workload
view's times, a time filter sent to the simulator.

Epoch seconds, ISO 8601 text or a datetime become an aware UTC datetime within `EARLIEST` and
`LATEST`, or a `TimestampError` whose message is the rule: each caller names its file and field, so
`end_time: 1e20` is one `error: FILE: FIELD: …` line rather than an OverflowError (platform time_t),
a RuntimeError (dateutil) or, later, an overflow in date arithmetic. The range is wide of any real
cluster's times and narrow enough that adding a job's or a drain's duration to one cannot overflow.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from typing import Any

from pulumi_hyperpod.core.terminal import shown

UTC = dt.timezone.utc
EARLIEST = dt.datetime(1970, 1, 1, tzinfo=UTC)
LATEST = dt.datetime(2200, 1, 1, tzinfo=UTC)
RULE = f"must be a time from {EARLIEST:%Y-%m-%d} to {LATEST:%Y-%m-%d} (UTC)"
_EARLIEST_S, _LATEST_S = EARLIEST.timestamp(), LATEST.timestamp()
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_LONGEST = 64  # characters: an ISO 8601 time with fractions and an offset has at most 35


class TimestampError(ValueError):
    """A time that is not one, or out of range; the message is the rule, without file or field."""


def read_time(value: Any) -> dt.datetime:
    """`value` (seconds since 1970, ISO 8601 text, numeric text, or a datetime; naive means UTC) as an
    aware UTC datetime in range; TimestampError otherwise."""
    if isinstance(value, bool):
        raise TimestampError(f"must be a timestamp, got {value}")
    if isinstance(value, str):
        text = value.strip()
        if len(text) > _LONGEST:
            raise TimestampError(f"must be a timestamp (ISO 8601, or seconds since 1970); got {len(text)} characters")
        if _NUMBER.fullmatch(text):
            return from_epoch(float(text))
        try:
            value = dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
        except ValueError:
            raise TimestampError(f"must be a timestamp (ISO 8601, or seconds since 1970); got {shown(text, one_line=True)!r}") from None
    if isinstance(value, (int, float)):
        return from_epoch(value)
    if not isinstance(value, dt.datetime):
        raise TimestampError(f"must be a timestamp, got {type(value).__name__}")
    try:
        aware = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    except (OverflowError, ValueError):  # year 1 or 9999 moved across an offset
        raise TimestampError(f"{RULE}; got {value.isoformat()}") from None
    if not EARLIEST <= aware < LATEST:
        raise TimestampError(f"{RULE}; got {aware.isoformat()}")
    return aware


def from_epoch(seconds: int | float) -> dt.datetime:
    """Seconds since 1970 as an aware UTC datetime in range; TimestampError otherwise."""
    if isinstance(seconds, float) and not math.isfinite(seconds):
        raise TimestampError(f"{RULE}; got {seconds}")
    if not _EARLIEST_S <= seconds < _LATEST_S:
        raise TimestampError(f"{RULE}; got {_magnitude(seconds)} seconds since 1970")
    return dt.datetime.fromtimestamp(seconds, UTC)


def _magnitude(seconds: int | float) -> str:
    if isinstance(seconds, float):
        return f"{seconds:.6g}"
    if abs(seconds) < 10**15:
        return str(seconds)
    return f"{'-' if seconds < 0 else ''}about 1e{seconds.bit_length() * 30103 // 100000}"  # log10(2) ≈ 0.30103
