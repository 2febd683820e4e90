"""schema.json is generated (native/schema.py) from the resources' definitions; these tests hold
the committed file to that generator and to the resource's real inputs and outputs (the dynamic
`Cluster`'s arguments, what `check` stores, what a create on the simulator returns), so neither
can change without the other."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pulumi_hyperpod
from pulumi_hyperpod.native import CLUSTER_TYPE, PACKAGE, wire
from pulumi_hyperpod.native.provider import CONFIG_KEYS, schema
from pulumi_hyperpod.native.resource import INPUTS as NATIVE_CLUSTER_INPUTS
from pulumi_hyperpod.native.resource import PREVIEW_OUTPUTS
from pulumi_hyperpod.plans import Policy
from pulumi_hyperpod.provider import ClusterArgs
from pulumi_hyperpod.provider.resource import OUTPUTS
from pulumi_hyperpod.provider.settings import SETTING_KEYS

from .conftest import on_wire, run, slurm_spec

SCHEMA = schema()
CLUSTER = SCHEMA["resources"][CLUSTER_TYPE]
JSON_TYPES = {"string": str, "boolean": bool, "integer": int, "number": (int, float), "array": list, "object": dict}


def test_the_committed_schema_is_what_the_generator_writes() -> None:
    from pulumi_hyperpod.native import schema as generator

    assert generator.SCHEMA_PATH.read_text(encoding="utf-8") == generator.text(), (
        "native/schema.json is stale: run `python -m pulumi_hyperpod.native.schema --write` (then `python -m pulumi_hyperpod.native.sdkgen`)"
    )
    assert generator.main(["--check"]) == 0


def test_a_property_without_a_description_stops_the_generation(monkeypatch) -> None:
    import pytest

    from pulumi_hyperpod.native import schema as generator

    monkeypatch.delitem(generator.CLUSTER, "adopt")
    with pytest.raises(generator.SchemaError, match="not described \\['adopt'\\]"):
        generator.schema()


def test_package_identity() -> None:
    assert SCHEMA["name"] == PACKAGE
    assert SCHEMA["version"] == pulumi_hyperpod.__version__
    assert set(SCHEMA["resources"]) == {
        CLUSTER_TYPE,
        "hyperpod:index:GcpTrainingCluster",  # tests/unit/native/test_gcp.py
        "hyperpod:index:ComputeQuota",  # tests/unit/native/test_governance.py
        "hyperpod:index:ClusterSchedulerConfig",
    }


def test_inputs_are_the_dynamic_clusters_arguments() -> None:
    arguments = {f.name for f in dataclasses.fields(ClusterArgs)}
    assert set(CLUSTER["inputProperties"]) == {wire.camel(a) for a in arguments}
    assert set(NATIVE_CLUSTER_INPUTS) == arguments


def test_properties_are_what_check_stores_and_the_outputs() -> None:
    assert set(CLUSTER["properties"]) == {wire.camel(k) for k in ("spec", *SETTING_KEYS, *OUTPUTS, *PREVIEW_OUTPUTS)}
    assert set(CLUSTER["required"]) <= set(CLUSTER["properties"])


def test_policy_type_is_the_policy_model() -> None:
    policy = SCHEMA["types"]["hyperpod:index:Policy"]["properties"]
    assert set(policy) == {wire.camel(name) for name in Policy.model_fields}
    for name, field in Policy.model_fields.items():
        expected = {bool: "boolean", int: "integer", float: "number"}.get(field.annotation)
        if expected:
            assert policy[wire.camel(name)]["type"] == expected, name


def test_config_is_what_configure_reads() -> None:
    assert set(SCHEMA["config"]["variables"]) == set(CONFIG_KEYS)
    assert set(SCHEMA["provider"]["inputProperties"]) == set(CONFIG_KEYS)


def _type_ref(spec: dict[str, Any]) -> dict[str, Any] | None:
    ref = spec.get("$ref", "")
    return SCHEMA["types"][ref.removeprefix("#/types/")] if ref.startswith("#/types/") else None


def _conforms(value: Any, spec: dict[str, Any], path: str) -> list[str]:
    if spec.get("$ref") == "pulumi.json#/Any":
        return []
    typed = _type_ref(spec)
    if typed is not None:
        spec = typed
    kind = spec.get("type")
    problems = []
    if kind == "integer" and isinstance(value, float) and value.is_integer():
        value = int(value)
    if (kind and not isinstance(value, JSON_TYPES[kind])) or (kind in ("integer", "number") and isinstance(value, bool)):
        return [f"{path}: {value!r} is not {kind}"]
    if kind == "object" and isinstance(value, dict):
        if "properties" in spec:
            extra = set(value) - set(spec["properties"])
            missing = set(spec.get("required", ())) - set(value)
            problems += [f"{path}.{k}: not in the schema" for k in sorted(extra)]
            problems += [f"{path}.{k}: required, missing" for k in sorted(missing)]
            for k, v in value.items():
                if k in spec["properties"]:
                    problems += _conforms(v, spec["properties"][k], f"{path}.{k}")
        if "additionalProperties" in spec:
            for k, v in value.items():
                problems += _conforms(v, spec["additionalProperties"], f"{path}.{k}")
    if kind == "array" and isinstance(value, list) and "items" in spec:
        for i, v in enumerate(value):
            problems += _conforms(v, spec["items"], f"{path}[{i}]")
    return problems


def test_real_outputs_conform_to_the_schema(harness) -> None:
    """A create on the simulator, through the adapter: every output is in the schema with its type,
    every required property is there."""
    from pulumi.provider.experimental.provider import CheckRequest, CreateRequest

    inputs = {"spec": slurm_spec(2), "policy": {"max_scale_in_fraction": 0.5, "protected_node_ids": ["i-0123abcd"]}, "wait": "InService"}
    checked = run(harness.provider.check(CheckRequest(harness.urn, {}, on_wire(inputs), b"")))
    assert not checked.failures
    created = run(harness.provider.create(CreateRequest(harness.urn, checked.inputs, 0, False)))
    outputs = json.loads(json.dumps(wire.bag_from_wire(created.properties)))
    outputs = {wire.camel(k): v for k, v in outputs.items()}
    outputs["policy"] = {wire.camel(k): v for k, v in outputs["policy"].items()}
    outputs["groups"] = {g: {wire.camel(k): v for k, v in s.items()} for g, s in outputs["groups"].items()}
    problems = _conforms(outputs, {"type": "object", "properties": CLUSTER["properties"], "required": CLUSTER["required"]}, "Cluster")
    assert not problems, problems
    assert set(outputs["groups"]["workers"]) == set(SCHEMA["types"]["hyperpod:index:GroupStatus"]["properties"])
