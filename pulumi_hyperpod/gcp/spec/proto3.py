"""proto3 JSON's input rules for the scalar fields of a cluster spec.

The REST API parses bodies as proto3 JSON, which accepts a bool as `true` or the string `"true"`
and a 32- or 64-bit integer as a number or a decimal string (`"2"`; Google's own pages write
`"enable_public_ips": "true"`). A spec is read the same way: such strings become the value they
stand for here, before the (strict) types are checked, so `"yes"`, `2.5` or `"2.0"` are still refused.
"""

from __future__ import annotations

import re
from typing import Any

from pulumi_hyperpod.gcp.spec.keys import MAP_FIELDS

BOOL_FIELDS = frozenset({"enable_public_ips"})
INT_FIELDS = frozenset({"min_node_count", "max_node_count", "accelerator_count", "boot_disk_size_gb"})
# user data (maps) and the Slurm layer (its own rules) are not proto scalars of this message
_OPAQUE = MAP_FIELDS | {"slurm_spec", "lustre_export_config"}
_INTEGER = re.compile(r"-?[0-9]{1,19}")
_BOOLS = {"true": True, "false": False}


def scalars(value: Any) -> Any:
    """The snake_case document with proto3 JSON's string forms of bools and integers read as such."""
    if isinstance(value, list):
        return [scalars(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {key: _field(key, item) for key, item in value.items()}


def _field(key: str, value: Any) -> Any:
    if key in _OPAQUE:
        return value
    if key in BOOL_FIELDS and isinstance(value, str) and value in _BOOLS:
        return _BOOLS[value]
    if key in INT_FIELDS and isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    return scalars(value)
