"""`NativeCluster`: the native `hyperpod:index:Cluster` declared from a Python program.

The same arguments as the dynamic `pulumi_hyperpod.provider.Cluster` (snake_case here, camelCase
on the wire), so moving a program from one to the other changes the class and nothing else
(docs/native-provider.md, "Migration"). The resource is served by the `hyperpod` plugin
(`pulumi-resource-hyperpod`), not by this process: it can be imported (`import_=`), shows a
per-field diff, and nothing is pickled into the state.

Names are translated the way generated Pulumi SDKs do it, by type metadata: the properties are an
`@pulumi.input_type` keyed by the Python names, each output a `pulumi.getter(name=<wire name>)`.
The SDK then creates each output under its Python name and files the engine's camelCase answer
there, at the top level only. (`translate_output_property` cannot do this: the SDK creates the
outputs under the names the properties were *sent* with, and applies the translation to every
key at every depth, group names and spec keys included.) The nested keys the dynamic `Cluster`
spells in snake_case (`groups.<name>.target_count`, `policy`, `location`) are renamed by the
getters, so the outputs are the dynamic `Cluster`'s, value for value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

import pulumi

from pulumi_hyperpod.provider.resource import OUTPUTS, SPEC_FIELDS, ClusterOutputs
from pulumi_hyperpod.provider.settings import SETTING_KEYS

TYPE = "hyperpod:index:Cluster"
INPUTS = ("spec", "spec_file", *SPEC_FIELDS, *SETTING_KEYS)
# Outputs only a preview fills in: `plan`, the plan JSON the update would run (policies/README.md).
PREVIEW_OUTPUTS = ("plan",)
# Every property of the resource in schema.json (tests/unit/native/test_resource.py holds them to it).
PROPERTIES = ("spec", *SETTING_KEYS, *OUTPUTS, *PREVIEW_OUTPUTS)
# Integer outputs: the wire carries numbers as doubles; the getter's type makes them ints again.
_INTEGERS = ("node_count", "target_count", "pending_count")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _snake_keys(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {_snake(k): v for k, v in value.items()}
    return value


def _snake_groups(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {name: _snake_keys(group) for name, group in value.items()}  # group names stay as written
    return value


# The outputs whose members the dynamic `Cluster` spells in snake_case (the spec keeps the AWS names).
_NESTED: dict[str, Callable[[Any], Any]] = {"groups": _snake_groups, "policy": _snake_keys, "location": _snake_keys}


class _Properties(dict):
    """What the resource sends: keyed by Python names; the type metadata gives the wire names."""

    def __init__(self, values: Mapping[str, Any]) -> None:  # else the SDK adds one taking keywords
        super().__init__(values)


class NativeCluster(pulumi.CustomResource, ClusterOutputs):
    """A SageMaker HyperPod cluster managed by the native `hyperpod` provider."""

    def __init__(self, resource_name: str, opts: pulumi.ResourceOptions | None = None, **args: Any) -> None:
        unknown = sorted(set(args) - set(INPUTS))
        if unknown:
            raise TypeError(f"NativeCluster got unexpected argument(s) {', '.join(unknown)}; known: {', '.join(INPUTS)}")
        props = _Properties({name: None for name in PROPERTIES})
        props.update({k: _policy(v) if k == "policy" else v for k, v in args.items() if v is not None})
        super().__init__(TYPE, resource_name, props, opts)


def _getter(name: str, returns: Any, rename: Callable[[Any], Any] | None = None) -> property:
    """A property read by `pulumi.get` under its Python name, declared under its wire name."""

    def read(self: Any) -> Any:
        value = pulumi.get(self, name)
        return value.apply(rename) if rename is not None and value is not None else value

    read.__name__ = name
    read.__annotations__ = {"return": returns}
    return property(pulumi.getter(name=_camel(name))(read))


# The getters go on before `input_type` runs and before the first resource: the SDK reads (and
# caches) a class's getters once.
for _name in dict.fromkeys((*INPUTS, *PROPERTIES)):
    setattr(_Properties, _name, _getter(_name, Any))
_Properties = pulumi.input_type(_Properties)
for _name in PROPERTIES:
    setattr(NativeCluster, _name, _getter(_name, pulumi.Output[int] if _name in _INTEGERS else pulumi.Output[Any], _NESTED.get(_name)))


def _policy(policy: Any) -> Any:
    """A Policy or its fields (snake_case) as the wire's object (camelCase): nested keys are sent
    as written."""
    if hasattr(policy, "model_dump"):
        policy = policy.model_dump(mode="json", exclude_defaults=True)
    if isinstance(policy, dict):
        return {_camel(k): v for k, v in policy.items()}
    return policy
