"""Every call task governance makes has its action in `hyperpod iam-policy`'s `governance` feature
(aws/iam.py): its operations are named from the model (kinds.py), so tests/unit/aws/test_iam.py's
search of the source does not see them; this test lists them from the same definitions."""

from __future__ import annotations

from pulumi_hyperpod.aws import iam
from pulumi_hyperpod.aws.governance.kinds import KINDS


def test_every_governance_operation_is_in_the_policy_scoped_to_its_resource():
    called = {("sagemaker", "DescribeCluster")} | {
        ("sagemaker", kind.operation(verb)) for kind in KINDS for verb in ("Create", "Describe", "Update", "Delete", "List")
    }
    assert called <= set(iam.CALLS["governance"])
    permissions = iam.permissions("governance")
    assert "sagemaker:UpdateComputeQuota" in permissions["compute-quota"]
    assert "sagemaker:DeleteClusterSchedulerConfig" in permissions["scheduler-config"]
    assert {"sagemaker:ListComputeQuotas", "sagemaker:ListClusterSchedulerConfigs"} <= set(permissions["any"])
    assert iam.Scope(region="us-west-2", account="123456789012").arns("compute-quota") == [
        "arn:aws:sagemaker:us-west-2:123456789012:compute-quota/*"
    ]
