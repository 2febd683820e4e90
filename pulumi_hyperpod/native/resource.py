"""`NativeCluster`: the native `hyperpod:index:Cluster` declared from a Python program.

The same arguments as the dynamic `pulumi_hyperpod.provider.Cluster` (snake_case here, camelCase
on the wire), so moving a program from one to the other changes the class and nothing else
(docs/native-provider.md, "Migration"). The resource is served by the `hyperpod` plugin
(`pulumi-resource-hyperpod`), not by this process: it can be imported (`import_=`), shows a
per-field diff, and nothing is pickled into the state.
"""

from __future__ import annotations

import re
from typing import Any, Optional

import pulumi

from ..provider.resource import ClusterOutputs
from .core import OUTPUTS, SETTING_KEYS, SPEC_FIELDS

TYPE = "hyperpod:index:Cluster"
INPUTS = ("spec", "spec_file", *SPEC_FIELDS, *SETTING_KEYS)


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _snake(name: str) -> str:
    """camelCase → snake_case; the spec's PascalCase (AWS) names stay as they are."""
    if not name[:1].islower():
        return name
    return re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)


class NativeCluster(pulumi.CustomResource, ClusterOutputs):
    """A SageMaker HyperPod cluster managed by the native `hyperpod` provider."""

    def __init__(self, resource_name: str, opts: Optional[pulumi.ResourceOptions] = None, **args: Any) -> None:
        unknown = sorted(set(args) - set(INPUTS))
        if unknown:
            raise TypeError(f"NativeCluster got unexpected argument(s) {', '.join(unknown)}; known: {', '.join(INPUTS)}")
        props: dict[str, Any] = {_camel(name): None for name in OUTPUTS}
        props.update({_camel(k): _policy(v) if k == "policy" else v for k, v in args.items() if v is not None})
        super().__init__(TYPE, resource_name, props, opts)

    def translate_output_property(self, prop: str) -> str:
        return _snake(prop)


def _policy(policy: Any) -> Any:
    """A Policy or its fields (snake_case) as the wire's object (camelCase)."""
    if hasattr(policy, "model_dump"):
        policy = policy.model_dump(mode="json", exclude_defaults=True)
    if isinstance(policy, dict):
        return {_camel(k): v for k, v in policy.items()}
    return policy
