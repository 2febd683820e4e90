"""Slurm roles through the provider (issue 12, item 7): a legacy Slurm cluster (no SlurmConfig,
roles in the lifecycle scripts) is not emptied while its roles are unknown; `roles=` states them."""

from __future__ import annotations

import copy

import pytest

from tests.support.provider_specs import VPC, group

ROLES = {"controller-machine": "Controller", "login-group": "Login", "worker-group-1": "Compute"}


def legacy(workers: int, controllers: int = 1) -> dict:
    groups = []
    for name, count, kind in (
        ("controller-machine", controllers, "Controller"),
        ("login-group", 1, "Login"),
        ("worker-group-1", workers, "Compute"),
    ):
        g = group(name, count, kind)
        del g["SlurmConfig"]  # the lifecycle scripts' provisioning_parameters.json decides the roles
        groups.append(g)
    return {"ClusterName": "legacy-cluster", "InstanceGroups": groups, "VpcConfig": copy.deepcopy(VPC)}


def props(spec: dict, **settings) -> dict:
    return {"spec": spec, "backend": "fake", "wait": "Target", **settings}


def test_a_legacy_cluster_is_not_emptied_while_its_roles_are_unknown(engine, sim):
    arn, outputs = engine.create(props(legacy(2)))
    with pytest.raises(Exception, match="slurm-roles-unknown"):
        engine.update(arn, outputs, props(legacy(0)))
    emptied = engine.update(arn, outputs, props(legacy(0), roles=ROLES))
    assert emptied["groups"]["worker-group-1"]["target_count"] == 0


def test_with_roles_the_controller_guard_applies(engine, sim):
    arn, outputs = engine.create(props(legacy(1), roles=ROLES))
    with pytest.raises(Exception, match="controller-scale-in"):
        engine.update(arn, outputs, props(legacy(1, controllers=0), roles=ROLES))


def test_roles_are_checked(engine):
    failures = engine.check(props(legacy(1), roles={"controller-machine": "Head"})).failures
    assert [(f.property, "one of Controller, Login, Compute" in f.reason) for f in failures] == [("roles.controller-machine", True)]


def test_roles_are_read_from_the_lifecycle_bundle_in_s3(engine, sim):
    """No `roles=`: the provider reads provisioning_parameters.json under the groups' SourceS3Uri
    (the simulator answers S3), so the controller guard holds for a legacy cluster."""
    import json

    from pulumi_hyperpod.aws.client import connect

    s3 = connect("fake", simulator=sim, service="s3")
    uri = legacy(1)["InstanceGroups"][0]["LifeCycleConfig"]["SourceS3Uri"]
    bucket, _, prefix = uri.removeprefix("s3://").partition("/")
    s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    s3.put_object(
        Bucket=bucket,
        Key=f"{prefix.rstrip('/')}/provisioning_parameters.json",
        Body=json.dumps(
            {
                "version": "1.0.0",
                "workload_manager": "slurm",
                "controller_group": "controller-machine",
                "login_group": "login-group",
                "worker_groups": [{"instance_group_name": "worker-group-1", "partition_name": "dev"}],
            }
        ),
    )
    arn, outputs = engine.create(props(legacy(1)))
    with pytest.raises(Exception, match="controller-scale-in"):
        engine.update(arn, outputs, props(legacy(1, controllers=0)))
    emptied = engine.update(arn, outputs, props(legacy(0)))  # a compute group may go to 0: its role is known
    assert emptied["groups"]["worker-group-1"]["target_count"] == 0
