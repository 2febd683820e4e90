"""Key spelling: AWS CLI JSON (PascalCase, as the model names members) or Python snake_case.

The service model decides the canonical name of every member (`VolumeSizeInGB`, `OnCreate`…), so a
snake_case key is matched to the member whose name is the same letters without underscores. Keys
that match no member are kept as written, so validation can name them as unknown. When one object
spells a member twice (`InstanceGroups` and `instance_groups`), neither silently wins: the model's
spelling (or else the first) takes the member's name, the other stays as written, and validation
refuses the pair, naming both keys.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pulumi_hyperpod.aws.servicemodel import fold as _fold


@lru_cache(maxsize=256)
def _member_index(shape) -> dict[str, str]:
    return {_fold(name): name for name in shape.members}


# Members the AWS documentation itself writes as "" to mean "not set": `"TrainingPlanArn": ""` for
# "no training plan" (seed 001), which no request could carry. Any other empty string is checked as
# written (an empty `OnCreate` is the model's "at least 1 character", not a way to remove it).
DOCUMENTED_EMPTY = frozenset({"TrainingPlanArn"})


def _empty_means_unset(parent, name: str, member, item: Any) -> bool:
    return (
        item == ""
        and name in DOCUMENTED_EMPTY
        and member.type_name == "string"
        and member.metadata.get("min", 0) > 0
        and name not in parent.required_members
    )


def _claims(index: dict[str, str], value: dict) -> dict[Any, str]:
    """Which key of `value` takes which member's name: the only spelling given is renamed; of two
    spellings of one member, only the model's own is (the other stays as written, and with two
    non-model spellings both do), so validation can name exactly the keys the user wrote."""
    spellings: dict[str, list[Any]] = {}
    for key in value:
        if isinstance(key, str) and _fold(key) in index:
            spellings.setdefault(index[_fold(key)], []).append(key)
    return {(keys[0] if len(keys) == 1 else name): name for name, keys in spellings.items() if len(keys) == 1 or name in keys}


def to_model_keys(shape, value: Any) -> Any:
    """`value` with every structure key spelled as the service model spells it (and empty
    optional strings dropped, see `_empty_means_unset`)."""
    if value is None:
        return None
    kind = shape.type_name
    if kind == "structure" and isinstance(value, dict):
        index = _member_index(shape)
        claimed = _claims(index, value)
        result: dict[str, Any] = {}
        for key, item in value.items():
            name = claimed.get(key, key)
            member = shape.members.get(name)
            if member is not None and _empty_means_unset(shape, name, member, item):
                continue
            result[name] = to_model_keys(member, item) if member is not None else item
        return result
    if kind == "list" and isinstance(value, (list, tuple)):
        return [to_model_keys(shape.member, item) for item in value]
    if kind == "map" and isinstance(value, dict):
        return {key: to_model_keys(shape.value, item) for key, item in value.items()}
    return value
