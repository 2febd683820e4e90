"""Values the engine does not know yet (during preview an input computed by another resource).

The dynamic provider receives them in `check` and `diff` as `pulumi.output.Unknown` objects (the
SDK's decoding of the engine's sentinel string `rpc.UNKNOWN`, which is also recognised). They are
kept, located by field path, and reported as "not yet known" instead of being validated or
planned against.
"""

from __future__ import annotations

from typing import Any

from pulumi.output import Unknown
from pulumi.runtime.rpc import UNKNOWN


def is_unknown(value: Any) -> bool:
    return isinstance(value, Unknown) or (isinstance(value, str) and value == UNKNOWN)


def unknown_paths(value: Any, path: str = "") -> list[str]:
    """Field paths (`InstanceGroups[1].ExecutionRole`) whose value is not known yet."""
    if is_unknown(value):
        return [path]
    found: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            found += unknown_paths(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, (list, tuple)):
        for index, item in enumerate(value):
            found += unknown_paths(item, f"{path}[{index}]")
    return found


def under(path: str, prefixes: list[str]) -> bool:
    """Whether `path` is one of `prefixes` or inside one of them (or contains one: a rule about
    `InstanceGroups` may be caused by an unknown `InstanceGroups[0].SlurmConfig`)."""
    for prefix in prefixes:
        if not prefix or path == prefix:
            return True
        if path.startswith(prefix) and path[len(prefix)] in ".[":
            return True
        if prefix.startswith(path) and (not path or prefix[len(path)] in ".["):
            return True
    return False
