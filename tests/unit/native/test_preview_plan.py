"""The native provider's preview answers carry the plan (`plan` output, policies/README.md): the
plan JSON the update would run, as `hyperpod plan --json` prints it, so a policy pack can see it;
nothing runs, and a plan that cannot be made says why instead of passing for safe."""

from __future__ import annotations

import json

from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import CheckRequest, CreateRequest, UpdateRequest

from pulumi_hyperpod.native import wire
from pulumi_hyperpod.native.core import PLAN_UNKNOWN_FORMAT
from pulumi_hyperpod.plans.model import PLAN_FORMAT

from .conftest import on_wire, run, slurm_spec


def checked(h, olds, news):
    result = run(h.provider.check(CheckRequest(h.urn, olds, on_wire(news), b"")))
    assert not result.failures, [(f.property, f.reason) for f in result.failures]
    return result.inputs


def plan_output(properties) -> dict:
    return json.loads(properties["plan"].value)


def test_a_creation_preview_carries_the_creation_plan(harness) -> None:
    inputs = checked(harness, {}, {"spec": slurm_spec(2, name="preview-create")})
    preview = run(harness.provider.create(CreateRequest(harness.urn, inputs, 0, True)))
    plan = plan_output(preview.properties)
    assert plan["format"] == PLAN_FORMAT and plan["action"] == "create" and plan["cluster_name"] == "preview-create"
    assert [s["operation"] for s in plan["steps"]] == ["CreateCluster"]
    assert {g["group"]: g["target_after"] for g in plan["groups"]} == {"controller": 1, "workers": 2}
    assert plan["cost"]["cluster"]["after_per_hour"] > 0


def test_an_update_preview_carries_the_scale_in_with_its_victims_and_changes_nothing(harness) -> None:
    inputs = checked(harness, {}, {"spec": slurm_spec(3, name="preview-update")})
    made = run(harness.provider.create(CreateRequest(harness.urn, inputs, 0, False)))
    assert "plan" not in made.properties or made.properties["plan"].value is None  # only a preview sets it
    shrunk = checked(harness, inputs, {"spec": slurm_spec(1, name="preview-update")})
    preview = run(harness.provider.update(UpdateRequest(harness.urn, made.resource_id, made.properties, shrunk, 0, [], True)))
    plan = plan_output(preview.properties)
    assert plan["action"] == "update" and plan["calls"] == {"BatchDeleteClusterNodes": 1}
    victims = [v for step in plan["steps"] for v in step["victims"]]
    assert len(victims) == 2 and {v["group"] for v in victims} == {"workers"}
    assert {v["node_id"] for v in victims} <= {n["key"] for n in plan["basis"]["nodes"]}
    assert wire.bag_from_wire(preview.properties)["groups"]["workers"]["target_count"] == 3  # nothing ran


def test_a_plan_that_cannot_be_made_is_an_unknown_document_not_an_empty_plan(harness) -> None:
    spec = slurm_spec(name="preview-unknown")
    news = on_wire({"spec": spec})
    spec_value = dict(news["spec"].value)
    spec_value["VpcConfig"] = PropertyValue.computed()
    inputs = run(harness.provider.check(CheckRequest(harness.urn, {}, {**news, "spec": PropertyValue(spec_value)}, b""))).inputs
    preview = run(harness.provider.create(CreateRequest(harness.urn, inputs, 0, True)))
    document = plan_output(preview.properties)
    assert document["format"] == PLAN_UNKNOWN_FORMAT and document["cluster_name"] == "preview-unknown"
    assert "spec.VpcConfig" in document["unknown"]


def test_the_plan_is_secret_when_an_input_is(harness) -> None:
    news = on_wire({"spec": slurm_spec(name="preview-secret")})
    news["spec"] = news["spec"].with_secret(True)
    inputs = run(harness.provider.check(CheckRequest(harness.urn, {}, news, b""))).inputs
    preview = run(harness.provider.create(CreateRequest(harness.urn, inputs, 0, True)))
    assert preview.properties["plan"].is_secret
    assert plan_output(preview.properties)["action"] == "create"


def test_a_cluster_that_cannot_be_read_gives_an_unknown_document(harness, monkeypatch) -> None:
    inputs = checked(harness, {}, {"spec": slurm_spec(2, name="preview-unreadable")})

    def unreachable(*_args, **_kwargs):
        raise ConnectionError("could not connect to the endpoint URL")

    monkeypatch.setattr("pulumi_hyperpod.provider.cloud_provider.CloudProvider._read", unreachable)
    preview = run(harness.provider.create(CreateRequest(harness.urn, inputs, 0, True)))
    document = plan_output(preview.properties)
    assert document["format"] == PLAN_UNKNOWN_FORMAT
    assert document["unknown"] == "could not plan cluster preview-unreadable: could not connect to the endpoint URL"
