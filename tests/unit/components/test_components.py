"""SlurmCluster and EksCluster build valid specs, parent their children, register their outputs."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.components import (
    ComputeGroupArgs,
    ConnectionArgs,
    EksCluster,
    EksClusterArgs,
    EksGroupArgs,
    InstanceGroupArgs,
    LifecycleArgs,
    SlurmCluster,
    SlurmClusterArgs,
    VpcArgs,
)
from pulumi_hyperpod.components.support import CLUSTER_INSTANCE_POLICY

from .conftest import CLUSTER_TYPE, parent_type, registered, run

ROLE = "arn:aws:iam::111122223333:role/iam-role-for-cluster"
URI = "s3://amzn-s3-demo-bucket/lifecycle-scripts/src/"
VPC = VpcArgs(subnets=["subnet-12345678"], security_group_ids=["sg-12345678"])


def slurm_args(**overrides) -> SlurmClusterArgs:
    args = dict(
        cluster_name="my-training-cluster",
        controller=InstanceGroupArgs("controller-group", 1, instance_type="ml.m5.xlarge"),
        login=InstanceGroupArgs("login-group", 1, instance_type="ml.m5.xlarge"),
        compute=[
            ComputeGroupArgs("worker-gpu-a", 16, instance_type="ml.p5.48xlarge", min_count=8, partitions=["gpu-training"]),
            ComputeGroupArgs("worker-cpu", 4, instance_type="ml.c5.xlarge"),
        ],
        lifecycle=LifecycleArgs(s3_uri=URI),
        execution_role_arn=ROLE,
        vpc=VPC,
        connection=ConnectionArgs(backend="fake"),
    )
    args.update(overrides)
    return SlurmClusterArgs(**args)


def checked_spec(mocks) -> dict:
    (result,) = mocks.checks
    assert not result.failures, [(f.property, f.reason) for f in result.failures]
    return result.inputs["spec"]


def test_slurm_cluster_controller_login_and_partitions_in_continuous_mode(mocks):
    seen = run(lambda: SlurmCluster("training", slurm_args()), "arn", "groups", "node_count")

    spec = checked_spec(mocks)
    assert spec["NodeProvisioningMode"] == "Continuous"
    assert spec["Orchestrator"] == {"Slurm": {}}
    by_name = {g["InstanceGroupName"]: g for g in spec["InstanceGroups"]}
    assert [g["InstanceGroupName"] for g in spec["InstanceGroups"]] == ["controller-group", "login-group", "worker-gpu-a", "worker-cpu"]
    assert by_name["controller-group"]["SlurmConfig"] == {"NodeType": "Controller"}
    assert by_name["login-group"]["SlurmConfig"] == {"NodeType": "Login"}
    assert by_name["worker-gpu-a"]["SlurmConfig"] == {"NodeType": "Compute", "PartitionNames": ["gpu-training"]}
    assert by_name["worker-cpu"]["SlurmConfig"]["PartitionNames"] == ["worker-cpu"]
    assert by_name["worker-gpu-a"]["MinInstanceCount"] == 8
    assert all(g["ExecutionRole"] == ROLE and g["LifeCycleConfig"]["SourceS3Uri"] == URI for g in spec["InstanceGroups"])
    assert seen["arn"].startswith("arn:aws:sagemaker:")
    assert seen["node_count"] == 22 and seen["groups"]["worker-gpu-a"]["target_count"] == 16

    found = registered(mocks)
    assert set(found) == {"hyperpod:index:SlurmCluster", CLUSTER_TYPE}  # existing role and URI: nothing else made
    ((urn, _),) = found[CLUSTER_TYPE]
    assert parent_type(urn) == "hyperpod:index:SlurmCluster"


def test_slurm_cluster_creates_the_bucket_and_the_role_it_is_not_given(mocks, tmp_path):
    (tmp_path / "on_create.sh").write_text("#!/bin/bash\necho hello\n")
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "setup.py").write_text("print('x')\n")
    args = slurm_args(lifecycle=LifecycleArgs(scripts_dir=str(tmp_path)), execution_role_arn=None)
    seen = run(lambda: SlurmCluster("research", args), "execution_role_arn", "lifecycle_s3_uri")
    seen["role"], seen["uri"] = seen["execution_role_arn"], seen["lifecycle_s3_uri"]
    found = registered(mocks)
    for kind in (
        "aws:s3/bucket:Bucket",
        "aws:s3/bucketObjectv2:BucketObjectv2",
        "aws:iam/role:Role",
        "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
        "aws:iam/rolePolicy:RolePolicy",
        CLUSTER_TYPE,
    ):
        assert kind in found, kind
        assert all(parent_type(urn) == "hyperpod:index:SlurmCluster" for urn, _ in found[kind]), kind
    keys = sorted(state["key"] for _, state in found["aws:s3/bucketObjectv2:BucketObjectv2"])
    assert keys == ["lifecycle-scripts/on_create.sh", "lifecycle-scripts/utils/setup.py"]
    ((_, bucket),) = found["aws:s3/bucket:Bucket"]
    assert bucket["bucketPrefix"].startswith("sagemaker-")  # what the managed policy can read
    ((_, attachment),) = found["aws:iam/rolePolicyAttachment:RolePolicyAttachment"]
    assert attachment["policyArn"] == CLUSTER_INSTANCE_POLICY
    ((_, role),) = found["aws:iam/role:Role"]
    assert "sagemaker.amazonaws.com" in role["assumeRolePolicy"]

    spec = checked_spec(mocks)
    assert seen["uri"] == "s3://sagemaker-hyperpod-research-lifecycle-0001/lifecycle-scripts/"
    assert all(g["ExecutionRole"] == seen["role"] and g["LifeCycleConfig"]["SourceS3Uri"] == seen["uri"] for g in spec["InstanceGroups"])


def test_eks_cluster_flexible_group_and_karpenter(mocks):
    args = EksClusterArgs(
        cluster_name="inference-cluster",
        eks_cluster_arn="arn:aws:eks:us-west-2:111122223333:cluster/inference",
        instance_groups=[
            EksGroupArgs("flexible-ig", 10, instance_types=["ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g6.48xlarge"], labels={"team": "ml"}),
            EksGroupArgs("system", 2, instance_type="ml.m5.2xlarge"),
        ],
        vpc=VPC,
        lifecycle=LifecycleArgs(s3_uri=URI, on_create="on_create_noop.sh"),
        execution_role_arn=ROLE,
        autoscaling=True,
        connection=ConnectionArgs(backend="fake"),
    )
    seen = run(lambda: EksCluster("inference", args), "cluster_role_arn")

    spec = checked_spec(mocks)
    assert spec["Orchestrator"] == {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/inference"}}
    assert spec["NodeProvisioningMode"] == "Continuous"
    assert spec["AutoScaling"] == {"Mode": "Enable", "AutoScalerType": "Karpenter"}
    assert spec["ClusterRole"] == seen["cluster_role_arn"]
    flexible = spec["InstanceGroups"][0]
    assert flexible["InstanceRequirements"] == {"InstanceTypes": ["ml.p5.48xlarge", "ml.p4d.24xlarge", "ml.g6.48xlarge"]}
    assert "InstanceType" not in flexible and "SlurmConfig" not in flexible
    assert flexible["KubernetesConfig"] == {"Labels": {"team": "ml"}}
    found = registered(mocks)
    ((urn, role),) = found["aws:iam/role:Role"]  # the autoscaling role only: the execution role was given
    assert "hyperpod.sagemaker.amazonaws.com" in role["assumeRolePolicy"]
    assert parent_type(urn) == "hyperpod:index:EksCluster"


def test_slurm_cluster_needs_lifecycle_scripts(mocks):
    with pytest.raises(ValueError, match="lifecycle"):
        SlurmCluster("broken", slurm_args(lifecycle=LifecycleArgs()))


def test_a_bad_group_is_reported_by_path(mocks):
    """Validation is the provider's check, with the field path (here: MinCount above the count)."""
    args = slurm_args(compute=[ComputeGroupArgs("workers", 2, instance_type="ml.c5.xlarge", min_count=5)])
    run(lambda: SlurmCluster("bad", args), "arn")
    (result,) = mocks.checks
    assert [(f.property, f.reason) for f in result.failures] == [
        ("spec.InstanceGroups[2].MinInstanceCount", "must be between 0 and InstanceCount (2); got 5")
    ]
