"""Environment values the tool reads, checked like any input: a bad one is one error naming the
variable, what it holds and the rule, before anything is called — never a traceback, never a
message about `int()` or a database that names nothing the user set.

| variable                   | what it is                                  | read by                        |
|----------------------------|---------------------------------------------|--------------------------------|
| HYPERPOD_FAKE_STATE        | the simulator's SQLite world                | fake/simulator.py              |
| HYPERPOD_GCP_FAKE_STATE    | the GCP simulator's SQLite world            | sim/gcp/simulator.py          |
| HYPERPOD_FAKE_SCENARIO     | a scenario file for a new simulated world   | fake/simulator.py              |
| HYPERPOD_GCP_FAKE_TICK     | virtual seconds per GCP simulator request   | sim/gcp/simulator.py          |
| HYPERPOD_GCP_FAKE_CAPACITY | JSON machine type → nodes, a new GCP world  | sim/gcp/simulator.py          |
| HYPERPOD_PRICES            | a price file over the shipped table         | cost/prices.py (documents.py)  |
| HYPERPOD_MAX_ATTEMPTS      | botocore's retry attempts                   | client.py                      |
| HYPERPOD_POLL_SECONDS      | how often waits poll                        | client.py, gcp/client.py       |
| HYPERPOD_BACKEND, AWS_REGION | --backend, --region (click names them)    | cli/app.py                     |
| HYPERPOD_PLAN_DIR          | where the provider also writes each plan    | provider/cloud_provider.py     |
| HYPERPOD_PINNED_PLAN_DIR   | the plans the provider may apply, and no other | provider/pinned.py          |
"""

from __future__ import annotations

import json
import math
import os
import stat
from typing import Any


class EnvError(ValueError):
    """An environment variable whose value cannot be used; the message names it."""

    def __init__(self, name: str, value: str, rule: str):
        shown = value if len(value) <= 80 else value[:77] + "..."
        super().__init__(f"${name}={shown!r}: {rule}")
        self.name = name


def number(name: str, default: float, *, integer: bool = False, minimum: float = 0.0, above: bool = False) -> float:
    """A finite number at least `minimum` (more than it when `above`), or `default` when unset or empty."""
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    kind = "a whole number" if integer else "a number"
    try:
        parsed: float = int(value) if integer else float(value)
    except ValueError:
        raise EnvError(name, value, f"must be {kind}") from None
    low_ok = parsed > minimum if above else parsed >= minimum
    if not math.isfinite(parsed) or not low_ok:
        raise EnvError(name, value, f"must be {kind} {'more than' if above else 'at least'} {minimum:g}")
    return parsed


def json_value(name: str) -> Any:
    """The JSON in `name` (None when unset or empty); one line naming the variable when it is not JSON."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        return json.loads(value)
    except (ValueError, RecursionError) as error:
        raise EnvError(name, value, f"is not valid JSON ({type(error).__name__})") from None


def input_file(name: str) -> str | None:
    """A file named by `name` (None when unset or empty): it must exist and be a regular file; the
    reader that parses it applies the rest of the rules."""
    value = os.environ.get(name, "").strip()
    if not value:
        return None
    try:
        found = os.stat(value)
    except OSError as error:
        raise EnvError(name, value, f"cannot be read ({error.strerror or error})") from None
    if not stat.S_ISREG(found.st_mode):
        raise EnvError(name, value, "is not a regular file (a directory, a device or a pipe)")
    return value
