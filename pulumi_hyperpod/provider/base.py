"""The dynamic-provider transport both clouds share: Pulumi's dynamic `ResourceProvider` over the
CloudProvider (provider/cloud_provider.py), which makes every decision.

What is the transport's own, and nothing more: the CloudProvider's outcomes as the SDK's results
(CheckResult, DiffResult…), and the host process taught its ways (provider/process.py: exit at
once when idle, the collector paused in check and diff, a failed check noted, each call's resource
noted; provider/errors.py: an error the user can act on reported by its message, without a
traceback; provider/engine_log.py: the provider's text sent to the engine's log, on the resource).

The instance holds no client, session or credential (each call connects for itself): it is
pickled into the stack's state by its class's module path — `pulumi_hyperpod.provider.provider.
ClusterProvider`, `pulumi_hyperpod.provider.gcp.GcpClusterProvider` (and the older
`pulumi_hyperpod.gcp.provider.GcpClusterProvider`) — so those paths and the instances' attributes
stay, and the CloudProvider is built from those attributes at each call.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

from pulumi.dynamic import CheckFailure, CheckResult, CreateResult, DiffResult, ReadResult, ResourceProvider, UpdateResult

from pulumi_hyperpod.provider import errors, process
from pulumi_hyperpod.provider.process import attributed, gc_paused, in_flight

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.provider.cloud_provider import CloudProvider


class DynamicProvider(ResourceProvider):
    # Nothing secret is captured (a test proves it), so the serialized provider is kept in plain
    # text unless a secret Output was captured; no secrets provider is needed to run offline.
    serialize_as_secret_always = False

    def core(self) -> CloudProvider:
        """The CloudProvider this transport serves (made from the instance's plain attributes)."""
        raise NotImplementedError

    def configure(self, req: Any) -> None:
        # the engine configures a provider only in its host process: the host's exit and errors
        process.install()
        errors.install(process.host_module())
        from pulumi_hyperpod.provider import engine_log  # noqa: PLC0415 - grpc and the engine's protocol: the host's, never a program's (test_program_lean)

        engine_log.install(process.host_module(), sys.argv[1:])

    @in_flight
    @gc_paused
    @attributed
    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        checked = self.core().check(_olds, news)
        if checked.failures:
            process.failed()  # the engine stops the deployment: the host shuts down normally
        return CheckResult(checked.inputs, [CheckFailure(path, reason) for path, reason in checked.failures])

    @in_flight
    @gc_paused
    @attributed
    def diff(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> DiffResult:
        diffed = self.core().diff(_id, _olds, _news)
        return DiffResult(changes=diffed.changes, replaces=diffed.replaces, delete_before_replace=diffed.delete_before_replace)

    @in_flight
    @attributed
    def create(self, props: dict[str, Any]) -> CreateResult:
        created = self.core().create(props)
        return CreateResult(created.id, created.outputs)

    @in_flight
    @attributed
    def update(self, _id: str, _olds: dict[str, Any], _news: dict[str, Any]) -> UpdateResult:
        return UpdateResult(self.core().update(_id, _olds, _news))

    @in_flight
    @attributed
    def read(self, id_: str, props: dict[str, Any]) -> ReadResult:
        found = self.core().read(id_, props)
        return ReadResult(found.id, found.outputs, found.inputs)

    @in_flight
    @attributed
    def delete(self, _id: str, _props: dict[str, Any]) -> None:
        self.core().delete(_id, _props)
