"""Scale-in requests stay within BatchDeleteClusterNodes' limits after apply re-chooses victims,
and requests the client refuses before sending end as ApplyError, like the service's refusals."""

from __future__ import annotations

import pytest

from pulumi_hyperpod import ClusterSpec, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.apply import ApplyError
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.plans import Plan
from tests.support.slurm_groups import slurm_group

ROLE = "arn:aws:iam::111122223333:role/hp"
LIFECYCLE = {"SourceS3Uri": "s3://bucket/lc/", "OnCreate": "on_create.sh"}
VPC = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]}


def slurm_spec(workers: int) -> ClusterSpec:
    def group(name: str, node_type: str, count: int, **slurm) -> dict:
        return slurm_group(name, node_type, count, LIFECYCLE, ROLE, **slurm)

    return ClusterSpec.from_dict(
        {
            "ClusterName": "mx",
            "NodeProvisioningMode": "Continuous",
            "Orchestrator": {"Slurm": {}},
            "VpcConfig": VPC,
            "InstanceGroups": [
                group("controller", "Controller", 1),
                group("login", "Login", 1),
                group("workers", "Compute", workers, PartitionNames=["p1"]),
            ],
        }
    )


def test_a_rechosen_victim_named_by_logical_id_is_sent_within_the_combined_limit():
    sim = Simulator(seed=3)
    client = connect(backend="fake", simulator=sim, max_attempts=1)
    apply(client, plan(slurm_spec(100), None), wait="Target", timeout=6 * 3600, sleep=sim.advance, monotonic=lambda: sim.now().timestamp())
    the_plan = plan(slurm_spec(1), observe(client, "mx"))
    [step] = the_plan.steps
    assert len(step.request["NodeIds"]) == 99 and "NodeLogicalIds" not in step.request
    # the first victim fails and is replaced before apply: the replacement has only a logical id
    sim.set_capacity("ml.c5.xlarge", None, 0)
    sim.fail_node("mx", step.request["NodeIds"][0], retryable=True)
    sim.advance(301)
    sim.reset_calls()

    result = apply(client, the_plan, sleep=sim.advance, timeout=600, check_fresh=False)

    sent = [params for operation, params in sim.calls if operation == "BatchDeleteClusterNodes"]
    logical_calls = [p for p in sent if p.get("NodeLogicalIds")]
    assert logical_calls and all(len(p.get("NodeIds", [])) + len(p["NodeLogicalIds"]) <= 50 for p in logical_calls)
    assert all(len(p.get("NodeIds", [])) <= 99 for p in sent)
    assert sum(len(p.get("NodeIds", [])) + len(p.get("NodeLogicalIds", [])) for p in sent) == 99
    assert result.failures == []


def test_a_request_the_client_refuses_before_sending_is_an_apply_error():
    sim = Simulator(seed=3)
    client = connect(backend="fake", simulator=sim, max_attempts=1)
    the_plan = plan(slurm_spec(1), None).to_dict()
    the_plan["steps"][0]["request"]["InstanceGroups"] = []  # what no spec can say any more: botocore's min 1
    with pytest.raises(ApplyError, match=r"CreateCluster failed: Parameter validation failed:.*InstanceGroups"):
        apply(client, Plan.from_dict(the_plan), sleep=sim.advance, timeout=60, check_fresh=False)
    assert [operation for operation, _ in sim.calls if operation == "CreateCluster"] == []
