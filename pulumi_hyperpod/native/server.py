"""The gRPC server the engine talks to (`pulumi-resource-hyperpod`), around `HyperpodProvider`.

It is the SDK's experimental provider servicer with three things of its own:
- errors: a refused plan or a bad spec reaches the user as its one-line message (the SDK's
  servicer appends a Python traceback to every error; a traceback is kept for real bugs only);
- the provider's text (plans, progress) goes to the engine's log, attached to the resource the
  call is about: the engine hides a native provider's stdout and stderr;
- `Read` for an id the cluster does not answer to returns no properties, which the engine takes
  as "gone" (refresh) or "does not exist" (import).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import grpc
from google.protobuf import empty_pb2, struct_pb2
from pulumi.provider.experimental import provider as sdk
from pulumi.provider.experimental.property_value import Computed, PropertyValue
from pulumi.provider.experimental.server import ProviderServicer
from pulumi.runtime import rpc
from pulumi.runtime._grpc_settings import _GRPC_CHANNEL_OPTIONS
from pulumi.runtime.proto import provider_pb2, provider_pb2_grpc

from pulumi_hyperpod import __version__
from pulumi_hyperpod.provider import console
from pulumi_hyperpod.provider.engine_log import EngineLog
from pulumi_hyperpod.provider.errors import (
    user_message,  # the dynamic provider's rule: one line, a traceback for a bug
)
from pulumi_hyperpod.native import core
from pulumi_hyperpod.native.provider import HyperpodProvider

_KINDS = {
    sdk.PropertyDiffKind.ADD: provider_pb2.PropertyDiff.ADD,
    sdk.PropertyDiffKind.ADD_REPLACE: provider_pb2.PropertyDiff.ADD_REPLACE,
    sdk.PropertyDiffKind.DELETE: provider_pb2.PropertyDiff.DELETE,
    sdk.PropertyDiffKind.DELETE_REPLACE: provider_pb2.PropertyDiff.DELETE_REPLACE,
    sdk.PropertyDiffKind.UPDATE: provider_pb2.PropertyDiff.UPDATE,
    sdk.PropertyDiffKind.UPDATE_REPLACE: provider_pb2.PropertyDiff.UPDATE_REPLACE,
}


def marshal(value: PropertyValue) -> struct_pb2.Value:
    """The SDK's `PropertyValue.marshal`, plus values not known yet (it cannot marshal those:
    a preview's outputs), sent as the engine's unknown sentinel."""
    inner = value.value
    if isinstance(inner, Computed):
        result = struct_pb2.Value(string_value=rpc.UNKNOWN)
    elif isinstance(inner, Mapping):
        result = struct_pb2.Value(struct_value=struct_pb2.Struct(fields={k: marshal(v) for k, v in inner.items()}))
    elif isinstance(inner, (tuple, list)):
        result = struct_pb2.Value(list_value=struct_pb2.ListValue(values=[marshal(v) for v in inner]))
    else:
        return value.marshal()
    if value.is_secret:
        return struct_pb2.Value(
            struct_value=struct_pb2.Struct(
                fields={
                    rpc._special_sig_key: struct_pb2.Value(string_value=rpc._special_secret_sig),
                    "value": result,
                }
            )
        )
    return result


def marshal_map(properties: Mapping[str, PropertyValue]) -> struct_pb2.Struct:
    return struct_pb2.Struct(fields={k: marshal(v) for k, v in properties.items()})


class HyperpodServicer(ProviderServicer):
    async def _call(self, urn: str, context: Any, fn: Callable[[], Awaitable[Any]]) -> Any:
        # the resource the call's text is about (asyncio.to_thread carries it to the worker thread)
        with console.about(urn):
            try:
                return await fn()
            except Exception as error:
                await context.abort(grpc.StatusCode.UNKNOWN, user_message(error))

    async def Configure(self, request, context):
        async def run():
            resp = await self._provider.configure(
                sdk.ConfigureRequest(
                    dict(request.variables), PropertyValue.unmarshal_map(request.args), request.acceptSecrets, request.acceptResources
                )
            )
            return provider_pb2.ConfigureResponse(
                acceptSecrets=resp.accept_secrets,
                acceptResources=resp.accept_resources,
                acceptOutputs=resp.accept_outputs,
                supportsPreview=resp.supports_preview,
            )

        return await self._call("", context, run)

    async def Check(self, request, context):
        async def run():
            resp = await self._provider.check(
                sdk.CheckRequest(
                    request.urn, PropertyValue.unmarshal_map(request.olds), PropertyValue.unmarshal_map(request.news), request.randomSeed
                )
            )
            failures = [provider_pb2.CheckFailure(property=f.property, reason=f.reason) for f in resp.failures or []]
            inputs = marshal_map(resp.inputs) if resp.inputs is not None else None
            return provider_pb2.CheckResponse(inputs=inputs, failures=failures)

        return await self._call(request.urn, context, run)

    async def Diff(self, request, context):
        async def run():
            resp = await self._provider.diff(
                sdk.DiffRequest(
                    request.urn,
                    request.id,
                    PropertyValue.unmarshal_map(request.olds),
                    PropertyValue.unmarshal_map(request.news),
                    list(request.ignoreChanges),
                )
            )
            changes = provider_pb2.DiffResponse.DIFF_SOME if resp.changes else provider_pb2.DiffResponse.DIFF_NONE
            return provider_pb2.DiffResponse(
                replaces=resp.replaces,
                stables=resp.stables,
                deleteBeforeReplace=resp.delete_before_replace,
                changes=changes,
                diffs=resp.diffs,
                hasDetailedDiff=True,
                detailedDiff={
                    k: provider_pb2.PropertyDiff(kind=_KINDS[v.kind], inputDiff=v.input_diff) for k, v in resp.detailed_diff.items()
                },
            )

        return await self._call(request.urn, context, run)

    async def Create(self, request, context):
        async def run():
            resp = await self._provider.create(
                sdk.CreateRequest(request.urn, PropertyValue.unmarshal_map(request.properties), request.timeout, request.preview)
            )
            return provider_pb2.CreateResponse(id=resp.resource_id or "", properties=marshal_map(resp.properties))

        return await self._call(request.urn, context, run)

    async def Update(self, request, context):
        async def run():
            resp = await self._provider.update(
                sdk.UpdateRequest(
                    request.urn,
                    request.id,
                    PropertyValue.unmarshal_map(request.olds),
                    PropertyValue.unmarshal_map(request.news),
                    timeout=request.timeout,
                    ignore_changes=list(request.ignoreChanges),
                    preview=request.preview,
                )
            )
            return provider_pb2.UpdateResponse(properties=marshal_map(resp.properties))

        return await self._call(request.urn, context, run)

    async def Read(self, request, context):
        async def run():
            resp = await self._provider.read(
                sdk.ReadRequest(
                    request.urn, request.id, PropertyValue.unmarshal_map(request.properties), PropertyValue.unmarshal_map(request.inputs)
                )
            )
            if not resp.resource_id:
                return provider_pb2.ReadResponse(id="")  # no properties: gone / does not exist
            return provider_pb2.ReadResponse(id=resp.resource_id, properties=marshal_map(resp.properties), inputs=marshal_map(resp.inputs))

        return await self._call(request.urn, context, run)

    async def Delete(self, request, context):
        async def run():
            await self._provider.delete(
                sdk.DeleteRequest(request.urn, request.id, PropertyValue.unmarshal_map(request.properties), timeout=request.timeout)
            )
            return empty_pb2.Empty()

        return await self._call(request.urn, context, run)


def main(argv: list[str] | None = None) -> None:
    """`pulumi-resource-hyperpod ENGINE_ADDRESS [--logflow] [--logtostderr] [-v=N] [--tracing URL]`:
    serve on a free local port and print it (the plugin handshake)."""
    args = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(prog="pulumi-resource-hyperpod", description="Pulumi provider for HyperPod clusters")
    parser.add_argument("engine", help="the Pulumi engine's address")
    known, _ = parser.parse_known_args(args)
    core.set_output(EngineLog(known.engine))

    async def serve() -> None:
        server = grpc.aio.server(options=_GRPC_CHANNEL_OPTIONS)
        servicer = HyperpodServicer(args, __version__, HyperpodProvider(), engine_address=known.engine)
        provider_pb2_grpc.add_ResourceProviderServicer_to_server(servicer, server)
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        sys.stdout.write(f"{port}\n")
        sys.stdout.flush()
        await server.wait_for_termination()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
