"""`HyperpodProvider`: the native provider on the Pulumi Python SDK's provider interface
(`pulumi.provider.experimental`), a thin adapter over the dynamic provider (through `core`).

What is the adapter's own, and nothing more:
- property maps ↔ bags (`wire`), the spec's three forms folded into one (`core.merged_spec`);
- the detailed diff per property path (`wire.detailed_diff`) around the dynamic diff's verdict;
- preview: `create`/`update` called with `preview=True` answer without touching the cluster
  (the plan was shown by `check`/`diff`), outputs not known yet;
- read by id alone (import): `importing.imported`;
- the calls run in worker threads (a create waits for minutes; other resources go on meanwhile).
"""

from __future__ import annotations

import asyncio
import functools
import json
from typing import Any
from collections.abc import Callable

from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import (
    CheckFailure,
    CheckRequest,
    CheckResponse,
    ConfigureRequest,
    ConfigureResponse,
    CreateRequest,
    CreateResponse,
    DeleteRequest,
    DiffRequest,
    DiffResponse,
    GetSchemaRequest,
    GetSchemaResponse,
    PropertyDiff,
    PropertyDiffKind,
    Provider,
    ReadRequest,
    ReadResponse,
    UpdateRequest,
    UpdateResponse,
)

from pulumi.runtime import rpc

from pulumi_hyperpod.native import core, gcp, governance, importing, wire
from pulumi_hyperpod.native.core import is_unknown
from pulumi_hyperpod.native.schema import SCHEMA_PATH  # written by `python -m pulumi_hyperpod.native.schema --write`

CONFIG_KEYS = ("backend", "region", "profile")


@functools.lru_cache(maxsize=1)
def schema_text() -> str:
    return SCHEMA_PATH.read_text(encoding="utf-8")


def schema() -> dict[str, Any]:
    return json.loads(schema_text())


class HyperpodProvider(Provider):
    def __init__(self, simulator: str | None = None) -> None:
        self._simulator = simulator
        self._core = core.new_provider(simulator=simulator)
        self._gcp = gcp.GcpResource()  # hyperpod:index:GcpTrainingCluster (native/gcp.py)
        self._config: dict[str, str] = {}  # hyperpod:index:ComputeQuota, ClusterSchedulerConfig (native/governance.py)

    async def _run(self, fn: Callable[..., Any], *args: Any) -> Any:
        return await asyncio.to_thread(fn, *args)

    def _governance(self, urn: str) -> governance.GovernanceResource | None:
        """The task governance resource an URN names (a compute quota, the scheduler configuration), or None."""
        noun = governance.noun_of(urn)
        return None if noun is None else governance.GovernanceResource(noun, self._config, self._simulator)

    # ---- provider --------------------------------------------------------------------------
    async def get_schema(self, request: GetSchemaRequest) -> GetSchemaResponse:
        return GetSchemaResponse(schema=schema_text())

    async def configure(self, request: ConfigureRequest) -> ConfigureResponse:
        config = provider_config(request.variables, request.args)
        self._core = core.new_provider(config, simulator=self._simulator)
        self._gcp = gcp.GcpResource(config)
        self._config = config
        return ConfigureResponse(accept_secrets=True, supports_preview=True, accept_resources=False, accept_outputs=False)

    # ---- check -----------------------------------------------------------------------------
    async def check(self, request: CheckRequest) -> CheckResponse:
        news = wire.bag_from_wire(request.new_inputs)
        olds = wire.bag_from_wire(request.old_inputs)
        governed = self._governance(request.urn)
        if governed is not None:
            inputs, failures = await self._run(governed.check, olds, news)
            if failures:
                return CheckResponse(request.new_inputs, [CheckFailure(wire.path_to_wire(p), r) for p, r in failures])
            return CheckResponse(wire.bag_to_wire(inputs), [])
        if gcp.is_gcp(request.urn):
            inputs, failures = await self._run(self._gcp.check, olds, news)
            if failures:
                return CheckResponse(request.new_inputs, [CheckFailure(wire.path_to_wire(p), r) for p, r in failures])
            return CheckResponse(wire.bag_to_wire(inputs), [])
        unknown = wire.unknown_inputs(news)
        if unknown:
            known = ", ".join(sorted(wire.camel(k) for k in (*wire.SPEC_INPUTS, *wire.SETTING_INPUTS)))
            return CheckResponse(
                request.new_inputs, [CheckFailure(k, f"is not an input of hyperpod:index:Cluster (inputs: {known})") for k in unknown]
            )
        try:
            spec = fold_spec({k: news[k] for k in wire.SPEC_INPUTS if k in news})
        except core.SpecError as error:
            return CheckResponse(request.new_inputs, [CheckFailure("specFile", str(error))])
        settings = {k: news[k] for k in wire.SETTING_INPUTS if k in news}
        inputs, failures = await self._run(core.check, self._core, olds, {"spec": spec, **settings} if spec is not None else settings)
        if failures:
            return CheckResponse(request.new_inputs, [CheckFailure(wire.path_to_wire(p), r) for p, r in failures])
        return CheckResponse(wire.bag_to_wire(inputs), [])

    # ---- diff ------------------------------------------------------------------------------
    async def diff(self, request: DiffRequest) -> DiffResponse:
        olds = wire.bag_from_wire(request.old_state)
        news = wire.bag_from_wire(request.new_inputs)
        governed = self._governance(request.urn)
        if gcp.is_gcp(request.urn) or governed is not None:
            resource = governed if governed is not None else self._gcp
            changes, replaces, delete_first = await self._run(resource.diff, request.resource_id, olds, news)
            return DiffResponse(
                changes=changes or bool(replaces), replaces=[wire.path_to_wire(p) for p in replaces], delete_before_replace=delete_first
            )
        changes, replaces, delete_first = await self._run(core.diff, self._core, request.resource_id, olds, news)
        detailed = wire.detailed_diff(olds, news, replaces, changes)
        if wire.DYNAMIC_STATE_KEY in olds and not replaces:
            # The state came from the dynamic Cluster (a migration by alias, docs/native-provider.md):
            # an update with the same plan writes it again in this provider's form.
            name = core.cluster_name(news) or request.resource_id
            core.say(
                "state written by the dynamic provider (pulumi-python:dynamic/hyperpod:Cluster): this update "
                "rewrites it in the native provider's form; the cluster itself changes only as its plan says",
                name,
            )
            changes = True
            detailed.setdefault("spec", PropertyDiff(PropertyDiffKind.UPDATE, False))
        return DiffResponse(
            changes=changes or bool(replaces),
            replaces=[wire.path_to_wire(p) for p in replaces],
            delete_before_replace=delete_first,
            diffs=sorted({path.split(".")[0].split("[")[0] for path in detailed}),
            detailed_diff=detailed,
        )

    # ---- create / update -------------------------------------------------------------------
    async def create(self, request: CreateRequest) -> CreateResponse:
        inputs = wire.bag_from_wire(request.properties)
        governed = self._governance(request.urn)
        if gcp.is_gcp(request.urn) or governed is not None:
            resource = governed if governed is not None else self._gcp
            if request.preview:
                names = governance.OUTPUTS if governed is not None else gcp.OUTPUTS
                return CreateResponse(None, {**request.properties, **{wire.camel(n): PropertyValue.computed() for n in names}})
            id_, outputs = await self._run(resource.create, inputs)
            return CreateResponse(id_, wire.bag_to_wire(outputs))
        if request.preview:
            return CreateResponse(None, {**request.properties, **_computed_outputs(), **await self._preview_outputs(inputs)})
        id_, outputs = await self._run(core.create, self._core, inputs)
        return CreateResponse(id_, wire.bag_to_wire(outputs))

    async def update(self, request: UpdateRequest) -> UpdateResponse:
        governed = self._governance(request.urn)
        if gcp.is_gcp(request.urn) or governed is not None:
            resource = governed if governed is not None else self._gcp
            if request.preview:
                return UpdateResponse({**request.olds, **request.news})
            olds, news = wire.bag_from_wire(request.olds), wire.bag_from_wire(request.news)
            return UpdateResponse(wire.bag_to_wire(await self._run(resource.update, request.resource_id, olds, news)))
        if request.preview:
            news = wire.bag_from_wire(request.news)
            return UpdateResponse({**request.olds, **request.news, **await self._preview_outputs(news)})
        olds, news = wire.bag_from_wire(request.olds), wire.bag_from_wire(request.news)
        outputs = await self._run(core.update, self._core, request.resource_id, olds, news)
        return UpdateResponse(wire.bag_to_wire(outputs))

    async def _preview_outputs(self, inputs: dict[str, Any]) -> dict[str, PropertyValue]:
        """`plan`: what the preview's plan is, for policy packs, which see a resource's outputs in
        a preview and nothing a provider prints (policies/README.md). Secret when an input is."""
        text = await self._run(core.preview_plan, self._core, inputs)
        return {"plan": PropertyValue(text).with_secret(core.has_secret(inputs))}

    # ---- read (refresh, import) ------------------------------------------------------------
    async def read(self, request: ReadRequest) -> ReadResponse:
        governed = self._governance(request.urn)
        if governed is not None:
            bag = {**wire.bag_from_wire(request.inputs), **wire.bag_from_wire(request.properties)}
            if not bag.get("spec") and not bag.get("spec_file"):
                raise ValueError(
                    "a compute quota or scheduler configuration is imported by declaring it: give its spec (pulumi import is not supported)"
                )
            id_, outputs = await self._run(governed.read, request.resource_id, bag)
            return ReadResponse(id_, wire.bag_to_wire(outputs), request.inputs) if id_ else ReadResponse(None)
        if gcp.is_gcp(request.urn):
            bag = {**wire.bag_from_wire(request.inputs), **wire.bag_from_wire(request.properties)}
            id_, outputs, inputs = await self._run(self._gcp.read, request.resource_id, bag)
            if not id_:
                return ReadResponse(None)
            return ReadResponse(id_, wire.bag_to_wire(outputs), wire.bag_to_wire(inputs if inputs is not None else bag))
        if not request.properties and not request.inputs:
            found = await self._run(importing.imported, self._core, request.resource_id)
            if found is None:
                return ReadResponse(None)
            id_, outputs, inputs = found
            return ReadResponse(id_, wire.bag_to_wire(outputs), wire.bag_to_wire(inputs))
        bag = {**wire.bag_from_wire(request.inputs), **wire.bag_from_wire(request.properties)}
        id_, outputs, inputs = await self._run(core.read, self._core, request.resource_id, bag)
        if not id_:
            return ReadResponse(None)
        return ReadResponse(id_, wire.bag_to_wire(outputs), wire.bag_to_wire(inputs if inputs is not None else outputs))

    # ---- delete ----------------------------------------------------------------------------
    async def delete(self, request: DeleteRequest) -> None:
        governed = self._governance(request.urn)
        if governed is not None:
            await self._run(governed.delete, request.resource_id, wire.bag_from_wire(request.properties))
            return
        if gcp.is_gcp(request.urn):
            await self._run(self._gcp.delete, request.resource_id, wire.bag_from_wire(request.properties))
            return
        await self._run(core.delete, self._core, request.resource_id, wire.bag_from_wire(request.properties))


def provider_config(variables: dict[str, str], args: dict[str, PropertyValue]) -> dict[str, str]:
    """The provider's configuration (`hyperpod:backend`, `hyperpod:region`, `hyperpod:profile` in
    the stack config, or the arguments of an explicit provider resource) in the dynamic
    provider's keys. The engine sends it twice: as `args` and as `variables` (`hyperpod:config:backend`)."""
    config: dict[str, str] = {}
    for key in CONFIG_KEYS:
        value: Any = None
        if key in args:
            value = wire.to_python(args[key])
        for name in (f"hyperpod:config:{key}", f"hyperpod:{key}"):
            if value in (None, "") and variables.get(name):
                value = variables[name]
        if isinstance(value, str) and value:
            config[f"hyperpod:{key}"] = value
    return config


def fold_spec(fields: dict[str, Any]) -> Any:
    """`spec`, `specFile` and the spec fields as one spec (what the dynamic `Cluster` sends). A
    `spec` that is not an object is left for `check` to report; one not known yet stays unknown;
    a secret one stays secret."""
    spec = fields.get("spec")
    if rpc.is_rpc_secret(spec):
        return rpc.wrap_rpc_secret(fold_spec({**fields, "spec": rpc.unwrap_rpc_secret(spec)}))
    if is_unknown(spec) or (spec is not None and not isinstance(spec, dict)):
        return spec
    if set(fields) <= {"spec"}:
        return spec
    return core.merged_spec(fields)


def _computed_outputs() -> dict[str, PropertyValue]:
    return {wire.camel(name): PropertyValue.computed() for name in wire.OUTPUTS}
