"""`NativeCluster` in a Python program (Pulumi mocks): snake_case outputs, as on the dynamic
`Cluster`, each resolving to the value the native provider returned.

The mocks answer the resource with the real adapter: `check` and `create` of `HyperpodProvider` on
the in-memory simulator, fed the property map the program sent and answering with the provider's
camelCase outputs, as the engine would pass them on.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pulumi
import pytest
from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import CheckRequest, CreateRequest
from pulumi.runtime.mocks import MockMonitor

from pulumi_hyperpod.native import wire
from pulumi_hyperpod.native.provider import schema
from pulumi_hyperpod.native.resource import PROPERTIES, TYPE, NativeCluster
from pulumi_hyperpod.native.server import marshal_map

from .conftest import run, slurm_spec

CLUSTER = schema()["resources"][TYPE]


class AdapterMocks(pulumi.runtime.Mocks):
    """The engine's part: inputs as sent → the adapter's check and create → outputs as returned."""

    def __init__(self, harness) -> None:
        self.harness = harness
        self.sent: dict[str, Any] = {}
        self.returned: dict[str, Any] = {}

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        assert args.typ == TYPE, args.typ
        self.sent = dict(args.inputs)
        provider, urn = self.harness.provider, self.harness.urn
        news = PropertyValue.unmarshal_map(marshal_map({k: wire.to_property(v) for k, v in self.sent.items()}))
        checked = run(provider.check(CheckRequest(urn, {}, news, b"")))
        assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
        created = run(provider.create(CreateRequest(urn, checked.inputs, 0, False)))
        self.returned = {k: wire.to_python(v) for k, v in created.properties.items()}
        return created.resource_id, self.returned

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list | None]:
        return {}, None


class RecordingMonitor(MockMonitor):
    """Keeps each RegisterResource request (the resource options the SDK sent)."""

    def __init__(self, mocks: AdapterMocks) -> None:
        super().__init__(mocks)
        self.requests: list[Any] = []

    def RegisterResource(self, request):
        self.requests.append(request)
        return super().RegisterResource(request)


@pytest.fixture
def mocks(harness):
    loop = asyncio.new_event_loop()  # the harness ran its own (asyncio.run) and left none current
    asyncio.set_event_loop(loop)
    mocks = AdapterMocks(harness)
    mocks.monitor = RecordingMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project="native", stack="test", preview=False, monitor=mocks.monitor)
    yield mocks
    asyncio.set_event_loop(None)
    loop.close()


def resolved(program, *names: str) -> dict[str, Any]:
    """Run `program` (it declares one NativeCluster) under the mocks; the named outputs' values."""
    seen: dict[str, Any] = {}

    @pulumi.runtime.test
    def wrapped():
        cluster = program()
        return pulumi.Output.all(**{name: getattr(cluster, name) for name in names}).apply(seen.update)

    wrapped()
    return seen


def test_every_schema_property_is_an_attribute_in_snake_case() -> None:
    assert sorted(PROPERTIES) == sorted(wire.snake(p) for p in CLUSTER["properties"])
    assert all(isinstance(getattr(NativeCluster, name), property) for name in PROPERTIES)


def test_outputs_are_snake_case_with_the_values_the_provider_returned(mocks) -> None:
    values = resolved(
        lambda: NativeCluster(
            "training",
            spec=slurm_spec(2, name="snake-outputs"),
            backend="fake",
            policy={"max_scale_in_fraction": 0.5},
            wait="InService",
            roles={"workers": "Compute"},
        ),
        *PROPERTIES,
    )
    # what the provider returned, as the dynamic Cluster spells it (its bag: snake_case keys,
    # `groups.<name>.target_count`, `policy.max_scale_in_fraction`, `location.backend`)
    expected = wire.bag_from_wire({k: wire.to_property(v) for k, v in mocks.returned.items()})
    assert set(expected) <= set(PROPERTIES), sorted(set(expected) - set(PROPERTIES))
    assert {k: v for k, v in values.items() if k in expected} == json.loads(json.dumps(expected))
    assert values["node_count"] == 3 and values["target_count"] == 3 and values["pending_count"] == 0
    assert values["cluster_name"] == "snake-outputs" and values["failure_message"] in (None, "")
    assert values["groups"]["workers"]["target_count"] == 2 and values["policy"] == {"max_scale_in_fraction": 0.5}
    assert values["roles"] == {"workers": "Compute"}  # group names are the user's: never renamed
    assert isinstance(values["node_count"], int)


def test_inputs_go_out_in_camel_case_and_the_spec_as_written(mocks) -> None:
    spec = slurm_spec(1, name="wire-names")
    spec["InstanceGroups"][1]["InstanceGroupName"] = "gpuWorkers"
    spec["Tags"] = [{"Key": "costCenter", "Value": "ml_research"}]
    values = resolved(
        lambda: NativeCluster("training", spec=spec, backend="fake", node_recovery="Automatic", policy={"max_scale_in_fraction": 0.5}),
        "groups",
        "spec",
    )
    assert {"spec", "backend", "nodeRecovery", "policy"} <= set(mocks.sent), sorted(mocks.sent)
    assert mocks.sent["policy"] == {"maxScaleInFraction": 0.5}
    assert mocks.sent["spec"]["Tags"] == [{"Key": "costCenter", "Value": "ml_research"}]
    assert set(values["groups"]) == {"controller", "gpuWorkers"}, values["groups"]
    assert values["spec"]["Tags"] == [{"Key": "costCenter", "Value": "ml_research"}]


def test_resource_options_name_properties_in_snake_case(mocks) -> None:
    """ignore_changes / replace_on_changes take the Python names, as with any generated SDK."""
    options = pulumi.ResourceOptions(ignore_changes=["instance_groups"], replace_on_changes=["node_recovery"])
    resolved(lambda: NativeCluster("training", spec=slurm_spec(1, name="options"), backend="fake", opts=options), "arn")
    request = next(r for r in mocks.monitor.requests if r.type == TYPE)
    assert list(request.ignoreChanges) == ["instanceGroups"] and list(request.replaceOnChanges) == ["nodeRecovery"]
