"""The native provider's adapter over the dynamic provider: what it adds (wire names, the spec's
forms folded, detailed diff, preview answers, import by id, clean errors, the log channel) and that
every decision is still the dynamic provider's (same text, same refusals)."""

from __future__ import annotations

import json

import pytest
from pulumi.provider.experimental.property_value import Computed, PropertyValue
from pulumi.provider.experimental.provider import (
    CheckRequest,
    CreateRequest,
    DeleteRequest,
    DiffRequest,
    PropertyDiffKind,
    ReadRequest,
    UpdateRequest,
)

from pulumi_hyperpod import connect
from pulumi_hyperpod.native import wire
from pulumi_hyperpod.native.server import user_message
from pulumi_hyperpod.provider import ProviderError

from .conftest import on_wire, run, slurm_spec


def check(h, olds, news):
    return run(h.provider.check(CheckRequest(h.urn, olds, on_wire(news), b"")))


def created(h, inputs):
    checked = check(h, {}, inputs)
    assert not checked.failures, [(f.property, f.reason) for f in checked.failures]
    return checked.inputs, run(h.provider.create(CreateRequest(h.urn, checked.inputs, 0, False)))


def test_check_folds_the_spec_fields_and_prints_the_creation_plan(harness) -> None:
    spec = slurm_spec(2)
    news = {
        "cluster_name": spec["ClusterName"],
        "instance_groups": spec["InstanceGroups"],
        "vpc_config": spec["VpcConfig"],
        "tags": {"team": "ml"},
    }
    checked = check(harness, {}, news)
    assert not checked.failures
    stored = wire.bag_from_wire(checked.inputs)
    assert set(stored) == {"spec", "wait", "timeout", "adopt", "policy"}
    assert stored["spec"]["ClusterName"] == "native-cluster"
    assert stored["spec"]["Tags"] == [{"Key": "team", "Value": "ml"}]
    text = harness.said()
    assert "[hyperpod native-cluster] Plan for cluster native-cluster: create" in text
    assert "CreateCluster" in text


def test_spec_file_is_read_relative_to_the_working_directory(harness, tmp_path, monkeypatch) -> None:
    (tmp_path / "cluster.json").write_text(json.dumps(slurm_spec(3, name="from-file")))
    monkeypatch.chdir(tmp_path)
    checked = check(harness, {}, {"spec_file": "cluster.json", "cluster_name": "renamed"})
    assert not checked.failures
    spec = wire.bag_from_wire(checked.inputs)["spec"]
    assert spec["ClusterName"] == "renamed" and spec["InstanceGroups"][1]["InstanceCount"] == 3
    missing = check(harness, {}, {"spec_file": "nope.json"})
    assert [f.property for f in missing.failures] == ["specFile"] and "nope.json" in missing.failures[0].reason


def test_check_failures_name_the_property_in_the_programs_spelling(harness) -> None:
    bad = slurm_spec()
    bad["InstanceGroups"][1]["InstanceCount"] = -1
    failures = check(harness, {}, {"spec": bad, "policy": {"max_scale_in_fraction": 2}, "wait": "forever"}).failures
    paths = {f.property for f in failures}
    assert "policy.maxScaleInFraction" in paths and "wait" in paths
    assert any(p.startswith("spec.InstanceGroups[1]") for p in paths), paths
    typo = run(
        harness.provider.check(CheckRequest(harness.urn, {}, {**on_wire({"spec": slurm_spec()}), "clusterNmae": PropertyValue("x")}, b""))
    )
    assert [f.property for f in typo.failures] == ["clusterNmae"]
    assert harness.simulator and not connect(backend="fake", simulator=harness.simulator).list_clusters()["ClusterSummaries"]


def test_unknown_values_stay_unknown_and_the_preview_says_so(harness) -> None:
    spec = slurm_spec()
    news = on_wire({"spec": spec})
    groups = [wire.to_property(g) for g in spec["InstanceGroups"]]
    role_unknown = dict(groups[1].value)
    role_unknown["ExecutionRole"] = PropertyValue.computed()
    spec_value = dict(news["spec"].value)
    spec_value["InstanceGroups"] = PropertyValue([groups[0], PropertyValue(role_unknown)])
    checked = run(harness.provider.check(CheckRequest(harness.urn, {}, {**news, "spec": PropertyValue(spec_value)}, b"")))
    assert not checked.failures
    role = checked.inputs["spec"].value["InstanceGroups"].value[1].value["ExecutionRole"]
    assert isinstance(role.value, Computed)
    assert "not known until they are created" in harness.said()
    preview = run(harness.provider.create(CreateRequest(harness.urn, checked.inputs, 0, True)))
    assert preview.resource_id is None and isinstance(preview.properties["arn"].value, Computed)


def test_secret_spec_stays_secret(harness) -> None:
    news = on_wire({"spec": slurm_spec()})
    news["spec"] = news["spec"].with_secret(True)
    checked = run(harness.provider.check(CheckRequest(harness.urn, {}, news, b"")))
    assert not checked.failures and checked.inputs["spec"].is_secret


def test_lifecycle_detailed_diff_update_read_import_delete(harness) -> None:
    inputs, made = created(harness, {"spec": slurm_spec(1)})
    assert made.resource_id.startswith("arn:aws:sagemaker:")
    state = made.properties
    assert wire.bag_from_wire(state)["groups"]["workers"]["target_count"] == 1
    assert "targetCount" in state["groups"].value["workers"].value  # wire names all the way down
    harness.said()

    # nothing changed: no diff, no text
    same = check(harness, inputs, {"spec": slurm_spec(1)})
    diff = run(harness.provider.diff(DiffRequest(harness.urn, made.resource_id, state, same.inputs, [])))
    assert diff.changes is False and not diff.detailed_diff and harness.said() == ""

    # scale out: one property path, an update, the plan printed
    grown = check(harness, inputs, {"spec": slurm_spec(3), "policy": {"allow_replacement": True}})
    diff = run(harness.provider.diff(DiffRequest(harness.urn, made.resource_id, state, grown.inputs, [])))
    assert diff.changes and not diff.replaces
    assert {k: v.kind for k, v in diff.detailed_diff.items()} == {
        "spec.InstanceGroups[1].InstanceCount": PropertyDiffKind.UPDATE,
        "policy.allowReplacement": PropertyDiffKind.ADD,
    }
    assert "grow (+2)" in harness.said()
    preview = run(harness.provider.update(UpdateRequest(harness.urn, made.resource_id, state, grown.inputs, 0, [], True)))
    assert wire.bag_from_wire(preview.properties)["groups"]["workers"]["target_count"] == 1  # nothing ran
    updated = run(harness.provider.update(UpdateRequest(harness.urn, made.resource_id, state, grown.inputs, 0, [], False)))
    state = updated.properties
    assert wire.bag_from_wire(state)["groups"]["workers"]["target_count"] == 3

    # a renamed cluster: replacement of spec.ClusterName, delete before replace
    renamed = slurm_spec(3, name="other-name")
    replaced = check(harness, grown.inputs, {"spec": renamed, "policy": {"allow_replacement": True}})
    diff = run(harness.provider.diff(DiffRequest(harness.urn, made.resource_id, state, replaced.inputs, [])))
    assert diff.replaces == ["spec.ClusterName"] and diff.delete_before_replace
    assert diff.detailed_diff["spec.ClusterName"].kind == PropertyDiffKind.UPDATE_REPLACE
    refused = check(harness, grown.inputs, {"spec": renamed})
    assert [f.property for f in refused.failures] == ["spec.ClusterName"]

    # refresh after an out-of-band scale-in; then import by name and by ARN
    client = connect(backend="fake", simulator=harness.simulator)
    nodes = client.list_cluster_nodes(ClusterName="native-cluster")["ClusterNodeSummaries"]
    victim = next(n["InstanceId"] for n in nodes if n["InstanceGroupName"] == "workers")
    client.batch_delete_cluster_nodes(ClusterName="native-cluster", NodeIds=[victim])
    read = run(harness.provider.read(ReadRequest(harness.urn, made.resource_id, state, grown.inputs)))
    assert read.resource_id == made.resource_id
    assert wire.bag_from_wire(read.inputs)["spec"]["InstanceGroups"][1]["InstanceCount"] == 2
    for id_ in ("native-cluster", made.resource_id):
        imported = run(harness.provider.read(ReadRequest(harness.urn, id_, {}, {})))
        assert imported.resource_id == made.resource_id
        program = check(harness, imported.inputs, {"spec": slurm_spec(2)})
        diff = run(harness.provider.diff(DiffRequest(harness.urn, imported.resource_id, imported.properties, program.inputs, [])))
        assert diff.changes is False, {k: v.kind for k, v in diff.detailed_diff.items()}
    other_arn = made.resource_id[:-4] + "zzzz"
    assert run(harness.provider.read(ReadRequest(harness.urn, other_arn, {}, {}))).resource_id is None
    assert run(harness.provider.read(ReadRequest(harness.urn, "no-such-cluster", {}, {}))).resource_id is None

    # delete: the deletion plan, then gone; a read then drops it
    run(harness.provider.delete(DeleteRequest(harness.urn, made.resource_id, read.properties, 0)))
    assert "DeleteCluster" in harness.said()
    assert client.list_clusters()["ClusterSummaries"] == []
    assert run(harness.provider.read(ReadRequest(harness.urn, made.resource_id, read.properties, read.inputs))).resource_id is None


def test_create_of_an_existing_name_fails_with_the_dynamic_providers_message(harness) -> None:
    checked = check(harness, {}, {"spec": slurm_spec(1)})  # checked while the name was free
    created(harness, {"spec": slurm_spec(1)})
    with pytest.raises(ProviderError) as error:
        run(harness.provider.create(CreateRequest(harness.urn, checked.inputs, 0, False)))
    message = user_message(error.value)
    assert "already exists" in message and "adopt: true in TypeScript" in message and "Traceback" not in message
    try:
        {}["bug"]
    except KeyError as bug:  # not an error the user can act on: the traceback goes with it
        assert "Traceback" in user_message(bug) and "KeyError" in user_message(bug)
