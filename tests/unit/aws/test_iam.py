"""The IAM policy derived from the calls (aws/iam.py): every call the code makes is found in the
source, as tests/unit/aws/test_clients.py finds the clients' operations, and each one's action is in
the generated policy, so a call added without its permission fails here; the policy's shape; the
scoping options' rules."""

from __future__ import annotations

import ast

import pytest
from botocore import xform_name
from botocore.session import get_session

from pulumi_hyperpod.aws import clients, iam
from tests.support.paths import PACKAGE

SERVICES = ("sagemaker", "service-quotas", "s3", "eks", "sts")
# the folders whose calls go to AWS: not the simulators (they answer calls) nor Google Cloud's code
SKIPPED = ("sim", "gcp")
# method names of other objects that an operation shares: a regular expression's search, not SageMaker's Search
NOT_CALLS = frozenset({"search"})
# modules that call a SageMaker operation by its name (a step's operation, a waiter's)
BY_NAME = (PACKAGE / "aws" / "planner", PACKAGE / "aws" / "apply")


def _models() -> dict[str, dict[str, str]]:
    """service → {snake_case method: operation name}."""
    session = get_session()
    models = {s: {xform_name(op): op for op in session.get_service_model(s).operation_names} for s in SERVICES}
    return {s: {method: op for method, op in ops.items() if method not in NOT_CALLS} for s, ops in models.items()}


MODELS = _models()


def _client_service(node: ast.AST, clients_made: dict[str, str]) -> str | None:
    """The service of `session.create_client("eks", …)` or of a name bound to one, else None."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "create_client":
        first = node.args[0] if node.args else None
        return first.value if isinstance(first, ast.Constant) and isinstance(first.value, str) else None
    return clients_made.get(node.id) if isinstance(node, ast.Name) else None


def calls_in(source: str, *, by_name: bool = False) -> set[tuple[str | None, str]]:
    """(service or None when any client's, operation) of every AWS call in `source`: a method named as
    an operation, a method's name as a string (a paginator's, a presigned URL's, one a helper is
    handed), and (`by_name`) an operation's own name."""
    tree = ast.parse(source)
    clients_made = {
        target.id: service
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign) and (service := _client_service(node.value, {})) is not None
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found: set[tuple[str | None, str]] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            method, owner = node.func.attr, node.func.value
            named = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
            service = _client_service(owner, clients_made)
            if method in ("get_paginator", "generate_presigned_url", "can_paginate") and isinstance(named, str):
                method = named
            for candidate in (service,) if service else SERVICES:
                if candidate in MODELS and method in MODELS[candidate]:
                    found.add((service, MODELS[candidate][method]))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            # a method's name handed to a helper that calls it ("list_service_quotas" to get_paginator)
            found |= {(None, MODELS[s][node.value]) for s in SERVICES if node.value in MODELS[s]}
            if by_name and node.value in MODELS["sagemaker"].values():
                found.add(("sagemaker", node.value))
    return found


def code_calls() -> set[tuple[str | None, str]]:
    found: set[tuple[str | None, str]] = set()
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE).parts
        if parts[0] in SKIPPED or path.stem.startswith("gcp"):
            continue
        found |= calls_in(path.read_text(), by_name=any(path.is_relative_to(folder) for folder in BY_NAME))
    return found


def granted(document: dict) -> set[str]:
    return {action for statement in document["Statement"] for action in statement["Action"]}


def uncovered(found: set[tuple[str | None, str]], document: dict) -> list[str]:
    """The calls of `found` whose action the policy does not grant (a call of an unknown client is
    covered when one service that has the operation is)."""
    actions = granted(document)
    missing = []
    for service, operation in sorted(found, key=str):
        services = (service,) if service else [s for s in SERVICES if operation in MODELS[s].values()]
        if not any((s, operation) in iam.NO_PERMISSION or iam.action_of(s, operation) in actions for s in services):
            missing.append(f"{service or '/'.join(services)} {operation}")
    return missing


def test_every_call_the_code_makes_is_in_the_generated_policy():
    found = code_calls()
    # the scan sees each kind of call: a method, a paginator, a step's operation by name, an EKS and an STS client's
    assert {
        (None, "DescribeCluster"),
        (None, "ListServiceQuotas"),
        ("sagemaker", "UpdateCluster"),
        ("eks", "DescribeCluster"),
        ("sts", "GetCallerIdentity"),
        (None, "PutObject"),
    } <= found
    assert uncovered(found, iam.policy()) == []


def test_a_call_added_without_its_permission_is_caught():
    """The check is not vacuous: a new call, through a client or by name, is reported."""
    found = calls_in("def f(client):\n    client.create_training_job(TrainingJobName='x')\n    client.get_paginator('list_models')\n")
    assert uncovered(found, iam.policy()) == ["sagemaker CreateTrainingJob", "sagemaker ListModels"]
    eks = calls_in("def f(session):\n    session.create_client('eks').list_clusters()\n")
    assert uncovered(eks, iam.policy()) == ["eks ListClusters"]


def test_every_operation_the_client_protocols_name_is_a_call_of_some_feature():
    named = {
        (service, op)
        for protocol, service in ((clients.SageMakerClient, "sagemaker"), (clients.S3Client, "s3"))
        for method in vars(protocol)
        if not method.startswith("_") and (op := MODELS[service].get(method))
    }
    listed = {call for calls in iam.CALLS.values() for call in calls}
    assert named and named - listed == set()


def test_every_call_listed_is_an_operation_of_its_service():
    for feature, calls in iam.CALLS.items():
        for service, operation in calls:
            assert operation in MODELS[service].values(), f"{feature}: {service} has no {operation}"


def test_the_prefixes_are_the_services_signing_names():
    session = get_session()
    assert iam.PREFIXES == {s: session.get_service_model(s).signing_name for s in SERVICES}


def test_the_policy_is_a_statement_per_feature_and_resource_type():
    document = iam.policy()
    assert document["Version"] == "2012-10-17"
    sids = [s["Sid"] for s in document["Statement"]]
    assert len(sids) == len(set(sids)) and all(sid.isalnum() for sid in sids)
    assert {sid for sid in sids if sid.startswith("Plan")} == {
        "PlanClusters",
        "PlanClusterExtensions",
        "PlanBuckets",
        "PlanObjects",
        "PlanUnscoped",
    }
    by_sid = {s["Sid"]: s for s in document["Statement"]}
    assert by_sid["ApplyRoles"]["Action"] == ["iam:PassRole"]
    assert by_sid["PreflightUnscoped"]["Resource"] == "*"  # Service Quotas' List* take no resource
    assert "s3:ListBucket" in by_sid["BundleBuckets"]["Action"]  # HeadBucket is authorized as s3:ListBucket
    # a search for training plan offerings names no resource: a policy scoped to clusters would deny it
    assert "sagemaker:SearchTrainingPlanOfferings" in by_sid["PreflightUnscoped"]["Action"]


def test_a_feature_brings_what_it_requires_and_nothing_else():
    sids = [s["Sid"] for s in iam.policy(["apply"])["Statement"]]
    assert all(sid.startswith(("Plan", "Apply")) for sid in sids) and any(sid.startswith("Plan") for sid in sids)
    assert [s["Sid"] for s in iam.policy(["events"])["Statement"]] == ["EventsClusters"]


def test_scoping_narrows_the_arns_where_the_action_takes_them():
    arn = "arn:aws:sagemaker:eu-west-1:111122223333:cluster/abcdef123456"
    by_sid = {
        s["Sid"]: s for s in iam.policy(["apply"], iam.scope(cluster=arn, buckets=["team-bundles"], roles=["team/exec"]))["Statement"]
    }
    assert by_sid["ApplyClusters"]["Resource"] == arn
    assert by_sid["ApplyNewClusters"]["Resource"] == "arn:aws:sagemaker:eu-west-1:111122223333:cluster/*"  # no id yet
    assert by_sid["ApplyRoles"]["Resource"] == "arn:aws:iam::111122223333:role/team/exec"
    assert by_sid["PlanObjects"]["Resource"] == "arn:aws:s3:::team-bundles/*"
    assert by_sid["PlanUnscoped"]["Resource"] == "*"
    china = iam.policy(["events"], iam.scope(region="cn-north-1", account="111122223333"))["Statement"][0]
    assert china["Resource"] == "arn:aws-cn:sagemaker:cn-north-1:111122223333:cluster/*"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cluster": "my-cluster"}, "--cluster: 'my-cluster' is neither a cluster's ARN nor its id"),
        (
            {"cluster": "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcdef123456", "region": "us-east-1"},
            "--cluster: the ARN is in region us-west-2, not us-east-1",
        ),
        ({"region": "mars-1"}, "--region: 'mars-1' is not an AWS region"),
        ({"account": "12345"}, "--account: '12345' is not an AWS account id (12 digits)"),
        ({"buckets": ["Bad_Bucket"]}, "--bucket: 'Bad_Bucket' is not an S3 bucket name"),
        ({"roles": ["a role"]}, "--role: 'a role' is not an IAM role's name or ARN"),
    ],
)
def test_a_bad_scope_is_one_line_naming_the_option(options, message):
    with pytest.raises(iam.ScopeError) as raised:
        iam.scope(**options)
    assert str(raised.value).startswith(message) and "\n" not in str(raised.value)
