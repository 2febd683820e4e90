"""A simulator answer in the form botocore's JSON parser gives it, made without the JSON in between.

A client the simulator makes in this process (`Simulator.client()`) still sends every request through
botocore — serialization, signing, `before-send`, retries, error parsing — but a successful answer does
not travel as JSON text to be decoded and walked shape by shape again: `before-send` returns an empty
`{}` body, and `before-parse` (botocore's hook for customized responses) adds the answer converted here.
A 5,000-node ListClusterNodes walk so skips 50 JSON encodings and decodings and about 45,000 parser
calls; errors (any status ≥ 300) still go as JSON through botocore's error parser.

The conversion is botocore's `BaseJSONParser` rule for rule (tests/unit/sim/aws/test_parsed.py runs both
over the same answers): members in model order under their serialized names, None members left out,
lists and maps copied, timestamps through the session's timestamp parser, blobs base64-decoded,
document members deep-copied, an unknown tagged-union member reported as `SDK_UNKNOWN_MEMBER`. Every
container is new, as JSON decoding would make it, so a caller never holds a piece of the world.
"""

from __future__ import annotations

import base64
import copy
import threading
from typing import Any, Callable, Optional

from botocore.parsers import ResponseParserError

from pulumi_hyperpod.aws.sessions import parse_timestamp

Convert = Callable[[Any], Any]

_lock = threading.Lock()
_COMPILED: dict[tuple[str, str], Convert] = {}  # (service, output shape) → its converter


def converter(service: str, shape: Any) -> Convert:
    """The function turning an answer of output shape `shape` into botocore's parsed form (compiled once)."""
    key = (service, shape.name)
    compiled = _COMPILED.get(key)
    if compiled is None:
        with _lock:
            compiled = _COMPILED[key] = _structure(shape, {})
    return compiled


def _compile(shape: Any, memo: dict[str, Convert]) -> Optional[Convert]:
    """None: the value is botocore's parsed form already (strings, numbers, booleans)."""
    kind = shape.type_name
    if kind == "structure":
        return copy.deepcopy if shape.is_document_type else _structure(shape, memo)
    if kind == "list":
        return _list(_compile(shape.member, memo))
    if kind == "map":
        return _map(_compile(shape.key, memo), _compile(shape.value, memo))
    if kind == "timestamp":
        return parse_timestamp
    if kind == "blob":
        return base64.b64decode
    return None


def _structure(shape: Any, memo: dict[str, Convert]) -> Convert:
    if shape.name in memo:  # a recursive shape: the converter being built
        return memo[shape.name]
    built: list[Convert] = []
    memo[shape.name] = lambda value: built[0](value)
    members = [(name, member.serialization.get("name", name), _compile(member, memo)) for name, member in shape.members.items()]
    union = bool(shape.is_tagged_union)
    wire_names = {wire for _, wire, _ in members}

    def structure(value: Any) -> Any:
        if value is None:
            return None
        if union and _unknown_member(shape.name, value, wire_names):
            return {"SDK_UNKNOWN_MEMBER": {"name": next(iter(value))}}
        parsed = {}
        for name, wire, convert in members:
            raw = value.get(wire)
            if raw is not None:
                parsed[name] = raw if convert is None else convert(raw)
        return parsed

    built.append(structure)
    memo[shape.name] = structure
    return structure


def _unknown_member(name: str, value: dict, wire_names: set[str]) -> bool:
    """botocore's `_has_unknown_tagged_union_member`: exactly one member set, and not one this model knows."""
    present = [key for key, item in value.items() if key != "__type" and item is not None]
    if len(present) != 1:
        raise ResponseParserError(f"Invalid service response: {name} must have one and only one member set.")
    return present[0] not in wire_names


def _list(member: Optional[Convert]) -> Convert:
    if member is None:
        return list
    return lambda value: [None if item is None else member(item) for item in value]


def _map(key: Optional[Convert], item: Optional[Convert]) -> Convert:
    if key is None and item is None:
        return dict
    return lambda value: {(k if key is None else key(k)): (v if item is None else item(v)) for k, v in value.items()}


__all__ = ["converter"]
