"""botocore's `sagemaker` service model as the contract.

Limits, enums and patterns are read from the model, never copied into our code (STYLE.md:
behaviour from data). botocore itself only checks types and required members client-side; the
service checks the rest. `violations()` is that server-side check, shared by the spec (before any
call is made) and the simulator (which answers ValidationException like the real service).
"""

from __future__ import annotations

import datetime as _dt
import difflib
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Iterator

import botocore.session
import regex  # botocore patterns use \p{L}-style classes, which `re` does not know

SERVICE = "sagemaker"


@dataclass(frozen=True)
class Violation:
    """One broken rule: where (a field path such as `InstanceGroups[2].MinInstanceCount`) and why."""

    path: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path}: {self.rule}" if self.path else self.rule


@lru_cache(maxsize=1)
def botocore_session():
    """The process's botocore session; clients share its loader, so each model file is read once."""
    return botocore.session.get_session()


@lru_cache(maxsize=1)
def service_model():
    return botocore_session().get_service_model(SERVICE)


def input_shape(operation: str):
    return service_model().operation_model(operation).input_shape


def output_shape(operation: str):
    return service_model().operation_model(operation).output_shape


def shape(name: str):
    return service_model().shape_for(name)


def member_shape(structure: str, *path: str):
    """The shape at `structure.member.member…` (lists step into their member)."""
    current = shape(structure)
    for name in path:
        if current.type_name == "list":
            current = current.member
        current = current.members[name]
    return current


def limit(structure: str, *path: str, key: str = "max") -> int:
    """A numeric limit of the model, e.g. limit("BatchAddClusterNodesRequest", "NodesToAdd")."""
    return member_shape(structure, *path).metadata[key]


# Limits the API reference states in words, which the model's numbers alone do not carry:
# - BatchAddClusterNodes.NodesToAdd: "up to 5 instance groups in a single request, with a maximum of
#   50 nodes total across all instance groups";
# - BatchDeleteClusterNodes.NodeIds: "If you need to delete more than 99 instances, contact Support";
# - BatchDeleteClusterNodes.NodeLogicalIds: "up to 50 NodeLogicalIds … NodeLogicalIds, InstanceIds,
#   or both, with a combined maximum of 50 identifiers".
_DOCUMENTED = {"add_total": 50, "delete_ids": 99, "delete_logical_ids": 50, "delete_combined": 50}


def api_limits() -> dict[str, int]:
    """Per-call limits: the service model's numbers (STYLE.md: behaviour from data), tightened by
    what its documentation states in words; a botocore upgrade that lowers a number still wins."""
    model = {
        "add_increment": limit("AddClusterNodeSpecification", "IncrementTargetCountBy"),
        "add_entries": limit("BatchAddClusterNodesRequest", "NodesToAdd"),
        "add_total": limit("AddClusterNodeSpecification", "IncrementTargetCountBy"),
        "delete_ids": limit("BatchDeleteClusterNodesRequest", "NodeIds"),
        "delete_logical_ids": limit("BatchDeleteClusterNodesRequest", "NodeLogicalIds"),
        "delete_combined": limit("BatchDeleteClusterNodesRequest", "NodeLogicalIds"),
    }
    return {key: min(value, _DOCUMENTED.get(key, value)) for key, value in model.items()}


def enum(structure: str, *path: str) -> list[str]:
    return list(member_shape(structure, *path).enum)


@lru_cache(maxsize=512)
def _compiled(pattern: str):
    return regex.compile(pattern)


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def violations(shape_or_operation, params: Any, path: str = "", *, check_required: bool = True) -> list[Violation]:
    """Every way `params` breaks the model's rules for the shape (or an operation's input)."""
    target = shape_or_operation
    if isinstance(shape_or_operation, str):
        model = service_model()
        if shape_or_operation in model.operation_names:
            target = input_shape(shape_or_operation)
        else:
            target = shape(shape_or_operation)
    return list(_check(target, params, path, check_required))


def _check(shp, value: Any, path: str, check_required: bool) -> Iterator[Violation]:
    kind = shp.type_name
    meta = shp.metadata
    if kind == "structure":
        if not isinstance(value, dict):
            yield Violation(path, f"must be an object, got {type(value).__name__}")
            return
        if check_required:
            for name in shp.required_members:
                if value.get(name) is None:
                    yield Violation(_join(path, name), "is required")
        for name, item in value.items():
            if name not in shp.members:
                allowed = ", ".join(shp.members)
                yield Violation(_join(path, name), f"is not a known field (allowed: {allowed})")
                continue
            if item is None:
                continue
            yield from _check(shp.members[name], item, _join(path, name), check_required)
    elif kind == "list":
        if not isinstance(value, (list, tuple)):
            yield Violation(path, f"must be a list, got {type(value).__name__}")
            return
        yield from _sized(meta, len(value), path, "items")
        for index, item in enumerate(value):
            yield from _check(shp.member, item, f"{path}[{index}]", check_required)
    elif kind == "map":
        if not isinstance(value, dict):
            yield Violation(path, f"must be an object, got {type(value).__name__}")
            return
        yield from _sized(meta, len(value), path, "entries")
        for key, item in value.items():
            yield from _check(shp.key, key, f"{path}[{key!r}]", check_required)
            yield from _check(shp.value, item, f"{path}[{key!r}]", check_required)
    elif kind == "string":
        if not isinstance(value, str):
            yield Violation(path, f"must be a string, got {type(value).__name__}")
            return
        yield from _sized(meta, len(value), path, "characters")
        if shp.enum and value not in shp.enum:
            yield Violation(path, _enum_rule(shp.enum, value))
        pattern = meta.get("pattern")
        if pattern and value and not _compiled(pattern).fullmatch(value):
            yield Violation(path, f"{_describe(value)} does not match the pattern {pattern}")
    elif kind in ("integer", "long"):
        if isinstance(value, bool) or not isinstance(value, int):
            yield Violation(path, f"must be a whole number, got {_describe(value)}")
            return
        if "min" in meta and value < meta["min"]:
            yield Violation(path, f"must be at least {meta['min']}; got {value}")
        if "max" in meta and value > meta["max"]:
            yield Violation(path, f"must be at most {meta['max']}; got {value}")
    elif kind == "boolean":
        if not isinstance(value, bool):
            yield Violation(path, f"must be true or false, got {_describe(value)}")
    elif kind == "timestamp":
        if not isinstance(value, (_dt.datetime, int, float, str)):
            yield Violation(path, f"must be a timestamp, got {_describe(value)}")


def _enum_rule(allowed: list[str], value: str) -> str:
    if len(allowed) <= 12:
        return f"must be one of {', '.join(allowed)}; got {_describe(value)}"
    close = difflib.get_close_matches(value, allowed, n=3)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"{_describe(value)} is not one of the {len(allowed)} values the service accepts{hint}"


def _sized(meta: dict, size: int, path: str, unit: str) -> Iterator[Violation]:
    if "min" in meta and size < meta["min"]:
        yield Violation(path, f"must have at least {meta['min']} {unit}; has {size}")
    if "max" in meta and size > meta["max"]:
        yield Violation(path, f"must have at most {meta['max']} {unit}; has {size}")
