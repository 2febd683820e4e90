"""The simulator's IAM policy evaluator (sim/iam.py): the part of the policy language it honours
(Allow/Deny, Action/NotAction with wildcards, Resource with wildcards, an explicit deny winning),
and a policy file it will not use refused in one line naming the file, the field and the rule."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.aws import iam
from pulumi_hyperpod.sim.iam import ALLOW, EXPLICIT_DENY, IMPLICIT_DENY, PolicyError, load_policy, parse_policy, requested, s3_requested

CLUSTER = "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdef123456"


def policy(*statements: dict):
    return parse_policy({"Version": "2012-10-17", "Statement": list(statements)}, "p.json")


def test_wildcard_actions_match_case_insensitively_and_resources_case_sensitively():
    p = policy({"Effect": "Allow", "Action": "sagemaker:Describe*", "Resource": "arn:aws:sagemaker:*:*:cluster/abc*"})
    assert p.decide("sagemaker:DescribeCluster", CLUSTER) == ALLOW
    assert p.decide("SageMaker:describecluster", CLUSTER) == ALLOW
    assert p.decide("sagemaker:UpdateCluster", CLUSTER) == IMPLICIT_DENY
    assert p.decide("sagemaker:DescribeCluster", CLUSTER.replace("abc", "ABC")) == IMPLICIT_DENY
    assert p.decide("sagemaker:DescribeCluster", "*") == IMPLICIT_DENY  # an action without a resource needs Resource "*"
    assert p.scoped


def test_a_question_mark_is_one_character_and_a_star_spans_colons():
    p = policy({"Effect": "Allow", "Action": "s3:?etObject", "Resource": "arn:aws:s3:::*"})
    assert p.decide("s3:GetObject", "arn:aws:s3:::bucket/a/b:c") == ALLOW
    assert p.decide("s3:SetObject", "arn:aws:s3:::bucket/key") == ALLOW
    assert p.decide("s3:PutObject", "arn:aws:s3:::bucket/key") == IMPLICIT_DENY


def test_not_action_allows_everything_but_what_it_names():
    p = policy({"Effect": "Allow", "NotAction": ["sagemaker:Delete*"], "Resource": "*"})
    assert not p.scoped
    assert p.decide("sagemaker:CreateCluster") == ALLOW
    assert p.decide("sagemaker:DeleteCluster") == IMPLICIT_DENY


def test_an_explicit_deny_wins_over_any_allow():
    p = policy(
        {"Effect": "Allow", "Action": "*", "Resource": "*"},
        {"Effect": "Deny", "Action": "sagemaker:DeleteCluster", "Resource": CLUSTER},
    )
    assert p.decide("sagemaker:DeleteCluster", CLUSTER) == EXPLICIT_DENY
    assert p.decide("sagemaker:DeleteCluster", CLUSTER[:-1] + "7") == ALLOW


def test_a_single_statement_object_is_a_policy_too():
    p = parse_policy({"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "eks:*", "Resource": "*"}}, "p.json")
    assert p.decide("eks:DescribeCluster") == ALLOW


def test_s3_requests_are_authorized_as_the_reference_says():
    assert s3_requested("HEAD", "http://h/bundles") == [("s3:ListBucket", "arn:aws:s3:::bundles")]
    assert s3_requested("PUT", "http://h/bundles") == [("s3:CreateBucket", "arn:aws:s3:::bundles")]
    assert s3_requested("GET", "http://h/bundles?list-type=2") == [("s3:ListBucket", "arn:aws:s3:::bundles")]
    assert s3_requested("HEAD", "http://h/bundles/a/b.sh") == [("s3:GetObject", "arn:aws:s3:::bundles/a/b.sh")]
    assert s3_requested("PUT", "http://h/bundles/a%20b") == [("s3:PutObject", "arn:aws:s3:::bundles/a b")]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "p.json: an IAM policy is a JSON object with Version and Statement"),
        ({"Version": "2012-10-17"}, "p.json: Statement: must be a statement object or a non-empty list of them"),
        ({"Version": "2024-01-01", "Statement": []}, 'p.json: Version: must be "2012-10-17"'),
        ({"Version": "2012-10-17", "Statement": [], "Extra": 1}, "p.json: Extra: not a policy field"),
        (
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*", "Condition": {}}]},
            "p.json: Statement[0].Condition: conditions are not evaluated here",
        ),
        (
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "NotResource": "*"}]},
            "p.json: Statement[0].NotResource: only Resource is evaluated here",
        ),
        (
            {"Version": "2012-10-17", "Statement": {"Effect": "Allow", "Action": "*", "Resource": "*", "Principal": "*"}},
            "p.json: Statement.Principal: an identity-based policy names no principal",
        ),
        (
            {"Version": "2012-10-17", "Statement": [{"Effect": "allow", "Action": "*", "Resource": "*"}]},
            'Statement[0].Effect: must be "Allow" or "Deny"',
        ),
        (
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Resource": "*"}]},
            "Statement[0]: give exactly one of Action and NotAction",
        ),
        ({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*"}]}, "Statement[0].Resource: missing"),
        (
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "DescribeCluster", "Resource": "*"}]},
            "'DescribeCluster' is not an action",
        ),
        (
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": [], "Resource": "*"}]},
            "Statement[0].Action: must be a non-empty string",
        ),
        (
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "cluster/x"}]},
            "'cluster/x' is not an ARN",
        ),
        (
            {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "arn:aws:s3:::${aws:username}/*"}]},
            "policy variables are not evaluated here",
        ),
    ],
)
def test_a_policy_it_will_not_use_is_refused_in_one_line(document, message):
    with pytest.raises(PolicyError) as raised:
        parse_policy(document, "p.json")
    assert message in str(raised.value) and "\n" not in str(raised.value)


def test_a_file_that_is_missing_or_not_json_is_one_line(tmp_path):
    with pytest.raises(PolicyError, match=r"nothing\.json: cannot read the policy: No such file or directory$"):
        load_policy(tmp_path / "nothing.json")
    broken = tmp_path / "broken.json"
    broken.write_text('{"Version": ')
    with pytest.raises(PolicyError, match=r"broken\.json: not JSON: "):
        load_policy(broken)
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "*", "Resource": "*"}]}))
    assert load_policy(good).decide("sagemaker:CreateCluster") == ALLOW


def test_a_request_needs_its_action_on_the_resource_it_names_and_pass_role_on_each_role():
    arns = {"mine": CLUSTER}
    kwargs = {"region": "us-west-2", "account": "111122223333", "cluster_arn": arns.get}
    assert requested("sagemaker", "DescribeCluster", {"ClusterName": "mine"}, **kwargs) == [("sagemaker:DescribeCluster", CLUSTER)]
    assert requested("sagemaker", "ListTags", {"ResourceArn": CLUSTER}, **kwargs) == [("sagemaker:ListTags", CLUSTER)]
    created = requested(
        "sagemaker",
        "CreateCluster",
        {"ClusterName": "new", "InstanceGroups": [{"ExecutionRole": "arn:aws:iam::111122223333:role/exec"}]},
        **kwargs,
    )
    assert created == [
        ("sagemaker:CreateCluster", "arn:aws:sagemaker:us-west-2:111122223333:cluster/*"),
        ("iam:PassRole", "arn:aws:iam::111122223333:role/exec"),
    ]
    assert requested("sagemaker", "DescribeTrainingPlan", {"TrainingPlanName": "tp"}, **kwargs) == [
        ("sagemaker:DescribeTrainingPlan", "arn:aws:sagemaker:us-west-2:111122223333:training-plan/tp")
    ]
    assert requested("service-quotas", "ListServiceQuotas", {}, **kwargs) == [("servicequotas:ListServiceQuotas", "*")]


def test_the_policy_scoped_to_one_cluster_allows_it_and_refuses_another():
    document = iam.policy(["apply"], iam.scope(cluster=CLUSTER))
    p = parse_policy(document, "scoped.json")
    assert p.decide("sagemaker:UpdateCluster", CLUSTER) == ALLOW
    assert p.decide("sagemaker:UpdateCluster", CLUSTER[:-6] + "zzzzzz") == IMPLICIT_DENY
    assert p.decide("sagemaker:CreateCluster", "arn:aws:sagemaker:us-west-2:111122223333:cluster/*") == ALLOW
    assert p.decide("sagemaker:CreateCluster", "arn:aws:sagemaker:eu-west-1:111122223333:cluster/*") == IMPLICIT_DENY
