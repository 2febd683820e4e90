"""The provider's text under the engine (provider/console.py, engine_log.py, process.py): each block
one log entry of the engine's, on the resource the call's request names, progress ephemeral.

A real gRPC `Engine` service stands in for the engine; the dynamic provider is called from a
`ResourceProviderServicer` method, as the SDK's dynamic host calls it (pulumi/dynamic/__main__.py:
`provider.check(olds, news)` inside `Check(self, request, context)`).
"""

from __future__ import annotations

from concurrent import futures
from types import ModuleType
from typing import Any
from collections.abc import Iterator

import grpc
import pytest
from google.protobuf import empty_pb2
from pulumi.runtime.proto import engine_pb2_grpc, provider_pb2
from pulumi.runtime.proto.provider_pb2_grpc import ResourceProviderServicer

from pulumi_hyperpod.provider import console, engine_log, process
from tests.support.provider_specs import props, slurm_spec, wire

URN = "urn:pulumi:dev::demo::hyperpod:index:SlurmCluster$pulumi-python:dynamic/hyperpod:Cluster::demo"


class Engine(engine_pb2_grpc.EngineServicer):
    def __init__(self) -> None:
        self.logs: list[Any] = []

    def Log(self, request: Any, context: Any) -> Any:
        self.logs.append(request)
        return empty_pb2.Empty()


@pytest.fixture
def engine_service() -> Iterator[Engine]:
    service = Engine()
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    engine_pb2_grpc.add_EngineServicer_to_server(service, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    console.set_sink(engine_log.EngineLog(f"127.0.0.1:{port}"))
    try:
        yield service
    finally:
        console.set_sink(None)
        server.stop(0)


class Host(ResourceProviderServicer):
    """The SDK's dynamic host in miniature: it hands the provider the properties, never the URN."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider

    def Check(self, request: Any, context: Any) -> Any:
        return self.provider.check({}, self.news)


def test_the_creation_plan_is_one_entry_on_the_cluster_resource(engine_service, provider, sim):
    service = engine_service
    host = Host(provider)
    host.news = wire(props(slurm_spec(workers=2)))
    checked = host.Check(provider_pb2.CheckRequest(urn=URN), None)
    assert not checked.failures
    plans = [log for log in service.logs if "Plan for cluster demo-cluster: create" in log.message]
    assert len(plans) == 1, [log.message for log in service.logs]
    (plan,) = plans
    assert plan.urn == URN  # the cluster's, not the stack's ("")
    assert not plan.ephemeral
    assert "CreateCluster" in plan.message and plan.message.count("\n") > 5  # the whole table in the one entry
    assert all(line.startswith("[hyperpod demo-cluster] ") for line in plan.message.splitlines())


def test_progress_is_ephemeral_and_a_call_outside_a_host_is_the_stacks(engine_service):
    service = engine_service
    console.say("waiting for ClusterTarget (3s)", "demo-cluster", progress=True)
    with console.about(URN):
        console.say("a warning", "demo-cluster")
    assert [(log.message, log.urn, log.ephemeral) for log in service.logs] == [
        ("[hyperpod demo-cluster] waiting for ClusterTarget (3s)", "", True),
        ("[hyperpod demo-cluster] a warning", URN, False),
    ]


def test_request_urn_is_found_only_under_a_servicer_method():
    class Servicer(ResourceProviderServicer):
        def Diff(self, request: Any, context: Any) -> str:
            return attributed_call()

    @process.attributed
    def attributed_call() -> str:
        return console.CURRENT_URN.get()

    assert Servicer().Diff(provider_pb2.DiffRequest(urn=URN), None) == URN
    assert attributed_call() == ""  # a program or a test calling the provider: the stack's
    assert console.CURRENT_URN.get() == ""  # and nothing lingers after the call


@pytest.mark.parametrize(
    ("argv", "address"),
    [
        (["127.0.0.1:40123"], "127.0.0.1:40123"),
        (["--logtostderr", "-v=9", "--tracing", "http://tracer:9411", "127.0.0.1:40123"], "127.0.0.1:40123"),
        (["localhost:5"], "localhost:5"),
        ([], None),
        (["-v=9"], None),
        (["/some/file.py"], None),
    ],
)
def test_the_engine_address_is_the_plugins_last_argument(argv, address):
    assert engine_log.engine_address(argv) == address


def test_install_only_in_the_host_and_only_when_no_channel_was_chosen(monkeypatch):
    monkeypatch.setattr(engine_log, "_installed", [])
    host = ModuleType("pulumi.dynamic.__main__")
    assert engine_log.install(None, ["127.0.0.1:40123"]) is False  # not the dynamic host
    monkeypatch.setenv(console.OUTPUT_ENV, "stderr")
    assert engine_log.install(host, ["127.0.0.1:40123"]) is False  # HYPERPOD_PROVIDER_OUTPUT chose
    monkeypatch.delenv(console.OUTPUT_ENV)
    assert engine_log.install(host, ["--logtostderr"]) is False  # no engine address
    try:
        assert engine_log.install(host, ["127.0.0.1:40123"]) is True
        assert engine_log.install(host, ["127.0.0.1:40124"]) is True  # the second call changes nothing
        assert engine_log._installed[0] is console._SINK and len(engine_log._installed) == 1
    finally:
        console.set_sink(None)
