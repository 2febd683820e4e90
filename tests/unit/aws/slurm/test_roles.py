"""Slurm roles from provisioning_parameters.json: a dict, a bundle directory, S3 (the simulator's)."""

from __future__ import annotations

import json
import re

import pytest

from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.observe import observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.slurm import SlurmSpec
from pulumi_hyperpod.aws.slurm.render import render_hyperpod
from pulumi_hyperpod.aws.slurm.roles import (
    LifecycleError,
    apply_roles,
    parse_provisioning_parameters,
    provisioning_parameters_key,
    read_lifecycle_dir,
    resolve,
    resolve_roles,
)
from pulumi_hyperpod.aws.slurm.upload import upload_bundle
from pulumi_hyperpod.aws.spec import ClusterSpec
from tests.support.slurm_examples import LEGACY_PARAMS, legacy_cluster
from tests.support.paths import REPO
from tests.support.slurm_examples import LEGACY_SLURM, URI, upload_legacy_bundle

# ---- the readers ---------------------------------------------------------------------------------


def test_base_config_provisioning_parameters_give_the_roles():
    found = parse_provisioning_parameters(LEGACY_PARAMS)
    assert found.roles_for(["login-group", "controller-machine", "worker-group-1", "other"]) == {
        "login-group": "Login",
        "controller-machine": "Controller",
        "worker-group-1": "Compute",
        "other": "Compute",
    }
    assert found.partitions == {"worker-group-1": "partition-1"}


@pytest.mark.parametrize(
    "data,message",
    [
        ([], "the file holds an object; got list"),
        ({"worker_groups": []}, "controller_group: is required"),
        ({"controller_group": "c", "worker_groups": {"a": 1}}, "worker_groups: must be a list"),
        ({"controller_group": "c", "worker_groups": [{"partition_name": "p"}]}, "worker_groups[0].instance_group_name: is required"),
        ({"controller_group": "c", "login_group": "c"}, "login_group: 'c' is also the controller_group"),
        (
            {"controller_group": "c", "worker_groups": [{"instance_group_name": "c", "partition_name": "p"}]},
            "worker_groups: 'c' is the controller group and cannot also be a worker group",
        ),
    ],
)
def test_malformed_provisioning_parameters_name_the_field(data, message):
    with pytest.raises(LifecycleError) as caught:
        parse_provisioning_parameters(data, source="pp.json")
    assert message in str(caught.value) and "pp.json" in str(caught.value)


def test_read_from_a_rendered_bundle_directory(tmp_path):
    rendering = render_hyperpod(legacy_cluster(), SlurmSpec.from_dict(LEGACY_SLURM, partition_names=partition_names()))
    rendering.write(tmp_path)
    assert read_lifecycle_dir(tmp_path).roles_for(["controller-machine", "login-group"]) == {
        "controller-machine": "Controller",
        "login-group": "Login",
    }
    (tmp_path / "provisioning_parameters.json").write_text("{not json")
    with pytest.raises(LifecycleError, match="not valid JSON"):
        read_lifecycle_dir(tmp_path)
    with pytest.raises(LifecycleError, match=re.escape("cannot read provisioning_parameters.json")):
        read_lifecycle_dir(tmp_path / "missing")


@pytest.mark.parametrize(
    "uri,key",
    [
        ("s3://b/base-config/", ("b", "base-config/provisioning_parameters.json")),
        ("s3://b/base-config", ("b", "base-config/provisioning_parameters.json")),
        ("s3://b", ("b", "provisioning_parameters.json")),
        ("s3://b/", ("b", "provisioning_parameters.json")),
    ],
)
def test_the_file_under_a_source_s3_uri(uri, key):
    assert provisioning_parameters_key(uri) == key


def test_slurm_config_roles_need_no_bundle():
    request = {
        "ClusterName": "c",
        "InstanceGroups": [
            {**legacy_cluster()["InstanceGroups"][1], "SlurmConfig": {"NodeType": "Controller"}},
            {**legacy_cluster()["InstanceGroups"][2], "SlurmConfig": {"NodeType": "Compute", "PartitionNames": ["p"]}},
        ],
    }
    resolution = resolve(ClusterSpec.from_dict(request))
    assert resolution.roles == {"controller-machine": "Controller", "worker-group-1": "Compute"}
    assert resolution.source == "SlurmConfig"


def test_unknown_roles_say_how_to_state_them():
    resolution = resolve(ClusterSpec.from_dict(legacy_cluster()))
    assert resolution.roles is None
    assert "--lifecycle DIR" in resolution.notes[0] and "SlurmConfig.NodeType" in resolution.notes[0]


# ---- S3, through the simulator -------------------------------------------------------------------


@pytest.fixture
def world():
    sim = Simulator(seed=11)
    return sim, connect("fake", simulator=sim), connect("fake", simulator=sim, service="s3")


def test_roles_read_from_the_groups_source_s3_uri(world):
    _, _, s3 = world
    upload_legacy_bundle(s3)
    resolution = resolve(ClusterSpec.from_dict(legacy_cluster(uri=URI)), s3_client=s3)
    assert resolution.roles == {"login-group": "Login", "controller-machine": "Controller", "worker-group-1": "Compute"}
    assert resolution.source == URI


def test_s3_errors_leave_roles_unknown_with_the_reason(world):
    _, _, s3 = world
    resolution = resolve(ClusterSpec.from_dict(legacy_cluster(uri=URI)), s3_client=s3)
    assert resolution.roles is None
    assert resolution.notes[0].startswith(
        "could not read provisioning_parameters.json under s3://lifecycle-bucket/base-config/: NoSuchBucket"
    )
    s3.create_bucket(Bucket="lifecycle-bucket", CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    assert resolve(ClusterSpec.from_dict(legacy_cluster(uri=URI)), s3_client=s3).notes[0] == (
        "no provisioning_parameters.json under s3://lifecycle-bucket/base-config/"
    )


def test_a_malformed_bundle_in_s3_is_an_error_naming_the_object(world):
    _, _, s3 = world
    upload_bundle(s3, {"provisioning_parameters.json": json.dumps({"login_group": "x"}).encode()}, URI, create_bucket=True)
    with pytest.raises(LifecycleError, match=r"s3://lifecycle-bucket/base-config/provisioning_parameters.json:\n  - controller_group"):
        resolve_roles(ClusterSpec.from_dict(legacy_cluster(uri=URI)), s3_client=s3)


def _legacy_cluster_running(world):
    sim, sagemaker, s3 = world
    upload_legacy_bundle(s3)
    sagemaker.create_cluster(**legacy_cluster(uri=URI))
    sim.advance(3600)
    return sim, sagemaker, s3


def test_the_simulator_takes_a_legacy_clusters_roles_and_partitions_from_the_uploaded_bundle(world):
    sim, sagemaker, _ = _legacy_cluster_running(world)
    rows = sim.sinfo_rows("legacy")
    # the bundle's Slurm spec makes partition-1 the default (its hook marks it Default=YES on the controller)
    assert {(r["partition"], r["default"], r["nodes"]) for r in rows} == {("dev", False, 2), ("partition-1", True, 2)}
    groups = {g["InstanceGroupName"]: g for g in sagemaker.describe_cluster(ClusterName="legacy")["InstanceGroups"]}
    assert all("SlurmConfig" not in g for g in groups.values())  # the roles are only in the bundle
    assert "Include /opt/slurm/etc/slurm-spec.conf" in sim.slurm_conf("legacy")
    roles = {(r["role"], r["group"], len(r["hosts"])) for r in sim.slurm_roles("legacy")}
    assert roles == {("Controller", "controller-machine", 1), ("Login", "login-group", 1)}


def test_legacy_cluster_planned_down_to_0_controller_nodes_is_refused(world):
    """Roles only in provisioning_parameters.json (login-group, controller-machine, worker-group-1):
    read from S3, the controller guard applies as it does for SlurmConfig clusters."""
    _, sagemaker, s3 = _legacy_cluster_running(world)
    desired = ClusterSpec.from_dict(legacy_cluster(uri=URI, counts=(1, 0, 2)))
    observed = observe(sagemaker, "legacy")
    assert observed.group("controller-machine").node_type is None  # DescribeCluster does not say
    roles = resolve_roles(desired, s3_client=s3, observed=observed)
    assert roles == {"login-group": "Login", "controller-machine": "Controller", "worker-group-1": "Compute"}
    refused = plan(desired, apply_roles(observed, roles))
    assert [(r.rule, r.group) for r in refused.refusals] == [("controller-scale-in", "controller-machine")]
    assert refused.refused
    # without the roles the planner cannot know controller-machine is the controller
    assert "controller-scale-in" not in [r.rule for r in plan(desired, observed).refusals]


def test_legacy_cluster_roles_from_a_lifecycle_directory(world, tmp_path):
    _, sagemaker, _ = _legacy_cluster_running(world)
    render_hyperpod(legacy_cluster(uri=URI), SlurmSpec.from_dict(LEGACY_SLURM, partition_names=partition_names())).write(tmp_path)
    desired = ClusterSpec.from_dict(legacy_cluster(uri=URI, counts=(1, 0, 2)))
    observed = observe(sagemaker, "legacy")
    roles = resolve_roles(desired, lifecycle_dir=tmp_path, observed=observed)
    assert [r.rule for r in plan(desired, apply_roles(observed, roles)).refusals] == ["controller-scale-in"]


def test_legacy_cluster_roles_unknown_without_a_readable_bundle(world):
    _, sagemaker, s3 = _legacy_cluster_running(world)
    s3.delete_object(Bucket="lifecycle-bucket", Key="base-config/provisioning_parameters.json")
    observed = observe(sagemaker, "legacy")
    desired = ClusterSpec.from_dict(legacy_cluster(uri=URI, counts=(1, 0, 2)))
    resolution = resolve(desired, observed, s3_client=s3)
    assert resolution.roles is None and "scaling a group to 0 is refused" in resolution.notes[-1]
    assert apply_roles(observed, resolution.roles) is observed


# ---- CLI -----------------------------------------------------------------------------------------


def test_cli_roles_of_a_legacy_cluster_from_its_bundle_in_s3(tmp_path, monkeypatch):
    from tests.support.cli import hyperpod, use_fake_world

    use_fake_world(monkeypatch, tmp_path)
    sim = Simulator.open_default()
    sagemaker, s3 = connect("fake", simulator=sim), connect("fake", simulator=sim, service="s3")
    upload_legacy_bundle(s3)
    sagemaker.create_cluster(**legacy_cluster(uri=URI))
    data = json.loads(hyperpod("slurm", "roles", "legacy", "--json"))
    assert data["roles"] == {"login-group": "Login", "controller-machine": "Controller", "worker-group-1": "Compute"}
    assert data["source"] == URI
    s3.delete_object(Bucket="lifecycle-bucket", Key="base-config/provisioning_parameters.json")
    output = hyperpod("slurm", "roles", "legacy")
    assert "unknown" in output and "--lifecycle DIR" in output


def test_eks_clusters_need_no_slurm_roles():
    request = json.loads((REPO / "examples/specs/seed001-eks-continuous.json").read_text())
    resolution = resolve(ClusterSpec.from_dict(request), s3_client=object())  # S3 is not touched
    assert resolution.roles == {} and "EKS" in resolution.notes[0]


def test_with_the_planners_roles_argument_both_with_and_without_the_bundle(world):
    """The reader's roles drive plan()'s guards directly: the controller guard with the bundle
    readable, the unknown-roles guard without it."""
    _, sagemaker, s3 = _legacy_cluster_running(world)
    desired = ClusterSpec.from_dict(legacy_cluster(uri=URI, counts=(1, 0, 2)))
    observed = observe(sagemaker, "legacy")
    roles = resolve_roles(desired, s3_client=s3, observed=observed)
    assert [r.rule for r in plan(desired, observed, roles=roles).refusals] == ["controller-scale-in"]
    s3.delete_object(Bucket="lifecycle-bucket", Key="base-config/provisioning_parameters.json")
    unknown = resolve_roles(desired, s3_client=s3, observed=observed)
    assert unknown is None
    assert "slurm-roles-unknown" in [r.rule for r in plan(desired, observed, roles=unknown).refusals]


def test_cli_legacy_cluster_to_0_controllers_is_refused_with_and_without_the_bundle(tmp_path, monkeypatch):
    """Issue 13's done-when, through `hyperpod plan`: roles read from the bundle in S3 (the
    controller guard), from --lifecycle DIR (the same), and unknown once the bundle is gone
    (slurm-roles-unknown) — exit 2 every time, nothing changed."""
    from tests.support.cli import hyperpod, use_fake_world

    use_fake_world(monkeypatch, tmp_path)
    sim = Simulator.open_default()
    sagemaker, s3 = connect("fake", simulator=sim), connect("fake", simulator=sim, service="s3")
    upload_legacy_bundle(s3)
    sagemaker.create_cluster(**legacy_cluster(uri=URI))
    sim.advance(3600)
    lowered = tmp_path / "lowered.json"
    lowered.write_text(json.dumps(legacy_cluster(uri=URI, counts=(1, 0, 2))))

    from_s3 = hyperpod("plan", "-f", str(lowered), "--json", code=2)
    assert [(r["rule"], r["group"]) for r in json.loads(from_s3)["refusals"]] == [("controller-scale-in", "controller-machine")]

    bundle = tmp_path / "bundle"
    render_hyperpod(legacy_cluster(uri=URI), SlurmSpec.from_dict(LEGACY_SLURM, partition_names=partition_names())).write(bundle)
    s3.delete_object(Bucket="lifecycle-bucket", Key="base-config/provisioning_parameters.json")
    unknown = json.loads(hyperpod("plan", "-f", str(lowered), "--json", code=2))
    assert [r["rule"] for r in unknown["refusals"]] == ["slurm-roles-unknown"]
    assert any("provisioning_parameters.json" in note for note in unknown["notes"])

    from_dir = json.loads(hyperpod("plan", "-f", str(lowered), "--lifecycle", str(bundle), "--json", code=2))
    assert [r["rule"] for r in from_dir["refusals"]] == ["controller-scale-in"]
    hyperpod("apply", "-f", str(lowered), "--yes", code=2)
    assert sagemaker.describe_cluster(ClusterName="legacy")["InstanceGroups"][1]["TargetCount"] == 1


def test_roles_every_group_states_are_taken_without_the_bundle_readers_as_resolve_gives_them(world):
    """aws/stages.py answers from SlurmConfig.NodeType without loading this module when every group
    states it (a preview of such a cluster); otherwise resolve decides. Both give the same roles."""
    from pulumi_hyperpod.aws.stages import _stated_roles

    sim, sagemaker, _ = world
    stated = {
        "ClusterName": "stated",
        "InstanceGroups": [
            {**legacy_cluster()["InstanceGroups"][1], "SlurmConfig": {"NodeType": "Controller"}},
            {**legacy_cluster()["InstanceGroups"][2], "SlurmConfig": {"NodeType": "Compute", "PartitionNames": ["p"]}},
        ],
    }
    sagemaker.create_cluster(**stated)
    sim.advance(900)
    live = observe(sagemaker, "stated")
    half = {**stated, "InstanceGroups": [stated["InstanceGroups"][0], legacy_cluster()["InstanceGroups"][2]]}
    eks = json.loads((REPO / "examples/specs/seed001-eks-continuous.json").read_text())
    for specs, shortcut in [
        ((ClusterSpec.from_dict(stated), live), True),
        ((ClusterSpec.from_dict(stated), None), True),
        ((ClusterSpec.from_dict(half), live), False),  # a group without NodeType: its role is learnt
        ((ClusterSpec.from_dict(legacy_cluster()), None), False),
        ((ClusterSpec.from_dict(eks), None), False),  # resolve says why Slurm roles do not apply
    ]:
        resolution = resolve(*specs)
        assert (_stated_roles(*specs) is not None) is shortcut
        if shortcut:
            assert _stated_roles(*specs) == resolution.roles == {"controller-machine": "Controller", "worker-group-1": "Compute"}
            assert list(_stated_roles(*specs)) == list(resolution.roles) and resolution.notes == ()


@pytest.mark.parametrize(
    "key, note",
    [
        ("controller_group", "names controller_group 'head-group', which is not an instance group"),
        # awsome-distributed-training's README bundle names login_group "my-login-group" beside a cluster with none
        ("login_group", "names login_group 'head-group', which is not an instance group"),
    ],
)
def test_a_bundle_naming_a_group_the_cluster_does_not_have_is_noted(tmp_path, key, note):
    (tmp_path / "provisioning_parameters.json").write_text(json.dumps({**LEGACY_PARAMS, key: "head-group"}))
    resolution = resolve(ClusterSpec.from_dict(legacy_cluster()), lifecycle_dir=tmp_path)
    assert [n for n in resolution.notes if "which is not an instance group" in n] == [f"provisioning_parameters.json ({tmp_path}) {note}"]
