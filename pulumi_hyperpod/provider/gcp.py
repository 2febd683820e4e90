"""`GcpTrainingCluster`: a Pulumi dynamic resource for a Google Cloud training cluster.

Type `pulumi-python:dynamic/hyperpod:GcpTrainingCluster`. Thin, like the HyperPod provider: check =
spec validation (and a replacement refused unless the policy allows it), diff = spec comparison
plus the live plan printed for the preview (the same table as `hyperpod gcp plan`), create/update
= the pipeline for any cloud (core/cloud.py: read → plan + cost → preflight) then apply under the
one contract (core/contract.py), read = observe, delete = the delete plan applied — through the
machinery both clouds' providers share (provider/base.py); what is Google Cloud's own is here (its
settings, its spec's property bag, its wording). The provider object holds nothing (no client,
session or credential): each method connects for itself.

(It lived in pulumi_hyperpod/gcp/provider.py, which still names it: a stack's state holds the
provider pickled by its module path.)
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pulumi
from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    CreateResult,
    DiffResult,
    ReadResult,
    Resource,
    UpdateResult,
)

from pulumi_hyperpod.gcp.planner import compare
from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError
from pulumi_hyperpod.plans import plan_text
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.provider import errors as provider_errors
from pulumi_hyperpod.provider.base import CloudProvider
from pulumi_hyperpod.provider.console import say
from pulumi_hyperpod.provider.unknowns import unknown_paths

SETTINGS = ("backend", "policy", "timeout", "wait")
OUTPUTS = ("name", "state", "pools", "node_count")
DEFAULT_TIMEOUT = 7200.0


class ProviderError(provider_errors.ProviderError):
    """A failure the user can act on; the message says what to do (shown without a traceback)."""


class SettingError(ProviderError):
    def __init__(self, prop: str, message: str) -> None:
        super().__init__(message)
        self.prop = prop


def _settings(inputs: Mapping[str, Any]) -> tuple[str, Policy, float, str]:
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
    return backend, policy, float(timeout or DEFAULT_TIMEOUT), _wait(inputs.get("wait"))


def _wait(value: Any) -> str:
    """The contract's wait vocabulary (core/contract.WAITS); true/false, as before, mean InService/none."""
    from pulumi_hyperpod.core.contract import WAITS

    if value is None or value is True:
        return "InService"
    if value is False:
        return "none"
    if value not in WAITS:
        raise SettingError("wait", f"wait must be one of {', '.join(WAITS)} (or true/false); got {str(value)[:40]!r}")
    return value


def _spec(inputs: Mapping[str, Any]) -> ClusterSpec:
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


def _client(backend: str):
    from pulumi_hyperpod.core import cloud

    return cloud.get("gcp").connect(backend)


def _outputs(inputs: Mapping[str, Any], state) -> dict[str, Any]:
    from pulumi_hyperpod.gcp.status import status_of

    status = status_of(state)
    return {
        **{k: inputs.get(k) for k in ("spec", *SETTINGS)},
        "name": state.name if state else None,
        "state": status.get("state"),
        "pools": status.get("pools") or {},
        "node_count": status.get("node_count", 0),
    }


def _label(name: str) -> str:
    """The cluster id, for the `[hyperpod ID]` prefix of the provider's lines (the plan names it in full)."""
    return name.rsplit("/", 1)[-1]


def _as_observed(spec: ClusterSpec):
    """The old spec as if it were the cluster: for diff's pure comparison (the same rules as the planner)."""
    from pulumi_hyperpod.gcp.observe import GcpClusterState, PoolState

    pools = tuple(
        PoolState(p.id, p.machine_spec.machine_type, p.provisioning_model, p.count, (), p.scaling_spec.min_node_count)
        for p in spec.node_pools
    )
    return GcpClusterState(spec.name, "RUNNING", "", spec.body(), pools)


class GcpClusterProvider(CloudProvider):
    """Google Cloud's dynamic provider: the shared machinery (provider/base.py) over the GCP cloud."""

    cloud_name = "gcp"
    Error = ProviderError

    def _label(self, name: str) -> str:
        return _label(name)

    def _refused_message(self, name: str, error: Exception) -> str:
        return f"{name}: refused: {error}"

    _stale_message = _refused_message  # a stale plan is refused the same way here: plan again

    def _failed_message(self, name: str, error: Any) -> str:
        return f"{name}: {error} (calls made: {', '.join(error.done) or 'none'}); run `pulumi up` again to continue"

    # ---- check ---------------------------------------------------------------------------
    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        if unknown_paths(news):
            return CheckResult(news, [])
        try:
            spec = _spec(news)
            _backend, policy, _timeout, _wait = _settings(news)
        except GcpSpecError as error:
            return CheckResult(news, [CheckFailure(f"spec.{path}" if path else "spec", rule) for path, rule in error.violations])
        except SettingError as error:
            return CheckResult(news, [CheckFailure(error.prop, str(error))])
        failures = []
        if olds and "spec" in olds and not policy.allow_replacement:
            # named by its field path: Pulumi then prints the path, not the whole spec's value
            for item in self._immutable(olds, spec):
                failures.append(
                    CheckFailure(
                        f"spec.{item.path}",
                        (
                            f"{item.values()}: {item.rule}; this replaces the cluster (every node is deleted, then it is "
                            "created again). To allow it set the resource's policy allow_replacement (the example program: "
                            "`pulumi config set allowReplacement true`), or undo the change."
                        ),
                    )
                )
        if not olds and not failures:  # offline: the plan of a create, before anything is read
            the_plan = self._prepared(None, spec, policy, observed=None, skip="the preview of a create reads nothing").plan
            self._say(plan_text(the_plan), spec.name)
        return CheckResult(news, failures)

    def _immutable(self, olds: Mapping[str, Any], spec: ClusterSpec) -> list[compare.Immutable]:
        if not isinstance(olds.get("spec"), Mapping):
            return []  # nothing to compare with (an import, say): the live plan decides
        try:
            old = _spec(olds)
        except GcpSpecError:
            return []
        if old.name != spec.name:
            return [compare.Immutable("name", old.name, spec.name, "the cluster's name (project, region, id) is immutable")]
        return list(compare.differences(spec, _as_observed(old)).immutable)

    def _replacements(self, olds: Mapping[str, Any], spec: ClusterSpec) -> list[str]:
        return [str(item) for item in self._immutable(olds, spec)]

    # ---- diff ----------------------------------------------------------------------------
    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        if unknown_paths(news):
            say("the spec is not known until the resources it depends on exist: the plan is shown at apply time")
            return DiffResult(changes=True)
        spec = _spec(news)
        replacements = self._replacements(olds, spec)
        changed = json.dumps(olds.get("spec"), sort_keys=True) != json.dumps(news.get("spec"), sort_keys=True) or any(
            olds.get(k) != news.get(k) for k in SETTINGS
        )
        if not replacements:
            live = self._live_plan(spec, news)
            changed = changed or bool(live and live.steps)
            if live is not None and live.replacements:
                replacements = list(live.replacements)
        else:
            say("replace: " + "; ".join(replacements), _label(spec.name))
        return DiffResult(changes=changed or bool(replacements), replaces=["spec"] if replacements else [], delete_before_replace=True)

    def _live_plan(self, spec: ClusterSpec, news: Mapping[str, Any]):
        backend, policy, _timeout, _wait = _settings(news)
        try:
            from pulumi_hyperpod.core.cloud import OBSERVE

            result = self._prepared(_client(backend), spec, policy, observed=OBSERVE).plan
        except Exception as error:  # noqa: BLE001 - a preview without access still shows the diff
            say(f"could not read {spec.name} to plan against it: {error}", _label(spec.name))
            return None
        say(plan_text(result), _label(spec.name))
        return result

    # ---- create / update -----------------------------------------------------------------
    def create(self, inputs: dict[str, Any]) -> CreateResult:
        spec, (backend, policy, timeout, wait) = _spec(inputs), _settings(inputs)
        client = _client(backend)
        if self._read_cluster(client, spec.name) is not None:
            raise ProviderError(f"a cluster {spec.name} already exists; import it or choose another cluster id")
        try:
            state = self._apply(client, spec, None, policy, timeout, wait)
        except ProviderError as error:
            self._undo_failed_create(client, spec.name, policy, timeout, error)
            raise
        return CreateResult(spec.name, _outputs(inputs, state))

    def _undo_failed_create(self, client, name: str, policy: Policy, timeout: float, error: ProviderError) -> None:
        """A create leaves a working cluster or none (the engine's contract): a cluster the failed
        create left in ERROR is deleted before the error is reported."""
        observed = self._read_cluster(client, name)
        if observed is None or observed.state != "ERROR":
            return
        say(f"the create failed ({error}); deleting the cluster it left in ERROR", _label(name))
        try:
            self._apply(client, None, observed, policy, timeout, "InService")
        except ProviderError as cleanup:
            raise ProviderError(f"{error}; deleting the failed cluster did not finish either: {cleanup}") from None

    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        spec, (backend, policy, timeout, wait) = _spec(news), _settings(news)
        client = _client(backend)
        observed = self._read_cluster(client, spec.name)
        if observed is None:
            raise ProviderError(
                f"cluster {spec.name} no longer exists (deleted outside Pulumi?): run `pulumi refresh`, then `pulumi up` creates it again"
            )
        state = self._apply(client, spec, observed, policy, timeout, wait)
        return UpdateResult(_outputs(news, state or observed))  # a plan with no step observes nothing after

    def _apply(self, client, spec: ClusterSpec | None, observed, policy: Policy, timeout: float, wait: str):
        from pulumi_hyperpod.core.contract import ApplyOptions

        if spec is None:  # the delete plan: nothing to check in the account
            the_plan = self._deletion(client, observed.name, policy, observed).plan
        else:
            the_plan = self._prepared(client, spec, policy, observed=observed).plan
            if observed is None and the_plan.preflight is not None:  # check's creation plan had no preflight
                from pulumi_hyperpod.plans.render import preflight_renderable, render_text

                say(render_text(preflight_renderable(the_plan.preflight, the_plan)), _label(the_plan.cluster_name))
        name = the_plan.cluster_name
        if the_plan.replacements and spec is not None and observed is not None:
            raise ProviderError(
                f"{name} cannot change in place ({'; '.join(the_plan.replacements)}); run "
                "`pulumi preview` again: the change is a replacement"
            )
        options = ApplyOptions(wait=wait, timeout=timeout, progress=lambda message: say(message, _label(name)))
        return self._execute(client, the_plan, options).state

    # ---- read / delete -------------------------------------------------------------------
    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        backend, _policy, _timeout, _wait = _settings(props)
        state = self._read_cluster(_client(backend), id_)
        if state is None:
            return ReadResult(None, {})
        return ReadResult(id_, _outputs(props, state))

    def delete(self, id_: str, props: dict[str, Any]) -> None:
        backend, policy, timeout, _wait = _settings(props)  # a delete always waits: the engine's contract
        client = _client(backend)
        observed = self._read_cluster(client, id_)
        if observed is not None:
            self._apply(client, None, observed, policy, timeout, "InService")


class GcpTrainingCluster(Resource, module="hyperpod", name="GcpTrainingCluster"):
    """A Google Cloud training cluster (modelDevelopmentClusters), planned and applied by pulumi-hyperpod."""

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    pools: pulumi.Output[dict]  # pool id → machine_type, target, nodes (by state), provisioning_model
    node_count: pulumi.Output[int]
    spec: pulumi.Output[dict]

    def __init__(
        self,
        resource_name: str,
        spec: pulumi.Input[Mapping[str, Any]] | None = None,
        spec_file: str | None = None,
        backend: str | None = None,
        policy: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        wait: bool | str | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if spec_file is not None:
            from pulumi_hyperpod.core.documents import read_document
            from pulumi_hyperpod.gcp.spec import GcpSpecError

            loaded = read_document(Path(spec_file), GcpSpecError)
            spec = {**loaded, **(spec or {})} if isinstance(loaded, dict) else loaded
        if spec is None:
            raise TypeError("GcpTrainingCluster needs spec= (the REST body) or spec_file=")
        props: dict[str, Any] = {name: None for name in OUTPUTS}
        props.update(spec=spec, backend=backend or "gcp", policy=dict(policy or {}), timeout=timeout, wait=True if wait is None else wait)
        super().__init__(GcpClusterProvider(), resource_name, props, opts)
