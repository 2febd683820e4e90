"""The native provider's one door into the dynamic provider: every decision is made behind it.

The native provider (`hyperpod:index:Cluster`) must behave exactly like the dynamic `Cluster`:
same checks, same plan in the preview, same guards, same waits. So it does not wire observe →
plan → preflight → apply itself; it calls the functions the dynamic provider calls, through this
module only — and the dynamic provider goes through the one pipeline (core/cloud.py), as does the
import's read here (the AWS cloud's `read`).

Everything here speaks the dynamic provider's language: property bags with snake_case keys,
secrets as `rpc` secret wrappers, values not known yet as the `rpc.UNKNOWN` sentinel. `wire.py`
translates the gRPC property maps to and from it.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping

from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.provider import console, props
from pulumi_hyperpod.provider.provider import ClusterProvider, PlanUnknown, ProviderError
from pulumi_hyperpod.provider.resource import OUTPUTS, SPEC_FIELDS, ClusterArgs, build_spec
from pulumi_hyperpod.provider.settings import SETTING_KEYS, Location, Settings, check_settings
from pulumi_hyperpod.provider.unknowns import is_unknown
from pulumi_hyperpod.provider.worlds import open_backend
from pulumi_hyperpod.aws.spec import SpecError
from pulumi_hyperpod.native.resource import PREVIEW_OUTPUTS

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


def new_provider(config: Mapping[str, str] | None = None, simulator: str | None = None) -> ClusterProvider:
    """A configured provider. `config` uses the dynamic provider's stack-config keys
    (`hyperpod:backend`, `hyperpod:region`, `hyperpod:profile`); `simulator` is the name of an
    in-memory simulator registered with `provider.worlds` (tests)."""
    provider = ClusterProvider(simulator=simulator)
    provider.configure(_ConfigureRequest(dict(config or {})))
    return provider


class _ConfigureRequest:
    """What `ClusterProvider.configure` reads (the dynamic SDK's ConfigureRequest has `.config`)."""

    def __init__(self, config: dict[str, str]) -> None:
        self.config = config


def set_output(sink: Callable[[str], None] | None) -> None:
    """Where the provider's plans and progress lines go (`console.say`)."""
    console.set_sink(sink)


def say(text: str, cluster: str | None) -> None:
    console.say(text, cluster)


def cluster_name(bag: Mapping[str, Any]) -> str | None:
    return props.cluster_name(bag)


def merged_spec(fields: Mapping[str, Any]) -> Any:
    """`spec`, `spec_file` and the snake_case spec fields merged into one spec, as the dynamic
    `Cluster` does in the program (`resource.build_spec`). Raises SpecError for an unreadable file."""
    return build_spec(ClusterArgs(**{k: v for k, v in fields.items() if v is not None}))


def check(provider: ClusterProvider, olds: dict[str, Any], news: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    result = provider.check(olds, news)
    return dict(result.inputs or {}), [(f.property, f.reason) for f in result.failures or []]


def diff(provider: ClusterProvider, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> tuple[bool, list[str], bool]:
    """(changes, replaced property paths, delete before replace)."""
    result = provider.diff(id_, olds, news)
    return bool(result.changes), list(result.replaces or []), bool(result.delete_before_replace)


def create(provider: ClusterProvider, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    result = provider.create(inputs)
    return result.id, dict(result.outs or {})


def update(provider: ClusterProvider, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
    return dict(provider.update(id_, olds, news).outs or {})


def preview_plan(provider: ClusterProvider, news: dict[str, Any]) -> str:
    """The `plan` output of a preview: the plan JSON (`hyperpod plan --json`'s form) a create or
    update with `news` would run now, or, when none can be made, a document saying why
    (`format` PLAN_UNKNOWN_FORMAT, `cluster_name`, `unknown`)."""
    import json

    try:
        return provider.preview_plan(news).to_json()
    except PlanUnknown as why:
        return json.dumps({"format": PLAN_UNKNOWN_FORMAT, "cluster_name": props.cluster_name(news), "unknown": str(why)})


def read(provider: ClusterProvider, id_: str, bag: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
    """(id, outputs, inputs); an empty id: the cluster is gone."""
    result = provider.read(id_, bag)
    return result.id or "", dict(result.outs or {}), (dict(result.inputs) if result.inputs is not None else None)


def delete(provider: ClusterProvider, id_: str, bag: dict[str, Any]) -> None:
    provider.delete(id_, bag)


def observe_by_id(provider: ClusterProvider, id_: str, region: str | None) -> tuple[ClusterState | None, Location]:
    """The cluster an import id names (a name or an ARN), where the provider's configuration
    (or the ARN's region) says it lives."""
    location = locate(provider, region)
    client, _ = open_backend(location, provider.simulator)
    from pulumi_hyperpod.core import cloud

    return cloud.get("aws").read(client, id_), location


def locate(provider: ClusterProvider, region: str | None = None) -> Location:
    """Where a cluster with no settings of its own lives: the provider's configuration."""
    return Settings(region=region).locate(provider.defaults)


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
    return props._group_from_described(group)  # noqa: SLF001 - the same translation refresh uses


def effective_min(group: Mapping[str, Any], continuous: bool) -> int:
    return props._effective_min(group, continuous)  # noqa: SLF001 - the same default refresh uses
