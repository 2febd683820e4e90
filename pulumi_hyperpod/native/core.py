"""The native provider's one door into the CloudProvider (provider/cloud_provider.py), which the
dynamic `Cluster` calls too: every decision is made behind it.

The native provider (`hyperpod:index:Cluster`) must behave exactly like the dynamic `Cluster`:
same checks, same plan in the preview, same guards, same waits. So it does not wire observe →
plan → preflight → apply itself, nor go through the dynamic provider: it calls the CloudProvider
over HyperPod's adapter (provider/aws_adapter.py), through this module only.

Everything here speaks the adapter's language: property bags with snake_case keys, secrets as
`rpc` secret wrappers, values not known yet as the `rpc.UNKNOWN` sentinel. `wire.py` translates
the gRPC property maps to and from it.
"""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.provider import console, props
from pulumi_hyperpod.provider.aws_adapter import AwsAdapter
from pulumi_hyperpod.provider.cloud_provider import CloudProvider, PlanUnknown
from pulumi_hyperpod.provider.errors import ProviderError
from pulumi_hyperpod.provider.resource import OUTPUTS, SPEC_FIELDS, ClusterArgs, build_spec
from pulumi_hyperpod.provider.settings import SETTING_KEYS, Defaults, Location, Settings, check_settings
from pulumi_hyperpod.provider.unknowns import is_unknown
from pulumi_hyperpod.provider.worlds import open_backend
from pulumi_hyperpod.aws.spec import SpecError
from pulumi_hyperpod.native.resource import PREVIEW_OUTPUTS
import json
from pulumi_hyperpod.core import cloud

__all__ = [
    "OUTPUTS",
    "PREVIEW_OUTPUTS",
    "SETTING_KEYS",
    "SPEC_FIELDS",
    "ProviderError",
    "SpecError",
    "check",
    "create",
    "delete",
    "diff",
    "has_secret",
    "is_unknown",
    "merged_spec",
    "new_provider",
    "observe_by_id",
    "plain",
    "preview_plan",
    "read",
    "set_output",
    "settings_inputs",
    "spec_canonical",
    "state_outputs",
    "update",
]


# The `format` of the document `plan` holds when no plan can be made (policies deny it: unknown is not safe).
PLAN_UNKNOWN_FORMAT = "hyperpod-plan-unknown/1"


def new_provider(config: Mapping[str, str] | None = None, simulator: str | None = None) -> CloudProvider:
    """A configured provider. `config` uses the dynamic provider's stack-config keys
    (`hyperpod:backend`, `hyperpod:region`, `hyperpod:profile`); `simulator` is the name of an
    in-memory simulator registered with `provider.worlds` (tests)."""
    return CloudProvider(AwsAdapter(simulator, Defaults.from_config(dict(config or {})), front="native"))


def _aws(provider: CloudProvider) -> AwsAdapter:
    adapter = provider.adapter
    assert isinstance(adapter, AwsAdapter)
    return adapter


def set_output(sink: console.Sink | None) -> None:
    """Where the provider's plans and progress lines go (`console.say`): each block of lines, and
    whether it is progress."""
    console.set_sink(sink)


def say(text: str, cluster: str | None) -> None:
    console.say(text, cluster)


def cluster_name(bag: Mapping[str, Any]) -> str | None:
    return props.cluster_name(bag)


def merged_spec(fields: Mapping[str, Any]) -> Any:
    """`spec`, `spec_file` and the snake_case spec fields merged into one spec, as the dynamic
    `Cluster` does in the program (`resource.build_spec`). Raises SpecError for an unreadable file."""
    return build_spec(ClusterArgs(**{k: v for k, v in fields.items() if v is not None}))


def check(provider: CloudProvider, olds: dict[str, Any], news: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    checked = provider.check(olds, news)
    return dict(checked.inputs), list(checked.failures)


def diff(provider: CloudProvider, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> tuple[bool, list[str], bool]:
    """(changes, replaced property paths, delete before replace)."""
    diffed = provider.diff(id_, olds, news)
    return diffed.changes, list(diffed.replaces), diffed.delete_before_replace


def create(provider: CloudProvider, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    created = provider.create(inputs)
    return created.id, dict(created.outputs)


def update(provider: CloudProvider, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
    return dict(provider.update(id_, olds, news))


def preview_plan(provider: CloudProvider, news: dict[str, Any]) -> str:
    """The `plan` output of a preview: the plan JSON (`hyperpod plan --json`'s form) a create or
    update with `news` would run now, or, when none can be made, a document saying why
    (`format` PLAN_UNKNOWN_FORMAT, `cluster_name`, `unknown`)."""

    try:
        return provider.preview_plan(news).to_json()
    except PlanUnknown as why:
        return json.dumps({"format": PLAN_UNKNOWN_FORMAT, "cluster_name": props.cluster_name(news), "unknown": str(why)})


def read(provider: CloudProvider, id_: str, bag: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """(id, outputs, inputs); an empty id: the cluster is gone."""
    found = provider.read(id_, bag)
    return found.id, dict(found.outputs), (dict(found.inputs) if found.inputs is not None else None)


def delete(provider: CloudProvider, id_: str, bag: dict[str, Any]) -> None:
    provider.delete(id_, bag)


def observe_by_id(provider: CloudProvider, id_: str, region: str | None) -> tuple[ClusterState | None, Location]:
    """The cluster an import id names (a name or an ARN), where the provider's configuration
    (or the ARN's region) says it lives."""
    location = locate(provider, region)
    client, _ = open_backend(location, _aws(provider).simulator)

    return cloud.get("aws").read(client, id_), location


def locate(provider: CloudProvider, region: str | None = None) -> Location:
    """Where a cluster with no settings of its own lives: the provider's configuration."""
    return Settings(region=region).locate(_aws(provider).defaults)


def plain(value: Any) -> Any:
    """A bag value as the core reads it: secrets unwrapped, integral doubles as ints, no nulls."""
    return props.plain(value)


def has_secret(bag: Mapping[str, Any]) -> bool:
    return props.has_secret(bag)


def settings_inputs(bag: Mapping[str, Any]) -> dict[str, Any]:
    return props.settings_inputs(bag)


def default_settings() -> dict[str, Any]:
    """The settings part of the inputs when nothing is set (what `check` stores for an empty program)."""
    inputs, _ = check_settings({}, is_unknown)
    return inputs


def state_outputs(state: ClusterState, location: Location) -> dict[str, Any]:
    return props.state_outputs(state, location)


def spec_canonical(raw: Any) -> tuple[Any, list[tuple[str, str]]]:
    return props.canonical_spec(raw)


def group_from_described(group: Any) -> dict[str, Any]:
    return props._group_from_described(group)


def effective_min(group: Mapping[str, Any], continuous: bool) -> int:
    return props._effective_min(group, continuous)
