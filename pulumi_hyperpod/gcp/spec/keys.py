"""Field spelling: the REST API accepts proto field names (snake_case) and their JSON names
(lowerCamel). Specs may use either, field by field; one field spelled both ways is an error.

Maps whose keys are user data (slurm.conf `config`, `labels`) are copied as they are.
"""

from __future__ import annotations

import re
from typing import Any

MAP_FIELDS = frozenset({"config", "labels"})
_UPPER = re.compile(r"(?<!^)([A-Z])")


class SpellingError(ValueError):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}" if path else message)
        self.path = path
        self.rule = message


def snake(key: str) -> str:
    return _UPPER.sub(r"_\1", key).lower()


def camel(key: str) -> str:
    head, *rest = key.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _join(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else key)


def to_snake(value: Any, path: str = "") -> Any:
    """The same document with every field name in snake_case (map keys untouched)."""
    if isinstance(value, list):
        return [to_snake(item, _join(path, i)) for i, item in enumerate(value)]
    if not isinstance(value, dict):
        return value
    result: dict[str, Any] = {}
    spelled: dict[str, str] = {}
    for key, item in value.items():
        if not isinstance(key, str):
            raise SpellingError(path, f"field names are strings, got {key!r}")
        name = snake(key)
        if name in spelled:
            raise SpellingError(_join(path, name), f"given twice, as {spelled[name]!r} and {key!r}: use one spelling")
        spelled[name] = key
        result[name] = item if name in MAP_FIELDS else to_snake(item, _join(path, name))
    return result


def to_camel(value: Any) -> Any:
    """The JSON names the API returns (lowerCamel), map keys untouched."""
    if isinstance(value, list):
        return [to_camel(item) for item in value]
    if not isinstance(value, dict):
        return value
    return {camel(k): (v if k in MAP_FIELDS else to_camel(v)) for k, v in value.items()}
