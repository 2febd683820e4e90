"""Errors under the SDK's own dynamic provider host (pulumi/dynamic/__main__.py): one the user can
act on reaches the engine as its one-line message; a bug keeps its traceback.

The host module is loaded from the installed SDK without its last line (`main()` serves forever)
and stands in as `__main__`, as under `python -m pulumi.dynamic`; its servicer is called as the
engine calls it, with a context that keeps what `abort` was given.
"""

from __future__ import annotations

import asyncio
import importlib.util
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import grpc
import pulumi.dynamic
import pytest
from pulumi.dynamic.dynamic import serialize_provider
from pulumi.runtime import proto, rpc

from pulumi_hyperpod.provider import ClusterProvider, ProviderError, errors, process, props

from tests.support.provider_specs import slurm_spec, wire


class Aborted(Exception):
    pass


class Context:
    """The gRPC servicer context, as far as the host uses it."""

    def __init__(self) -> None:
        self.code: grpc.StatusCode | None = None
        self.details = ""

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        self.code, self.details = code, details
        raise Aborted(details)


def load_host() -> ModuleType:
    path = Path(pulumi.dynamic.__file__).with_name("__main__.py")
    source = path.read_text()
    assert source.rstrip().endswith("\nmain()"), "the SDK's host changed: revisit provider/errors.py"
    spec = importlib.util.spec_from_file_location("pulumi.dynamic.__main__", path)
    module = importlib.util.module_from_spec(spec)
    exec(compile(source.rstrip()[: -len("main()")], str(path), "exec"), module.__dict__)
    return module


@pytest.fixture
def host(monkeypatch) -> ModuleType:
    module = load_host()
    monkeypatch.setitem(sys.modules, "__main__", module)
    # not the host's exit at once (process.py): this process is pytest, which must end as it does
    monkeypatch.setattr(process, "install", lambda: None)
    return module


def encoded(props: dict[str, Any]):
    loop = asyncio.new_event_loop()
    try:
        return loop.run_until_complete(rpc.serialize_properties(props, {}))
    finally:
        loop.close()


def create(host: ModuleType, provider: ClusterProvider, spec: dict[str, Any]) -> Context:
    """`Create` through the host's servicer; the context it aborted (or not)."""
    inputs, _ = props.check_inputs(wire({"spec": spec, "backend": "fake"}))  # the inputs as check stores them, no preview
    request = proto.CreateRequest(properties=encoded({**inputs, host.PROVIDER_KEY: serialize_provider(provider)}))
    context = Context()
    try:
        host.DynamicResourceProviderServicer().Create(request, context)
    except Aborted:
        pass
    return context


def test_an_existing_cluster_fails_the_create_with_its_one_line_message(host, provider, sim) -> None:
    assert create(host, provider, slurm_spec(name="taken")).code is None
    context = create(host, provider, slurm_spec(name="taken"))
    assert context.code == grpc.StatusCode.UNKNOWN
    assert "already exists" in context.details and "adopt" in context.details, context.details
    assert "Traceback" not in context.details and len(context.details.splitlines()) == 1, context.details


def test_a_bug_keeps_its_traceback(host, provider, sim, monkeypatch) -> None:
    def broken(self, props):
        return {}["no-such-key"]

    monkeypatch.setattr(ClusterProvider, "create", broken)
    context = create(host, provider, slurm_spec(name="bug"))
    assert context.details.startswith("Traceback (most recent call last):"), context.details
    assert "KeyError: 'no-such-key'" in context.details and "broken" in context.details


def test_the_host_is_taught_once_and_nothing_else_is(host) -> None:
    assert errors.install(host) and errors.install(host)
    assert isinstance(host.traceback, errors._HostTraceback)
    assert host.traceback.extract_stack is errors.traceback.extract_stack  # the rest is the real module
    other = ModuleType("other")
    assert not errors.install(other) and not hasattr(other, "traceback")  # formats errors otherwise: left be
    assert not errors.install(None)
    assert sys.modules["traceback"] is errors.traceback  # the process' own module is untouched


def test_user_message() -> None:
    assert errors.user_message(ProviderError("cluster c: the plan is refused by policy: [x] y")) == (
        "cluster c: the plan is refused by policy: [x] y"
    )
    try:
        {}["bug"]
    except KeyError as bug:
        assert errors.user_message(bug).startswith("Traceback") and "KeyError" in errors.user_message(bug)
