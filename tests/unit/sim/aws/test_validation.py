"""Server-side validation: botocore's model rules and the service's cross-field rules.

Clients here skip botocore's own client-side checks (`parameter_validation=False`) so every
answer below comes from the simulator, as it would from the service for a raw request.
"""

from __future__ import annotations

import copy

import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from tests.support.sim_helpers import EKS_ARN, eks_request, group, groups_of, seed000_request, seed004_groups, slurm_group

RAW = Config(parameter_validation=False, retries={"mode": "standard", "max_attempts": 1})


@pytest.fixture
def raw(sim):
    return sim.client(config=RAW)


def _error(call) -> tuple[str, str]:
    with pytest.raises(ClientError) as error:
        call()
    return error.value.response["Error"]["Code"], error.value.response["Error"]["Message"]


def _seed000(**changes):
    request = seed000_request(workers=2)
    for index, extra in changes.items():
        request["InstanceGroups"][int(index[1:])].update(extra)
    return request


def _with_groups(request: dict, groups: list) -> dict:
    return {**request, "InstanceGroups": groups}


CREATE_CASES = {
    "min above count": (
        _seed000(g2={"MinInstanceCount": 3}),
        "InstanceGroups[2].MinInstanceCount: must be between 0 and InstanceCount (2); got 3",
    ),
    "min without continuous": (
        eks_request("x", [group("a", 2, MinInstanceCount=1)], continuous=False),
        "InstanceGroups[0].MinInstanceCount: is only supported when NodeProvisioningMode is Continuous",
    ),
    "strategy in continuous": (
        {**seed000_request(), "Orchestrator": {"Slurm": {"SlurmConfigStrategy": "Merge"}}},
        "Orchestrator.Slurm.SlurmConfigStrategy: is not supported in Continuous mode",
    ),
    "continuous slurm needs SlurmConfig": (
        _with_groups(seed000_request(), [slurm_group("c", "Controller", 1), group("w", 2)]),
        "InstanceGroups[1].SlurmConfig: is required",
    ),
    "two controllers": (
        _with_groups(seed000_request(), [slurm_group("c1", "Controller", 1), slurm_group("c2", "Controller", 1)]),
        "NodeType Controller; found 2",
    ),
    "no controller": (_with_groups(seed000_request(), [slurm_group("w", "Compute", 1)]), "Controller; found 0"),
    "two logins": (
        _with_groups(seed000_request(), [slurm_group("c", "Controller", 1), slurm_group("l1", "Login", 1), slurm_group("l2", "Login", 1)]),
        "NodeType Login; found 2",
    ),
    "two partitions": (
        _seed000(g2={"SlurmConfig": {"NodeType": "Compute", "PartitionNames": ["a", "b"]}}),
        "InstanceGroups[2].SlurmConfig.PartitionNames: must have at most 1 items",
    ),
    "type and requirements": (
        eks_request("x", [{**group("a", 1), "InstanceRequirements": {"InstanceTypes": ["ml.c5.xlarge"]}}]),
        "InstanceGroups[0]: InstanceType and InstanceRequirements are mutually exclusive",
    ),
    "neither type": (
        eks_request("x", [{k: v for k, v in group("a", 1).items() if k != "InstanceType"}]),
        "InstanceGroups[0]: one of InstanceType or InstanceRequirements is required",
    ),
    "duplicate names": (
        eks_request("x", [group("a", 1), group("a", 2)]),
        "InstanceGroups[1].InstanceGroupName: duplicate instance group name 'a'",
    ),
    "too many groups": (eks_request("x", [group(f"g{i}", 1) for i in range(101)]), "InstanceGroups: must have at most 100 items"),
    "count above model max": (eks_request("x", [group("a", 7000)]), "InstanceGroups[0].InstanceCount: must be at most 6758"),
    "role pattern": (
        eks_request("x", [group("a", 1, ExecutionRole="not-a-role-arn-at-all")]),
        "InstanceGroups[0].ExecutionRole: 'not-a-role-arn-at-all' does not match the pattern",
    ),
    "both orchestrators": (
        {**eks_request("x", [group("a", 1)]), "Orchestrator": {"Eks": {"ClusterArn": EKS_ARN}, "Slurm": {}}},
        "Orchestrator: must specify exactly one orchestrator configuration",
    ),
    "empty orchestrator": (
        {**eks_request("x", [group("a", 1)]), "Orchestrator": {}},
        "Orchestrator: must specify exactly one orchestrator configuration",
    ),
    "slurm config on eks": (
        eks_request("x", [slurm_group("a", "Compute", 1)]),
        "InstanceGroups[0].SlurmConfig: is only valid for Slurm-orchestrated clusters",
    ),
    "no groups": ({"ClusterName": "x"}, "InstanceGroups: a cluster needs at least one instance group"),
    "bad name": (eks_request("bad_name", [group("a", 1)]), "ClusterName: 'bad_name' does not match the pattern"),
    "controller needs an instance": (
        _seed000(g0={"InstanceCount": 0, "MinInstanceCount": 0}),
        "InstanceGroups[0].InstanceCount: the controller group needs at least 1 instance",
    ),
}


@pytest.mark.parametrize("request_, expected", CREATE_CASES.values(), ids=CREATE_CASES.keys())
def test_create_cluster_rules_answer_validation_exception_naming_the_field(raw, request_, expected):
    code, message = _error(lambda: raw.create_cluster(**copy.deepcopy(request_)))
    assert code == "ValidationException"
    assert expected in message


def test_existing_name_is_rejected_like_the_service(raw):
    raw.create_cluster(**eks_request("dup", [group("a", 1)]))
    code, message = _error(lambda: raw.create_cluster(**eks_request("dup", [group("a", 1)])))
    assert (code, message) == ("ValidationException", "Cluster dup already exists. Choose a different name.")


@pytest.fixture
def slurm(sim, raw):
    raw.create_cluster(**seed000_request(workers=2))
    sim.advance(600)
    return raw


def _worker(**extra) -> dict:
    """An UpdateCluster changing seed 000's worker group."""
    return {"InstanceGroups": [slurm_group("worker-gpu-a", "Compute", 2, "ml.p5.48xlarge", ["gpu-training"], **extra)]}


UPDATE_CASES = {
    "instance type change": (
        {"InstanceGroups": [slurm_group("worker-gpu-a", "Compute", 2, "ml.g5.xlarge", ["gpu-training"])]},
        "InstanceGroups[0].InstanceType: the instance type of existing group 'worker-gpu-a' cannot be changed",
    ),
    "orchestrator change": (
        {"Orchestrator": {"Eks": {"ClusterArn": EKS_ARN}}},
        "Orchestrator: cannot change the orchestrator from Slurm to Eks in place",
    ),
    "leave continuous": ({"NodeProvisioningMode": ""}, "NodeProvisioningMode: cannot be unset or changed"),
    "strategy": (
        {"Orchestrator": {"Slurm": {"SlurmConfigStrategy": "Overwrite"}}},
        "Orchestrator.Slurm.SlurmConfigStrategy: is not supported in Continuous mode",
    ),
    "delete unknown group": ({"InstanceGroupsToDelete": ["ghost"]}, "InstanceGroupsToDelete[0]: instance group 'ghost' does not exist"),
    "second controller": ({"InstanceGroups": [slurm_group("c2", "Controller", 1)]}, "Controller; found 2"),
    "new group without SlurmConfig": ({"InstanceGroups": [group("plain", 1)]}, "InstanceGroups[0].SlurmConfig: is required"),
    # issue 37, item 14: refused as UpdateClusterSoftware refuses it, not silently ignored
    "batches in a Slurm schedule": (
        _worker(
            ScheduledUpdateConfig={
                "ScheduleExpression": "cron(0 3 ? * SUN *)",
                "DeploymentConfig": {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}},
            }
        ),
        "InstanceGroups[0].ScheduledUpdateConfig.DeploymentConfig: updates in batches are available only for clusters that use Amazon EKS",
    ),
    "a schedule in words": (
        _worker(ScheduledUpdateConfig={"ScheduleExpression": "every sunday"}),
        "InstanceGroups[0].ScheduledUpdateConfig.ScheduleExpression: 'every sunday' is not a valid cron expression",
    ),
    "drain-first on slurm": (
        _worker(AutoPatchConfig={"PatchingStrategy": "DrainFirst"}),
        "InstanceGroups[0].AutoPatchConfig.PatchingStrategy: DrainFirst is available only for clusters that use Amazon EKS",
    ),
    "node type change": (
        {"InstanceGroups": [slurm_group("worker-gpu-a", "Login", 2, "ml.p5.48xlarge")]},
        "InstanceGroups[0].SlurmConfig.NodeType: cannot change from Compute to Login",
    ),
}


@pytest.mark.parametrize("change, expected", UPDATE_CASES.values(), ids=UPDATE_CASES.keys())
def test_update_cluster_rules(slurm, change, expected):
    code, message = _error(lambda: slurm.update_cluster(ClusterName="my-training-cluster", **change))
    assert code == "ValidationException"
    assert expected in message
    assert groups_of(slurm, "my-training-cluster")["worker-gpu-a"]["TargetCount"] == 2, "nothing changed"


def test_vpc_config_cannot_change_in_place(sim, slurm):
    """botocore cannot even serialise VpcConfig for UpdateCluster; a raw request gets a clear answer."""
    from pulumi_hyperpod.sim.aws import operations
    from pulumi_hyperpod.sim.aws.errors import ValidationException

    with sim._world() as world, pytest.raises(ValidationException) as error:
        operations.update_cluster(
            world, "us-west-2", {"ClusterName": "my-training-cluster", "VpcConfig": {"SecurityGroupIds": ["sg-1"], "Subnets": ["subnet-2"]}}
        )
    assert "VpcConfig: cannot be changed on an existing cluster; create a new cluster" in error.value.message


def test_min_instance_count_needs_continuous_on_update_too(sim, raw):
    raw.create_cluster(ClusterName="classic", InstanceGroups=seed004_groups(1))
    sim.advance(1200)
    groups = seed004_groups(2)
    groups[1]["MinInstanceCount"] = 1
    code, message = _error(lambda: raw.update_cluster(ClusterName="classic", InstanceGroups=groups))
    assert code == "ValidationException" and "InstanceGroups[1].MinInstanceCount" in message


@pytest.mark.parametrize(
    "operation, params",
    [
        ("describe_cluster", {}),
        ("update_cluster", {"InstanceGroups": [group("a", 1)]}),
        ("delete_cluster", {}),
        ("list_cluster_nodes", {}),
        ("describe_cluster_node", {"NodeId": "i-0123456789abcdef0"}),
        ("batch_add_cluster_nodes", {"NodesToAdd": [{"InstanceGroupName": "a", "IncrementTargetCountBy": 1}]}),
        ("batch_delete_cluster_nodes", {"NodeIds": ["i-0123456789abcdef0"]}),
        ("list_cluster_events", {}),
        ("describe_cluster_event", {"EventId": "0bd4a141-0a02-4d8a-b977-3924c3fb259c"}),
    ],
)
def test_unknown_cluster_is_resource_not_found(raw, operation, params):
    code, message = _error(lambda: getattr(raw, operation)(ClusterName="ghost", **params))
    assert (code, message) == ("ResourceNotFound", "Cluster ghost not found in us-west-2.")


def test_cluster_arn_of_another_region_is_not_found(sim, raw):
    arn = raw.create_cluster(**eks_request("here", [group("a", 1)]))["ClusterArn"]
    other = sim.client(region="eu-west-1", config=RAW)
    assert _error(lambda: other.describe_cluster(ClusterName=arn))[0] == "ResourceNotFound"
    assert raw.describe_cluster(ClusterName=arn)["ClusterName"] == "here"


def test_node_and_event_request_rules(sim, raw):
    raw.create_cluster(ClusterName="classic", InstanceGroups=seed004_groups(1))
    code, message = _error(lambda: raw.list_cluster_events(ClusterName="classic"))
    assert code == "ValidationException" and "only supported for clusters whose NodeProvisioningMode is Continuous" in message
    code, message = _error(lambda: raw.describe_cluster_node(ClusterName="classic", NodeId="i-0123456789abcdef0", NodeLogicalId="abc-def"))
    assert "specify exactly one of NodeId or NodeLogicalId" in message
    code, message = _error(lambda: raw.batch_delete_cluster_nodes(ClusterName="classic"))
    assert "NodeIds: specify NodeIds, NodeLogicalIds, or both" in message
    code, message = _error(lambda: raw.list_cluster_nodes(ClusterName="classic", MaxResults=101))
    assert "MaxResults: must be at most 100" in message
    code, message = _error(lambda: raw.list_cluster_nodes(ClusterName="classic", NextToken="not-a-token!"))
    assert "NextToken: is not a token this operation returned" in message


def test_documented_batch_limits(sim, raw):
    """BatchAddClusterNodes: ≤ 50 nodes per request; BatchDeleteClusterNodes: ≤ 99 node ids, and
    ≤ 50 identifiers in all with logical ids (the API reference's words, not only the model's numbers)."""
    request = seed000_request(workers=2)
    raw.create_cluster(**request)
    name = request["ClusterName"]
    adds = [{"InstanceGroupName": "worker-gpu-a", "IncrementTargetCountBy": 30}] * 2
    code, message = _error(lambda: raw.batch_add_cluster_nodes(ClusterName=name, NodesToAdd=adds))
    assert code == "ValidationException" and "NodesToAdd: at most 50 nodes in total per request; this one adds 60" in message
    ids = [f"i-{n:017x}" for n in range(100)]
    code, message = _error(lambda: raw.batch_delete_cluster_nodes(ClusterName=name, NodeIds=ids))
    assert "NodeIds: at most 99 node ids per request" in message
    code, message = _error(
        lambda: raw.batch_delete_cluster_nodes(ClusterName=name, NodeIds=ids[:40], NodeLogicalIds=[f"n-{k}" for k in range(11)])
    )
    assert "NodeLogicalIds: at most 50 identifiers in all" in message
