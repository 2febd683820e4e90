"""The IAM permissions the tool's AWS calls need, per feature, and the least-privilege policy made of
them (`hyperpod iam-policy`, docs/iam.md).

`CALLS` is every (service, operation) the code calls, by the feature that calls it: the operations
the client protocols name (aws/clients.py), the paginators the code asks for, the operations a plan's
steps and the waits call by name, and the EKS and STS calls of a drain. tests/unit/aws/test_iam.py
finds every call in the code and fails when one is not here, so a new call cannot ship without its
permission. An operation's IAM action is its service's prefix and its own name, but where the
Service Authorization Reference says otherwise (S3's HeadBucket is authorized as s3:ListBucket).
`DEPENDENT` adds the permissions AWS checks besides the action of the call itself: iam:PassRole for
the execution roles a CreateCluster names, and what AWS's HyperPod cluster-admin policy grants for
the service-linked role and the EKS access entries
(https://docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-prerequisites-iam.html).

Each action is scoped to the resource type the reference gives it (a cluster, a training plan, an
S3 bucket or object, an EKS cluster, an IAM role), narrowed by region, account, cluster, bucket and
role when they are given; an action without resource-level permissions gets "*". A statement is one
feature's actions of one resource type (Sid `PlanClusters`, `ApplyRoles`, ...).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterable, Sequence

VERSION = "2012-10-17"
FEATURES = ("plan", "apply", "preflight", "events", "drains", "bundle", "governance")
# a feature whose commands run another's calls first: apply plans before it changes anything
REQUIRES: dict[str, tuple[str, ...]] = {"apply": ("plan",)}
FEATURE_HELP = {
    "plan": "read a cluster and plan against it: plan, status, nodes, snapshot, list, cost; the lifecycle bundle's roles",
    "apply": "the calls a plan's steps make, the waits, the canary's health checks; delete",
    "preflight": "Service Quotas, the account's clusters, node consistency, training plans and their offerings",
    "events": "cluster events: events, timeline, cost's instance-hours",
    "drains": "the EKS cluster's endpoint for a drain through the Kubernetes API (RBAC: docs/iam.md)",
    "bundle": "upload a rendered lifecycle bundle to S3 (the Pulumi component)",
    "governance": "task governance: plan, apply and delete compute quotas and the scheduler configuration (docs/capacity.md)",
}

# IAM's service prefix of each botocore service the code calls (its SigV4 signing name)
PREFIXES = {"sagemaker": "sagemaker", "service-quotas": "servicequotas", "s3": "s3", "eks": "eks", "sts": "sts"}
# operations authorized by an action of another name (the Service Authorization Reference's mapping)
ACTION_NAMES = {
    ("s3", "HeadBucket"): "ListBucket",
    ("s3", "HeadObject"): "GetObject",
    ("s3", "ListObjects"): "ListBucket",
    ("s3", "ListObjectsV2"): "ListBucket",
}
# operations that need no permission: STS's GetCallerIdentity answers any caller (the EKS token presigns it)
NO_PERMISSION = frozenset({("sts", "GetCallerIdentity")})

_CLUSTER_READS = ("DescribeCluster", "ListClusterNodes", "ListTags", "ListClusterEvents")
CALLS: dict[str, tuple[tuple[str, str], ...]] = {
    "plan": (
        *(("sagemaker", op) for op in _CLUSTER_READS),
        ("sagemaker", "ListClusters"),
        ("s3", "GetObject"),  # provisioning_parameters.json of a group that states no Slurm role (aws/slurm/roles.py)
        ("sagemaker", "ListClusterExtensions"),  # a spec that names Extensions (aws/observe/reader.py)
        ("sagemaker", "DescribeClusterExtension"),
    ),
    "apply": tuple(
        ("sagemaker", op)
        for op in (
            "CreateCluster",
            "UpdateCluster",
            "DeleteCluster",
            "BatchAddClusterNodes",
            "BatchDeleteClusterNodes",
            "UpdateClusterSoftware",
            "BatchReplaceClusterNodes",
            "BatchRebootClusterNodes",
            "MoveClusterNodes",  # within the cluster: source and target are the same cluster (aws/planner/moves.py)
            "AddTags",
            "DeleteTags",
            "StartClusterHealthCheck",
            "ListClusterOperations",
            "DescribeClusterOperation",
            "DescribeCluster",  # the waits
            "ListClusterEvents",  # why a wait failed
            "CreateClusterExtension",
            "UpdateClusterExtension",
            "DeleteClusterExtension",
            "DescribeClusterExtension",  # an extension's wait (aws/apply/extensions.py)
            "ListClusterExtensions",  # its completion, and a saved plan's premise
        )
    ),
    "preflight": (
        ("service-quotas", "ListServiceQuotas"),
        ("service-quotas", "ListAWSDefaultServiceQuotas"),
        ("sagemaker", "ListClusters"),  # the account's clusters, against the cluster-count quotas
        ("sagemaker", "DescribeCluster"),
        ("sagemaker", "DescribeClusterNode"),
        ("sagemaker", "DescribeTrainingPlan"),
        ("sagemaker", "SearchTrainingPlanOfferings"),  # offerings for a group short of quota: read, never bought
    ),
    "events": (("sagemaker", "ListClusterEvents"), ("sagemaker", "DescribeClusterEvent"), ("sagemaker", "DescribeCluster")),
    "drains": (("eks", "DescribeCluster"), ("sts", "GetCallerIdentity")),
    "bundle": (("s3", "HeadBucket"), ("s3", "CreateBucket"), ("s3", "PutObject")),
    "governance": (
        ("sagemaker", "DescribeCluster"),  # the cluster a spec names, by name or ARN
        *(
            ("sagemaker", f"{verb}{noun}")
            for noun in ("ComputeQuota", "ClusterSchedulerConfig")
            for verb in ("Create", "Describe", "Update", "Delete")
        ),
        ("sagemaker", "ListComputeQuotas"),
        ("sagemaker", "ListClusterSchedulerConfigs"),
    ),
}


@dataclass(frozen=True)
class Dependent:
    """A permission AWS checks besides the call's own action, and why."""

    action: str
    kind: str  # a resource type of RESOURCES
    why: str


_ADMIN_PAGE = "AWS's HyperPod cluster-admin policy"
DEPENDENT: dict[str, tuple[Dependent, ...]] = {
    "plan": (Dependent("s3:ListBucket", "bucket", "without it S3 answers a missing key 403, not NoSuchKey"),),
    "apply": (
        Dependent("iam:PassRole", "role", "CreateCluster and UpdateCluster pass each instance group's ExecutionRole"),
        Dependent("iam:CreateServiceLinkedRole", "any", f"the first cluster makes HyperPod's service-linked role ({_ADMIN_PAGE})"),
        *(
            Dependent(f"eks:{action}", kind, f"an EKS-orchestrated cluster's access entries ({_ADMIN_PAGE})")
            for action, kind in (
                ("DescribeCluster", "eks-cluster"),
                ("CreateAccessEntry", "eks-cluster"),
                ("DescribeAccessEntry", "eks-access-entry"),
                ("DeleteAccessEntry", "eks-access-entry"),
                ("AssociateAccessPolicy", "eks-access-entry"),
            )
        ),
    ),
}

# resource type → (the Sid's suffix, the ARN templates of its resources)
RESOURCES: dict[str, tuple[str, tuple[str, ...]]] = {
    "cluster": ("Clusters", ("arn:{partition}:sagemaker:{region}:{account}:cluster/{cluster}",)),
    # a cluster not made yet has no id: CreateCluster is scoped to the region and account only
    "new-cluster": ("NewClusters", ("arn:{partition}:sagemaker:{region}:{account}:cluster/*",)),
    # an extension's call names its cluster and, but for Create and List, the extension's own ARN
    # (extension/<name>/<cluster id>/<id>): both are given, scoped to the cluster
    "cluster-extension": (
        "ClusterExtensions",
        (
            "arn:{partition}:sagemaker:{region}:{account}:cluster/{cluster}",
            "arn:{partition}:sagemaker:{region}:{account}:extension/*/{cluster}/*",
        ),
    ),
    "training-plan": ("TrainingPlans", ("arn:{partition}:sagemaker:{region}:{account}:training-plan/*",)),
    "compute-quota": ("ComputeQuotas", ("arn:{partition}:sagemaker:{region}:{account}:compute-quota/*",)),
    "scheduler-config": ("SchedulerConfigs", ("arn:{partition}:sagemaker:{region}:{account}:cluster-scheduler-config/*",)),
    "bucket": ("Buckets", ("arn:{partition}:s3:::{bucket}",)),
    "object": ("Objects", ("arn:{partition}:s3:::{bucket}/*",)),
    "eks-cluster": ("EksClusters", ("arn:{partition}:eks:{region}:{account}:cluster/*",)),
    "eks-access-entry": ("EksAccessEntries", ("arn:{partition}:eks:{region}:{account}:access-entry/*",)),
    "role": ("Roles", ("arn:{partition}:iam::{account}:role/{role}",)),
    "any": ("Unscoped", ("*",)),
}
_CLUSTER_ID = re.compile(r"[a-z0-9]{12}")
_CLUSTER_ARN = re.compile(
    r"arn:(?P<partition>aws[a-z-]*):sagemaker:(?P<region>[a-z0-9-]+):(?P<account>\d{12}):cluster/(?P<id>[a-z0-9]{12})"
)
_ACCOUNT = re.compile(r"\d{12}")
_BUCKET = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_ROLE = re.compile(r"[\w+=,.@/-]{1,512}")
_ROLE_ARN = re.compile(r"arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]{1,512}")


class ScopeError(ValueError):
    """An option that cannot scope the policy: the message names the option and the rule."""


def action_of(service: str, operation: str) -> str:
    """The IAM action authorizing `operation` of botocore service `service` ("sagemaker:DescribeCluster")."""
    return f"{PREFIXES.get(service, service)}:{ACTION_NAMES.get((service, operation), operation)}"


def resource_kind(service: str, operation: str) -> str:
    """The resource type the action of `operation` is authorized on (RESOURCES' key)."""
    if service == "sagemaker":
        special = {
            "DescribeTrainingPlan": "training-plan",
            "CreateCluster": "new-cluster",
            "ListClusters": "any",
            "SearchTrainingPlanOfferings": "any",  # a search names no resource
            **dict.fromkeys(
                (
                    "CreateClusterExtension",
                    "UpdateClusterExtension",
                    "DeleteClusterExtension",
                    "DescribeClusterExtension",
                    "ListClusterExtensions",
                ),
                "cluster-extension",
            ),
            "ListComputeQuotas": "any",
            "ListClusterSchedulerConfigs": "any",
        }
        if operation not in special and operation.endswith(("ComputeQuota", "ClusterSchedulerConfig")):
            return "compute-quota" if operation.endswith("ComputeQuota") else "scheduler-config"
        return special.get(operation, "cluster")
    if service == "s3":
        return "bucket" if operation in ("HeadBucket", "CreateBucket", "ListObjectsV2", "DeleteBucket") else "object"
    if service == "eks":
        return "eks-cluster"
    return "any"


def partition_of(region: str) -> str:
    """The ARN partition of `region` ("*": AWS's commercial one)."""
    if region.startswith("cn-"):
        return "aws-cn"
    return "aws-us-gov" if region.startswith("us-gov-") else "aws"


@dataclass(frozen=True)
class Scope:
    """What the policy's ARNs name: "*" for each part not given."""

    region: str = "*"
    account: str = "*"
    cluster: str = "*"  # a cluster's id: the last part of its ARN
    buckets: tuple[str, ...] = ()
    roles: tuple[str, ...] = ()  # role ARNs, or names (paths included) in `account`

    @property
    def partition(self) -> str:
        return partition_of(self.region)

    def arns(self, kind: str) -> list[str]:
        _sid, templates = RESOURCES[kind]
        values = {"partition": self.partition, "region": self.region, "account": self.account, "cluster": self.cluster}
        if kind == "role":  # a role given by its ARN keeps its own account
            return [r if r.startswith("arn:") else templates[0].format(**values, role=r) for r in self.roles or ("*",)]
        return [template.format(**values, bucket=bucket) for template in templates for bucket in self.buckets or ("*",)]


def scope(
    *,
    region: str | None = None,
    account: str | None = None,
    cluster: str | None = None,
    buckets: Sequence[str] = (),
    roles: Sequence[str] = (),
) -> Scope:
    """The Scope of the options, checked: a ScopeError names the first bad one."""
    from pulumi_hyperpod.aws.regions import is_region, not_a_region  # noqa: PLC0415 - botocore's partition data: only when a region is given

    cluster_id = "*"
    if cluster:
        found = _CLUSTER_ARN.fullmatch(cluster)
        if found:
            for option, given, value in (("--region", region, found["region"]), ("--account", account, found["account"])):
                if given and given != value:
                    raise ScopeError(f"--cluster: the ARN is in {option[2:]} {value}, not {given} ({option})")
            region, account, cluster_id = found["region"], found["account"], found["id"]
        elif _CLUSTER_ID.fullmatch(cluster):
            cluster_id = cluster
        else:
            raise ScopeError(
                f"--cluster: {cluster!r} is neither a cluster's ARN nor its id: a HyperPod cluster's ARN ends in its id "
                "(12 lowercase letters and digits), not its name (`hyperpod status NAME --json` shows the ARN)"
            )
    if region and not is_region(region):
        raise ScopeError(f"--region: {not_a_region(region)}")
    if account and not _ACCOUNT.fullmatch(account):
        raise ScopeError(f"--account: {account!r} is not an AWS account id (12 digits)")
    for bucket in buckets:
        if not _BUCKET.fullmatch(bucket):
            raise ScopeError(f"--bucket: {bucket!r} is not an S3 bucket name (3-63 lowercase letters, digits, dots and hyphens)")
    for role in roles:
        if not (_ROLE_ARN.fullmatch(role) or _ROLE.fullmatch(role)):
            raise ScopeError(f"--role: {role!r} is not an IAM role's name or ARN")
    return Scope(region or "*", account or "*", cluster_id, tuple(buckets), tuple(roles))


def features_with_requirements(features: Iterable[str]) -> list[str]:
    """`features` and those they require, in FEATURES' order; every feature when none is named."""
    chosen = set(features) or set(FEATURES)
    for feature in list(chosen):
        chosen.update(REQUIRES.get(feature, ()))
    unknown = sorted(chosen - set(FEATURES))
    if unknown:
        raise ScopeError(f"--feature: {unknown[0]!r} is not a feature (one of {', '.join(FEATURES)})")
    return [feature for feature in FEATURES if feature in chosen]


def permissions(feature: str) -> dict[str, list[str]]:
    """resource type → the sorted actions `feature` needs on it."""
    by_kind: dict[str, set[str]] = {}
    for service, operation in CALLS[feature]:
        if (service, operation) not in NO_PERMISSION:
            by_kind.setdefault(resource_kind(service, operation), set()).add(action_of(service, operation))
    for dependent in DEPENDENT.get(feature, ()):
        by_kind.setdefault(dependent.kind, set()).add(dependent.action)
    return {kind: sorted(actions) for kind, actions in sorted(by_kind.items(), key=lambda item: list(RESOURCES).index(item[0]))}


def policy(features: Iterable[str] = (), where: Scope | None = None) -> dict[str, Any]:
    """The IAM policy document for `features` (every one when none is named) scoped to `where`."""
    where = where or Scope()
    statements = []
    for feature in features_with_requirements(features):
        for kind, actions in permissions(feature).items():
            arns = where.arns(kind)
            statements.append(
                {
                    "Sid": feature.capitalize() + RESOURCES[kind][0],
                    "Effect": "Allow",
                    "Action": actions,
                    "Resource": arns[0] if len(arns) == 1 else arns,
                }
            )
    return {"Version": VERSION, "Statement": statements}
