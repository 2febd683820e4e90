"""Translation between the engine's property maps and the dynamic provider's property bags.

On the wire (schema.json) properties are camelCase, as in every Pulumi package (`clusterName`,
`instanceGroups`, `policy.maxScaleInFraction`, `groups.<name>.targetCount`); the dynamic provider's
bags use snake_case. The spec itself is the AWS API form (PascalCase) on both sides and is never
renamed. Values: secrets travel as the SDK's `rpc` secret wrappers, values not known yet as the
`rpc.UNKNOWN` sentinel (what the dynamic provider receives from its own SDK), numbers as floats.

Also here: the detailed diff, per property path, that the engine shows under an update and matches
`replaceOnChanges` against.
"""

from __future__ import annotations

import re
from typing import Any
from collections.abc import Iterable, Mapping

from pulumi.provider.experimental.property_value import Computed, PropertyValue
from pulumi.provider.experimental.provider import PropertyDiff, PropertyDiffKind
from pulumi.runtime import rpc

from pulumi_hyperpod.native import core
from pulumi_hyperpod.native.core import is_unknown, plain

# Inputs the program passes: the spec in its three forms, then how to reach and wait on it.
SPEC_INPUTS: tuple[str, ...] = ("spec", "spec_file", *core.SPEC_FIELDS)
SETTING_INPUTS: tuple[str, ...] = tuple(core.SETTING_KEYS)
# What `check` keeps (the spec folded into one canonical `spec`), so what the state's inputs hold.
STORED_INPUTS: tuple[str, ...] = ("spec", *SETTING_INPUTS)
OUTPUTS: tuple[str, ...] = tuple(core.OUTPUTS)
# The dynamic provider's pickled provider, in a state the dynamic Cluster wrote.
DYNAMIC_STATE_KEY = "__provider"
# Nested objects whose keys are renamed too (the spec is not: it is the AWS form on both sides).
_RENAMED_MEMBERS = ("policy", "location")


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


# ---- values ---------------------------------------------------------------------------------
def to_python(value: PropertyValue) -> Any:
    inner = value.value
    if isinstance(inner, Computed):
        result: Any = rpc.UNKNOWN
    elif isinstance(inner, Mapping):
        result = {k: to_python(v) for k, v in inner.items()}
    elif isinstance(inner, (tuple, list)):
        result = [to_python(v) for v in inner]
    elif inner is None or isinstance(inner, (bool, float, str)):
        result = inner
    else:
        raise ValueError(f"hyperpod:index:Cluster takes no {type(inner).__name__} values (assets and resource references)")
    return rpc.wrap_rpc_secret(result) if value.is_secret else result


def to_property(value: Any) -> PropertyValue:
    if rpc.is_rpc_secret(value):
        return to_property(rpc.unwrap_rpc_secret(value)).with_secret(True)
    if is_unknown(value):
        return PropertyValue.computed()
    if value is None or isinstance(value, (bool, float, str)):
        return PropertyValue(value)
    if isinstance(value, int):
        return PropertyValue(float(value))
    if isinstance(value, Mapping):
        return PropertyValue({str(k): to_property(v) for k, v in value.items()})
    if isinstance(value, (list, tuple, set, frozenset)):
        return PropertyValue([to_property(v) for v in value])
    raise TypeError(f"cannot send a {type(value).__name__} to the engine")


def _rename_keys(value: Any, rename) -> Any:
    if rpc.is_rpc_secret(value):
        return rpc.wrap_rpc_secret(_rename_keys(rpc.unwrap_rpc_secret(value), rename))
    if isinstance(value, Mapping):
        return {rename(k): v for k, v in value.items()}
    return value


def _rename_groups(value: Any, rename) -> Any:
    if rpc.is_rpc_secret(value):
        return rpc.wrap_rpc_secret(_rename_groups(rpc.unwrap_rpc_secret(value), rename))
    if isinstance(value, Mapping):
        return {name: _rename_keys(status, rename) for name, status in value.items()}  # group names stay
    return value


# ---- property maps ----------------------------------------------------------------------------
def bag_from_wire(properties: Mapping[str, PropertyValue]) -> dict[str, Any]:
    """An engine property map (inputs or state) as a dynamic-provider bag (snake_case keys)."""
    bag: dict[str, Any] = {}
    for key, value in properties.items():
        name = key if key.startswith("__") else snake(key)
        python = to_python(value)
        if name in _RENAMED_MEMBERS:
            python = _rename_keys(python, snake)
        elif name == "groups":
            python = _rename_groups(python, snake)
        bag[name] = python
    return bag


def bag_to_wire(bag: Mapping[str, Any]) -> dict[str, PropertyValue]:
    result: dict[str, PropertyValue] = {}
    for name, value in bag.items():
        if name in _RENAMED_MEMBERS:
            value = _rename_keys(value, camel)
        elif name == "groups":
            value = _rename_groups(value, camel)
        result[camel(name)] = to_property(value)
    return result


def unknown_inputs(bag: Mapping[str, Any]) -> list[str]:
    """Input names the resource does not take (a typo in a YAML program, say), as written."""
    known = set(SPEC_INPUTS) | set(SETTING_INPUTS)
    return sorted(camel(k) for k in bag if k not in known)


def path_to_wire(path: str) -> str:
    """A failure's property path in the program's spelling: `policy.max_scale_in_fraction` →
    `policy.maxScaleInFraction`; spec paths are the AWS names and stay."""
    head, dot, rest = path.partition(".")
    if head == "policy" and rest:
        first, sep, tail = rest.partition(".")
        return f"policy.{camel(first)}{sep}{tail}"
    return camel(head) + dot + rest


# ---- detailed diff ----------------------------------------------------------------------------
_SET_LISTS = {"SecurityGroupIds", "Subnets", "Tags", "protected_node_ids"}


def detailed_diff(olds: Mapping[str, Any], news: Mapping[str, Any], replaces: Iterable[str], changes: bool) -> dict[str, PropertyDiff]:
    """Per property path: what changed between the stored inputs and the new ones, and whether it
    forces a replacement (a path at, under or over one of `replaces`). Instance groups are matched
    by name and unordered lists (subnets, security groups, tags) compared as sets, as the
    dynamic provider's diff does, so a reordering shows nothing."""
    replaced = [path_to_wire(p) for p in replaces]
    found: dict[str, PropertyDiffKind] = {}
    for name in STORED_INPUTS:
        _walk(plain(olds.get(name)), plain(news.get(name)), camel(name), name, found)
    result = {path: PropertyDiff(_replacing(kind, path, replaced), True) for path, kind in found.items()}
    for path in replaced:  # a replacement the inputs do not show (another region from the config, a Failed cluster)
        if not any(_related(path, p) for p in result):
            result[path] = PropertyDiff(PropertyDiffKind.UPDATE_REPLACE, False)
    if changes and not result:  # drift: the live cluster differs from the stored spec
        result["spec"] = PropertyDiff(PropertyDiffKind.UPDATE, False)
    return result


def _walk(old: Any, new: Any, path: str, key: str, found: dict[str, PropertyDiffKind]) -> None:
    if old == new:
        return
    if old is None:
        found[path] = PropertyDiffKind.ADD
    elif new is None:
        found[path] = PropertyDiffKind.DELETE
    elif isinstance(old, Mapping) and isinstance(new, Mapping) and not is_unknown(new):
        for k in dict.fromkeys([*old, *new]):
            _walk(old.get(k), new.get(k), f"{path}.{camel(k) if path.startswith('policy') else k}", k, found)
    elif isinstance(old, list) and isinstance(new, list):
        if key in _SET_LISTS and _same_set(old, new):
            return
        if key == "InstanceGroups":
            _walk_groups(old, new, path, found)
            return
        if key in _SET_LISTS or len(old) != len(new):
            found[path] = PropertyDiffKind.UPDATE
            return
        for i, (a, b) in enumerate(zip(old, new, strict=True)):  # the lengths were compared above
            _walk(a, b, f"{path}[{i}]", key, found)
    else:
        found[path] = PropertyDiffKind.UPDATE


def _walk_groups(old: list, new: list, path: str, found: dict[str, PropertyDiffKind]) -> None:
    def by_name(groups: list) -> dict[str, tuple[int, Any]]:
        return {(g.get("InstanceGroupName") if isinstance(g, Mapping) else None) or f"#{i}": (i, g) for i, g in enumerate(groups)}

    olds, news = by_name(old), by_name(new)
    for name, (i, group) in news.items():
        if name not in olds:
            found[f"{path}[{i}]"] = PropertyDiffKind.ADD
        else:
            _walk(olds[name][1], group, f"{path}[{i}]", "group", found)
    for name, (i, _group) in olds.items():
        if name not in news:
            found[f"{path}[{i}]"] = PropertyDiffKind.DELETE


def _same_set(a: list, b: list) -> bool:
    return sorted(map(repr, a)) == sorted(map(repr, b))


def _related(a: str, b: str) -> bool:
    return a == b or b.startswith(a + ".") or b.startswith(a + "[") or a.startswith(b + ".") or a.startswith(b + "[")


def _replacing(kind: PropertyDiffKind, path: str, replaced: list[str]) -> PropertyDiffKind:
    if not any(_related(r, path) for r in replaced):
        return kind
    return {
        PropertyDiffKind.ADD: PropertyDiffKind.ADD_REPLACE,
        PropertyDiffKind.DELETE: PropertyDiffKind.DELETE_REPLACE,
    }.get(kind, PropertyDiffKind.UPDATE_REPLACE)
