"""SlurmCluster with a Slurm spec (seed 002): SlurmConfig from the spec, the bundle uploaded under
a content-addressed prefix (pulumi-aws on AWS, the simulator's S3 through boto3), LifeCycleConfig
pointing at it."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.components import (
    ComputeGroupArgs,
    ConnectionArgs,
    InstanceGroupArgs,
    LifecycleArgs,
    SlurmCluster,
    SlurmClusterArgs,
)
from pulumi_hyperpod.components.bundle import _BundleUploadProvider
from pulumi_hyperpod.aws.slurm.render import render_hyperpod
from pulumi_hyperpod.slurm.spec import SlurmSpec
from tests.support.slurm_examples import EXAMPLE, example_cluster, example_slurm

from .conftest import registered, run

ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
BUNDLE_TYPE = "pulumi-python:dynamic/hyperpod:LifecycleBundle"


def args(backend: str = "fake", **overrides) -> SlurmClusterArgs:
    values = dict(
        cluster_name="a4-training",
        controller=InstanceGroupArgs("controller", 1, instance_type="ml.m5.xlarge"),
        login=InstanceGroupArgs("login", 1, instance_type="ml.m5.xlarge"),
        compute=[ComputeGroupArgs("a4", 2, instance_type="ml.p6-b200.48xlarge")],
        slurm=str(EXAMPLE / "slurm.json"),
        execution_role_arn=ROLE,
        connection=ConnectionArgs(backend=backend),
    )
    values.update(overrides)
    return SlurmClusterArgs(**values)


def checked_spec(mocks) -> dict:
    (result,) = mocks.checks
    assert not result.failures, [(f.property, f.reason) for f in result.failures]
    return result.inputs["spec"]


def test_on_the_simulator_the_bundle_is_a_boto3_upload_and_groups_point_at_it(mocks):
    seen = run(lambda: SlurmCluster("a4", args()), "lifecycle_s3_uri")
    digest = render_hyperpod(example_cluster(), SlurmSpec.from_dict(example_slurm(), partition_names=partition_names())).digest
    assert seen["lifecycle_s3_uri"] == f"s3://sagemaker-hyperpod-a4/slurm-bundles/{digest[:16]}/"
    groups = {g["InstanceGroupName"]: g for g in checked_spec(mocks)["InstanceGroups"]}
    assert groups["a4"]["SlurmConfig"] == {"NodeType": "Compute", "PartitionNames": ["a4"]}
    assert groups["controller"]["SlurmConfig"] == {"NodeType": "Controller"}
    assert {g["LifeCycleConfig"]["SourceS3Uri"] for g in groups.values()} == {seen["lifecycle_s3_uri"]}
    assert {g["LifeCycleConfig"]["OnCreate"] for g in groups.values()} == {"on_create.sh"}
    kinds = registered(mocks)
    assert len(kinds[BUNDLE_TYPE]) == 1
    assert not [k for k in kinds if k.startswith("aws:")]  # nothing made in AWS on the simulator


def test_on_aws_every_bundle_file_is_an_object_under_the_content_addressed_prefix(mocks):
    run(lambda: SlurmCluster("a4", args("aws")), "lifecycle_s3_uri")
    objects = registered(mocks)["aws:s3/bucketObjectv2:BucketObjectv2"]
    keys = sorted(state["key"] for _, state in objects)
    rendering = render_hyperpod(example_cluster(), SlurmSpec.from_dict(example_slurm(), partition_names=partition_names()))
    assert keys == sorted(rendering.prefix + path for path in rendering.files)
    assert BUNDLE_TYPE not in registered(mocks)


def test_lower_camel_dict_spec_and_the_component_names_controller_and_login(mocks):
    camel = SlurmSpec.from_dict(example_slurm(), partition_names=partition_names()).to_dict("camel")
    del camel["controllerNodePoolId"], camel["loginNodePoolId"]
    run(lambda: SlurmCluster("a4", args(slurm=camel)), "arn")
    groups = {g["InstanceGroupName"]: g for g in checked_spec(mocks)["InstanceGroups"]}
    assert groups["login"]["SlurmConfig"] == {"NodeType": "Login"}


@pytest.mark.parametrize(
    "overrides,message",
    [
        ({"lifecycle": LifecycleArgs(s3_uri="s3://b/x/")}, "leave lifecycle.s3_uri unset"),
        (
            {"compute": [ComputeGroupArgs("a4", 2, instance_type="ml.p6-b200.48xlarge", partitions=["other"])]},
            "disagree with the Slurm spec",
        ),
        (
            {"login": InstanceGroupArgs("logon", 1, instance_type="ml.m5.xlarge")},
            "slurm.login_node_pool_id is 'login' but the login group is 'logon'",
        ),
        ({"compute": [ComputeGroupArgs("b200", 2, instance_type="ml.p6-b200.48xlarge")]}, "'a4' is not an instance group"),
    ],
)
def test_conflicts_between_the_component_and_the_slurm_spec_are_errors(mocks, overrides, message):
    with pytest.raises(Exception, match=message.replace("(", r"\(").replace(")", r"\)")):
        run(lambda: SlurmCluster("a4", args(**overrides)), "arn")


def test_the_upload_provider_writes_the_bundle_into_the_simulators_s3(tmp_path, monkeypatch):
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.sim.aws import Simulator

    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(tmp_path / "fake.sqlite"))
    rendering = render_hyperpod(example_cluster(), SlurmSpec.from_dict(example_slurm(), partition_names=partition_names()))
    import base64

    uri = f"s3://sagemaker-hyperpod-a4/{rendering.prefix}"
    inputs = {
        "uri": uri,
        "files": {p: base64.b64encode(c).decode() for p, c in rendering.files.items()},
        "backend": "fake",
        "region": None,
        "profile": None,
    }
    provider = _BundleUploadProvider()
    provider.create(inputs)
    provider.create(inputs)  # idempotent: the bucket exists already
    s3 = connect("fake", simulator=Simulator.open_default(), service="s3")
    body = s3.get_object(Bucket="sagemaker-hyperpod-a4", Key=rendering.prefix + "slurm-spec.json")["Body"].read()
    assert json.loads(body)["roles"]["controller"] == "Controller"
    assert provider.diff("id", inputs, {**inputs, "uri": uri.replace(rendering.prefix, "slurm-bundles/x/")}).replaces == ["uri"]


def test_base_lifecycle_scripts_are_built_on(mocks, tmp_path):
    (tmp_path / "on_create.sh").write_text("#!/bin/bash\necho base\n")
    (tmp_path / "lifecycle_script.py").write_text("print('base')\n")
    run(lambda: SlurmCluster("a4", args("aws", lifecycle=LifecycleArgs(scripts_dir=str(tmp_path)))), "arn")
    keys = {state["key"].split("/", 2)[2] for _, state in registered(mocks)["aws:s3/bucketObjectv2:BucketObjectv2"]}
    assert {"on_create_base.sh", "lifecycle_script.py", "on_create.sh", "slurm_spec_hook.py"} <= keys
