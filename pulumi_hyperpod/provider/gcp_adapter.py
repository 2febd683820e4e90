"""Google Cloud's adapter to the CloudProvider (provider/cloud_provider.py): what only it says.

Inputs: `spec` (the REST body, snake_case or camelCase), `backend` ("gcp" or "fake"), `policy`,
`timeout`, `wait` (the contract's vocabulary; true/false mean InService/none). The inputs are
stored as given; check reports a bad field by its path (`spec.node_pools[1].scaling_spec…`).
Its diff of inputs is the planner's own comparison (gcp/planner/compare.py) of the new spec with
the old one taken as the cluster. Outputs: the inputs, plus `name`, `state`, `pools` (pool id →
machine type, target, nodes by state) and `node_count`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.provider.cloud_provider import Bag, Failures, Found, Replacement, RunSettings, Session
from pulumi_hyperpod.provider.unknowns import unknown_paths
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.core.contract import WAITS
from pulumi_hyperpod.core import cloud
from pulumi_hyperpod.gcp.status import status_of

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.gcp.observe import GcpClusterState
    from pulumi_hyperpod.gcp.planner.compare import Immutable
    from pulumi_hyperpod.gcp.spec import ClusterSpec
    from pulumi_hyperpod.plans.model import Plan

SETTINGS = ("backend", "policy", "timeout", "wait")
OUTPUTS = ("name", "state", "pools", "node_count")
DEFAULT_TIMEOUT = 7200.0


class SettingError(ValueError):
    """A setting the provider cannot use; `prop` names it."""

    def __init__(self, prop: str, message: str) -> None:
        super().__init__(message)
        self.prop = prop


@dataclass(frozen=True, slots=True)
class GcpSettings(RunSettings):
    backend: str = "gcp"


def settings_of(inputs: Mapping[str, Any]) -> GcpSettings:
    """The settings of the inputs; SettingError names the one that is wrong."""

    backend = inputs.get("backend") or "gcp"
    if backend not in ("gcp", "fake"):
        raise SettingError("backend", f"backend must be gcp or fake; got {backend!r}")
    try:
        policy = Policy.model_validate(inputs.get("policy") or {})
    except ValueError as error:  # pydantic's ValidationError
        raise SettingError("policy", " ".join(str(error).split())) from None
    timeout = inputs.get("timeout")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0):
        raise SettingError("timeout", f"timeout is a number of seconds above 0; got {timeout!r}")
    return GcpSettings(policy=policy, wait=_wait(inputs.get("wait")), timeout=float(timeout or DEFAULT_TIMEOUT), backend=backend)


def _wait(value: Any) -> str:
    """The contract's wait vocabulary (core/contract.WAITS); true/false, as before, mean InService/none."""

    if value is None or value is True:
        return "InService"
    if value is False:
        return "none"
    if value not in WAITS:
        raise SettingError("wait", f"wait must be one of {', '.join(WAITS)} (or true/false); got {str(value)[:40]!r}")
    return str(value)


def spec_of(inputs: Mapping[str, Any]) -> ClusterSpec:
    from pulumi_hyperpod.gcp.spec import ClusterSpec  # noqa: PLC0415 - the GCP spec's pydantic models: only a GCP check or plan loads them

    return ClusterSpec.from_document(_whole_numbers(json.loads(json.dumps(inputs["spec"]))))


def _whole_numbers(value: Any) -> Any:
    """Pulumi's property bags carry every number as a float (protobuf Struct): 2.0 back to 2, so the
    spec's strict integer fields see what the program wrote. 2.5 stays 2.5 (and is refused)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, list):
        return [_whole_numbers(item) for item in value]
    if isinstance(value, dict):
        return {key: _whole_numbers(item) for key, item in value.items()}
    return value


def _as_observed(spec: ClusterSpec) -> GcpClusterState:
    """The old spec as if it were the cluster: for diff's pure comparison (the same rules as the planner)."""
    from pulumi_hyperpod.gcp.observe import GcpClusterState, PoolState  # noqa: PLC0415 - the GCP spec's pydantic models: only a GCP check or plan loads them

    pools = tuple(
        PoolState(p.id, p.machine_spec.machine_type, p.provisioning_model, p.count, (), p.scaling_spec.min_node_count)
        for p in spec.node_pools
    )
    return GcpClusterState(spec.name, "RUNNING", "", spec.body(), pools)


@dataclass(frozen=True, slots=True)
class GcpAdapter:
    cloud_name = "gcp"
    allow_hint = " (the example program: `pulumi config set allowReplacement true`)"
    default_backend: str = "gcp"

    # ---- inputs --------------------------------------------------------------------------------
    def check_inputs(self, olds: Bag, news: Bag) -> tuple[Bag, Failures]:
        from pulumi_hyperpod.gcp.spec import GcpSpecError  # noqa: PLC0415 - the GCP spec's pydantic models: only a GCP spec file read or checked loads them

        if unknown_paths(news):
            return news, []
        try:
            spec_of(news)
            settings_of(news)
        except GcpSpecError as error:
            return news, [(f"spec.{path}" if path else "spec", rule) for path, rule in error.violations]
        except SettingError as error:
            return news, [(error.prop, str(error))]
        return news, []

    def unknown(self, inputs: Mapping[str, Any]) -> list[str]:
        return unknown_paths(inputs)

    def name_of(self, bag: Mapping[str, Any]) -> str | None:
        spec = bag.get("spec")
        name = spec.get("name") if isinstance(spec, Mapping) else None
        return name if isinstance(name, str) and name else None

    def lookup_name(self, inputs: Mapping[str, Any]) -> str | None:
        return None if unknown_paths(inputs) else str(spec_of(inputs).name)

    def label(self, name: str) -> str:
        """The cluster id, for the `[hyperpod ID]` prefix of the provider's lines (the plan names it in full)."""
        return name.rsplit("/", 1)[-1]

    def desired(self, inputs: Mapping[str, Any]) -> ClusterSpec:
        return spec_of(inputs)

    def settings(self, inputs: Mapping[str, Any], olds: Mapping[str, Any] | None = None) -> GcpSettings:
        return settings_of({"backend": self.default_backend, **{k: v for k, v in inputs.items() if v is not None}})

    def may_replace(self, inputs: Mapping[str, Any]) -> bool:
        return bool(unknown_paths(inputs)) or self.settings(inputs).policy.allow_replacement

    def inputs_changed(self, olds: Mapping[str, Any], news: Mapping[str, Any]) -> bool:
        return json.dumps(olds.get("spec"), sort_keys=True) != json.dumps(news.get("spec"), sort_keys=True) or any(
            olds.get(k) != news.get(k) for k in SETTINGS
        )

    def replacements(self, olds: Mapping[str, Any], inputs: Mapping[str, Any]) -> list[Replacement]:
        """Named by the field's path: Pulumi then prints the path, not the whole spec's value."""
        if unknown_paths(inputs):
            return []
        return [Replacement(f"spec.{item.path}", f"{item.values()}: {item.rule}") for item in self._immutable(olds, spec_of(inputs))]

    def _immutable(self, olds: Mapping[str, Any], spec: ClusterSpec) -> list[Immutable]:
        from pulumi_hyperpod.gcp.planner import compare  # noqa: PLC0415 - the GCP planner and its pydantic models: only a GCP diff loads them
        from pulumi_hyperpod.gcp.spec import GcpSpecError  # noqa: PLC0415 - the GCP spec's pydantic models: only a GCP spec file read or checked loads them

        if not isinstance(olds.get("spec"), Mapping):
            return []  # nothing to compare with (an import, say): the live plan decides
        try:
            old = spec_of(olds)
        except GcpSpecError:
            return []
        if old.name != spec.name:
            return [compare.Immutable("name", old.name, spec.name, "the cluster's name (project, region, id) is immutable")]
        return list(compare.differences(spec, _as_observed(old)).immutable)

    # ---- where ---------------------------------------------------------------------------------
    def open(self, bag: Mapping[str, Any], settings: RunSettings | None = None, *, stored: bool = False) -> Session:

        backend = settings.backend if isinstance(settings, GcpSettings) else self.settings(bag).backend
        client = cloud.get(self.cloud_name).connect(backend)
        return Session(client=client, where="the simulator" if backend == "fake" else "Google Cloud")

    # ---- plans ---------------------------------------------------------------------------------
    def creation_plan(self, inputs: Mapping[str, Any], settings: RunSettings) -> Plan:

        gcp = cloud.get(self.cloud_name)
        return cloud.prepare(
            gcp, None, spec_of(inputs), settings.policy, observed=None, skip_preflight="the preview of a create reads nothing"
        ).plan

    def creation_note(self, inputs: Mapping[str, Any]) -> str:
        return ""

    # ---- the cluster ---------------------------------------------------------------------------
    def resource_id(self, state: GcpClusterState) -> str:
        return state.name

    def is_it(self, id_: str, state: GcpClusterState) -> bool:
        return True

    def outputs(self, inputs: Mapping[str, Any], state: GcpClusterState | None, session: Session | None = None) -> Bag:

        status = status_of(state)
        return {
            **{k: inputs.get(k) for k in ("spec", *SETTINGS)},
            "name": state.name if state else None,
            "state": status.get("state"),
            "pools": status.get("pools") or {},
            "node_count": status.get("node_count", 0),
        }

    def found(self, id_: str, bag: Mapping[str, Any], state: GcpClusterState, session: Session) -> Found:
        return Found(id_, self.outputs(bag, state))

    def failed(self, state: GcpClusterState) -> str | None:
        return f"cluster {state.name} is in ERROR after its create" if state.state == "ERROR" else None

    def being_deleted(self, state: GcpClusterState) -> bool:
        return False  # the planner's deletion plan notes a cluster already being deleted and waits on it

    def wait_deleted(self, session: Session, name: str, timeout: float, progress: Callable[[Any], None]) -> None:
        raise NotImplementedError  # being_deleted is never true

    def delete_wait(self, settings: RunSettings) -> str:
        return "InService"  # a delete always waits: the engine's contract

    def summary(self, state: GcpClusterState) -> str:
        return f"{state.name} ({state.state})"

    def exists_text(self, name: str, session: Session, state: GcpClusterState) -> str:
        return f"a cluster {name} already exists in {session.where}; import it or choose another cluster id"
