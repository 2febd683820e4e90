"""What `pulumi refresh` shows: the drift its read found, in a few lines, and no plan.

A refresh calls `read`, then asks for a diff of the same resource, the refreshed state as the old
side and the stored inputs as the new one, to show what the refresh changed (pulumi
pkg/resource/deploy/step.go, `RefreshStep.Apply`, unless the legacy refresh diff is chosen). The
request does not say it is a refresh's. A preview's diff shows the plan that takes the cluster to
the program's spec; in a refresh the same diff would show a plan back to the stored spec, which
refresh never runs. So `read` notes the id it answered (`REFRESHES.read`), and the next diff of
that id is refresh's own (`REFRESHES.is_refresh_diff`): it answers from the inputs and shows
nothing. A check clears the notes (`REFRESHES.checked`): once the program runs (`pulumi up
--refresh`, or an engine that asks no diff in a refresh) every diff is a preview's again.

The notes are the process's, not a provider object's: both transports make a CloudProvider for
each call.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from typing import Any

# Outputs that are not the cluster's state: the inputs echoed (the spec's drift shows in the
# groups' counts) and where the cluster lives.
_NOT_STATE = frozenset({"spec", "location", "backend", "region", "profile", "policy", "wait", "timeout", "adopt", "roles"})
SHOWN = 8  # at most this many differences are listed; the rest are counted


class Refreshes:
    """The ids a read answered whose refresh diff has not come yet."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._read: set[str] = set()

    def read(self, id_: str) -> None:
        with self._lock:
            self._read.add(id_)

    def checked(self) -> None:
        with self._lock:
            self._read.clear()

    def is_refresh_diff(self, id_: str) -> bool:
        with self._lock:
            if id_ not in self._read:
                return False
            self._read.discard(id_)
            return True


REFRESHES = Refreshes()


def drift_text(stored: Mapping[str, Any], found: Mapping[str, Any]) -> str:
    """What differs between the outputs in the state (`stored`) and those read from the live cluster
    (`found`): one line per value that changed, "" when none did. Only what both hold is compared
    (a state without outputs, an import's, shows nothing)."""
    changes = _differences(stored, found, "")
    if not changes:
        return ""
    lines = ["refresh: the live cluster differs from the state:"]
    lines += [f"  {path}: {_shown(old)} → {_shown(new)}" for path, old, new in changes[:SHOWN]]
    if len(changes) > SHOWN:
        lines.append(f"  … and {len(changes) - SHOWN} more")
    lines.append("the state now records the live cluster; `pulumi preview` shows the plan that restores the program's spec")
    return "\n".join(lines)


def gone_text(name: str) -> str:
    return f"refresh: cluster {name} no longer exists (deleted outside Pulumi): it is dropped from the state"


def _differences(old: Mapping[str, Any], new: Mapping[str, Any], prefix: str) -> list[tuple[str, Any, Any]]:
    found: list[tuple[str, Any, Any]] = []
    for key in sorted(set(old) | set(new), key=str):
        if not prefix and (key in _NOT_STATE or str(key).startswith("__")):
            continue
        path = f"{prefix}{key}"
        if key not in new or key not in old:
            if prefix:  # a group that came or went
                found.append((path, old.get(key), new.get(key)))
            continue
        before, after = old[key], new[key]
        if isinstance(before, Mapping) and isinstance(after, Mapping):
            found += _differences(before, after, path + ".")
        elif before != after:
            found.append((path, before, after))
    return found


def _shown(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, str):
        return value or '""'
    if isinstance(value, Mapping):
        return "{…}"
    if isinstance(value, float) and value.is_integer():  # the wire makes every number a float
        return str(int(value))
    return json.dumps(value, default=str)
