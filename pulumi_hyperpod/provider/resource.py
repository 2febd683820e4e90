"""`Cluster`: the Pulumi resource a program declares. Type `pulumi-python:dynamic/hyperpod:Cluster`.

The spec can be given three ways, merged in this order (later wins, per top-level field):
`spec=` (a dict in the AWS CLI `--cli-input-json` form, or a ClusterSpec), `spec_file=` (that JSON
or YAML on disk, read here in the program so a change to the file is a change to the inputs), and
the snake_case fields (`cluster_name=`, `instance_groups=`, …), which may hold Outputs of other
resources (an IAM role's ARN, a bucket's URI).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, fields
from typing import Any
from collections.abc import Mapping, Sequence

import pulumi
from pulumi.dynamic import Resource

from pulumi_hyperpod.provider.provider import ClusterProvider
from pulumi_hyperpod.provider.settings import SETTING_KEYS, policy_inputs

# The program imports this module to declare a cluster: it loads neither botocore and the service
# model, nor pydantic, nor a YAML parser. The spec is merged here by top-level field (the fields given
# as arguments in the model's spelling); the provider's `check` spells every other key as the model
# does, and validates (props.canonical_spec): the state holds the canonical spec, as before.

# The snake_case spec fields and the CreateCluster members they set (a test holds this to the model).
SPEC_MEMBERS = {
    "cluster_name": "ClusterName",
    "instance_groups": "InstanceGroups",
    "restricted_instance_groups": "RestrictedInstanceGroups",
    "vpc_config": "VpcConfig",
    "tags": "Tags",
    "orchestrator": "Orchestrator",
    "node_recovery": "NodeRecovery",
    "tiered_storage_config": "TieredStorageConfig",
    "node_provisioning_mode": "NodeProvisioningMode",
    "cluster_role": "ClusterRole",
    "auto_scaling": "AutoScaling",
}
SPEC_FIELDS = tuple(SPEC_MEMBERS)


@dataclass(slots=True)
class ClusterArgs:
    """Everything `Cluster` takes. Spec fields are the CreateCluster members in snake_case."""

    spec: pulumi.Input[Any] | None = None
    spec_file: str | None = None
    cluster_name: pulumi.Input[str] | None = None
    instance_groups: pulumi.Input[Sequence[pulumi.Input[Mapping[str, Any]]]] | None = None
    restricted_instance_groups: pulumi.Input[Sequence[Any]] | None = None
    vpc_config: pulumi.Input[Mapping[str, Any]] | None = None
    tags: pulumi.Input[Any] | None = None  # [{"Key":…, "Value":…}] or {key: value}
    orchestrator: pulumi.Input[Mapping[str, Any]] | None = None
    node_recovery: pulumi.Input[str] | None = None
    tiered_storage_config: pulumi.Input[Mapping[str, Any]] | None = None
    node_provisioning_mode: pulumi.Input[str] | None = None
    cluster_role: pulumi.Input[str] | None = None
    auto_scaling: pulumi.Input[Mapping[str, Any]] | None = None
    # how the provider reaches and waits on the cluster
    backend: pulumi.Input[str] | None = None  # "aws" (default) or "fake" (the simulator)
    region: pulumi.Input[str] | None = None
    profile: pulumi.Input[str] | None = None
    policy: Any | None = None  # a Policy or its fields as a dict
    wait: str | None = None  # none | InService (default) | MinCount | Target
    timeout: float | None = None  # seconds, default 1200, at most 1680
    adopt: bool | None = None  # take over an existing cluster of that name
    roles: Mapping[str, str] | None = None  # Slurm role by group ("Controller"|"Login"|"Compute") where NodeType is not set


class ClusterOutputs:
    """What a cluster resource outputs: the dynamic `Cluster` and the native `NativeCluster` alike."""

    cluster_name: pulumi.Output[str]
    arn: pulumi.Output[str]
    status: pulumi.Output[str]
    failure_message: pulumi.Output[str | None]
    continuous: pulumi.Output[bool]
    orchestrator: pulumi.Output[str]
    groups: pulumi.Output[dict[str, Any]]  # name → target_count, current_count, min_count, status, node_type, instance_types
    node_count: pulumi.Output[int]
    target_count: pulumi.Output[int]
    pending_count: pulumi.Output[int]
    location: pulumi.Output[dict[str, Any]]
    spec: pulumi.Output[dict[str, Any]]


# The outputs the provider fills in (the spec is the checked input, echoed).
OUTPUTS = tuple(name for name in ClusterOutputs.__annotations__ if name != "spec")


class Cluster(Resource, ClusterOutputs, module="hyperpod", name="Cluster"):
    """A SageMaker HyperPod cluster, planned and applied by pulumi-hyperpod."""

    def __init__(
        self,
        resource_name: str,
        args: ClusterArgs | None = None,
        opts: pulumi.ResourceOptions | None = None,
        **kwargs: Any,
    ) -> None:
        merged = _merge_args(args, kwargs)
        props: dict[str, Any] = {name: None for name in OUTPUTS}
        props["spec"] = build_spec(merged)
        for key in SETTING_KEYS:
            value = getattr(merged, key)
            if value is not None:
                props[key] = policy_inputs(value) if _is_policy(value) else value
        super().__init__(ClusterProvider(), resource_name, props, opts)


def _merge_args(args: ClusterArgs | None, kwargs: dict[str, Any]) -> ClusterArgs:
    known = {f.name for f in fields(ClusterArgs)}
    unknown = sorted(set(kwargs) - known)
    if unknown:
        raise TypeError(f"Cluster got unexpected argument(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    base = {f.name: getattr(args, f.name) for f in fields(ClusterArgs)} if args is not None else {}
    base.update({k: v for k, v in kwargs.items() if v is not None})
    return ClusterArgs(**base)


def build_spec(args: ClusterArgs) -> pulumi.Input[Any]:
    """One spec dict from spec=, spec_file= and the snake_case fields (later wins, per top-level field)."""
    base: Any = {}
    spec: Any = args.spec
    if _is_cluster_spec(spec):
        base = spec.to_api()
    elif args.spec is not None:
        base = args.spec
    if args.spec_file is not None:
        from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML: only a program that names a spec file reads one (test_program_lean); the CLI's reader: same limits, same one-line errors

        loaded = read_document(args.spec_file)
        base = _later_wins(base, loaded) if isinstance(base, Mapping) else loaded
    overrides = {member: getattr(args, name) for name, member in SPEC_MEMBERS.items() if getattr(args, name) is not None}
    if isinstance(overrides.get("Tags"), Mapping):
        overrides["Tags"] = [{"Key": k, "Value": v} for k, v in overrides["Tags"].items()]
    if isinstance(base, pulumi.Output):
        merged: pulumi.Output[dict[str, Any]] = pulumi.Output.all(base, pulumi.Output.from_input(overrides)).apply(
            lambda both: _later_wins(*both)
        )
        return merged
    result: Any = _later_wins(base, overrides)  # not a dict when spec is not an object: check reports it
    return result


def _later_wins(*sources: Any) -> Any:
    """The sources merged per top-level field, a later source replacing every spelling of a field
    the earlier ones gave (`cluster_name=` replaces a spec's `ClusterName`). Keys name the same field
    when they `fold` alike, as `check` matches them to the model's members. Within one source, keys
    stay as written, so a field spelled twice there is refused by `check`, naming both."""
    merged: dict[Any, Any] = {}
    for source in sources:
        if not isinstance(source, Mapping):
            return source  # not an object: `check` says so
        if merged and source:  # something to replace (a component gives one source: its spec)
            from pulumi_hyperpod.aws.servicemodel import fold  # noqa: PLC0415 - the service model: only a program that merges spec sources loads it (test_program_lean)

            given = {fold(key) if isinstance(key, str) else key for key in source}
            merged = {key: value for key, value in merged.items() if (fold(key) if isinstance(key, str) else key) not in given}
        merged.update(source)
    return merged


def _is_cluster_spec(value: Any) -> bool:
    """A ClusterSpec exists only once its module is loaded: a program passing dicts (the
    components) does not import the spec models for this check."""
    models = sys.modules.get("pulumi_hyperpod.aws.spec.models")
    return models is not None and isinstance(value, models.ClusterSpec)


def _is_policy(value: Any) -> bool:
    """A Policy instance exists only once pydantic and its module are loaded (as `_is_cluster_spec`)."""
    policy = sys.modules.get("pulumi_hyperpod.plans.policy")
    return policy is not None and isinstance(value, policy.Policy)
