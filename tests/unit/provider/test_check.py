"""check: bad input is refused with the property path, before any API call; unknowns are fine."""

from __future__ import annotations

from pulumi.output import Unknown

from tests.support.provider_specs import slurm_spec


def failures(result) -> list[tuple[str, str]]:
    return [(f.property, f.reason) for f in result.failures]


def test_bad_spec_and_settings_fail_with_paths_and_no_api_call(engine, sim):
    spec = slurm_spec(workers=2)
    spec["InstanceGroups"][1]["MinInstanceCount"] = 5
    spec["InstanceGroups"][0]["InstanceCount"] = 2
    spec["Orchestrator"] = {"Slurm": {"SlurmConfigStrategy": "Managed"}}
    result = engine.check(
        {"spec": spec, "backend": "azure", "wait": "Forever", "timeout": 3600, "policy": {"max_scale_in_fraction": 1.5, "protect": ["i-1"]}}
    )

    found = dict(failures(result))
    assert found["spec.InstanceGroups[1].MinInstanceCount"] == "must be between 0 and InstanceCount (2); got 5"
    assert "exactly 1 node in Continuous mode" in found["spec.InstanceGroups[0].InstanceCount"]
    assert "not supported in Continuous mode" in found["spec.Orchestrator.Slurm.SlurmConfigStrategy"]
    assert found["backend"] == "must be one of aws, fake; got 'azure'"
    assert found["wait"].startswith("must be one of none, InService, MinCount, Target")
    assert "30 minutes" in found["timeout"]
    assert "policy.max_scale_in_fraction" in found and "policy.protect" in found
    assert sim.calls == []


def test_missing_and_malformed_spec(engine, sim):
    assert failures(engine.check({"backend": "fake"}))[0][0] == "spec"
    assert failures(engine.check({"spec": "my-cluster"}))[0][0] == "spec"
    unknown_field = slurm_spec()
    unknown_field["InstanceGroups"][0]["InstanceCont"] = 1
    (path, reason), *_ = failures(engine.check({"spec": unknown_field}))
    assert path == "spec.InstanceGroups[0].InstanceCont" and "not a known field" in reason
    assert sim.calls == []


def test_inputs_are_the_canonical_api_form(engine, sim):
    """snake_case in, PascalCase stored; the engine's doubles (3.0) come back as counts."""
    snake = {
        "cluster_name": "demo-cluster",
        "orchestrator": {"slurm": {}},
        "node_provisioning_mode": "Continuous",
        "instance_groups": [
            {
                "instance_group_name": "controller",
                "instance_type": "ml.m5.xlarge",
                "instance_count": 1,
                "execution_role": "arn:aws:iam::111122223333:role/r",
                "slurm_config": {"node_type": "Controller"},
                "life_cycle_config": {"source_s3_uri": "s3://b/p/", "on_create": "on_create.sh"},
            },
            {
                "instance_group_name": "workers",
                "instance_type": "ml.g5.xlarge",
                "instance_count": 3,
                "execution_role": "arn:aws:iam::111122223333:role/r",
                "slurm_config": {"node_type": "Compute", "partition_names": ["dev"]},
                "life_cycle_config": {"source_s3_uri": "s3://b/p/", "on_create": "on_create.sh"},
                "instance_storage_configs": [{"ebs_volume_config": {"volume_size_in_gb": 30}}],
            },
        ],
    }
    inputs = engine.checked({"spec": snake, "backend": "fake"})  # a create's check reads where the cluster goes
    workers = inputs["spec"]["InstanceGroups"][1]
    assert workers["InstanceCount"] == 3 and isinstance(workers["InstanceCount"], int)
    assert workers["InstanceStorageConfigs"] == [{"EbsVolumeConfig": {"VolumeSizeInGB": 30}}]
    assert workers["SlurmConfig"] == {"NodeType": "Compute", "PartitionNames": ["dev"]}
    assert inputs["wait"] == "InService" and inputs["timeout"] == 1200 and inputs["adopt"] is False
    assert inputs["policy"] == {}


def test_values_not_known_yet_pass_check_and_preview_says_so(engine, sim, capsys):
    """An execution role created in the same `pulumi up` is unknown during the preview."""
    spec = slurm_spec(workers=2)
    spec["InstanceGroups"][1]["ExecutionRole"] = Unknown()
    result = engine.check({"spec": spec, "backend": "fake"})
    assert failures(result) == []

    created = slurm_spec(workers=2)
    outputs = {
        "spec": created,
        "backend": "fake",
        "wait": "InService",
        "timeout": 1200,
        "adopt": False,
        "policy": {},
        "location": {"backend": "fake", "region": "us-west-2"},
    }
    news = dict(result.inputs)
    diff = engine.provider.diff("arn:aws:sagemaker:us-west-2:123456789012:cluster/abcdefghijkl", outputs, news)
    assert diff.changes is True and diff.replaces == []
    printed = capsys.readouterr().err
    assert "not known until they are created" in printed
    assert "spec.InstanceGroups[1].ExecutionRole" in printed
    assert sim.calls == [("DescribeCluster", {"ClusterName": "demo-cluster"})]  # the create's preview: is the name free


def test_an_unknown_immutable_field_may_replace(engine, sim):
    spec = slurm_spec()
    spec["VpcConfig"]["Subnets"] = [Unknown()]
    result = engine.check({"spec": spec, "backend": "fake"})
    outputs = {"spec": slurm_spec(), "backend": "fake", "location": {"backend": "fake", "region": "us-west-2"}}
    diff = engine.provider.diff("x", outputs, dict(result.inputs))
    assert diff.replaces == ["spec.VpcConfig"] and diff.delete_before_replace is True
    assert sim.calls == [("DescribeCluster", {"ClusterName": "demo-cluster"})]  # the create's preview: is the name free


def test_a_wholly_unknown_spec_is_an_update_not_a_replacement(engine, sim, capsys):
    """The engine hides a whole property whose dependency is being replaced (an IAM role, say)."""
    result = engine.check({"spec": Unknown(), "backend": "fake"}, olds={"spec": slurm_spec()})
    assert failures(result) == []
    outputs = {"spec": slurm_spec(), "backend": "fake", "location": {"backend": "fake", "region": "us-west-2"}}
    diff = engine.provider.diff("x", outputs, dict(result.inputs))
    assert diff.changes is True and diff.replaces == []
    assert "not known until they are created" in capsys.readouterr().err
    assert sim.calls == []
