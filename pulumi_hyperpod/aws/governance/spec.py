"""A task governance spec: the AWS CLI's `create-compute-quota --cli-input-json` (or
`create-cluster-scheduler-config --cli-input-json`) document, as a cluster spec is create-cluster's.

Checked against botocore's model before any call (every member, type, pattern, enum and limit:
`servicemodel.violations`, botocore's ParamValidator): a bad file is one line per problem naming the
file, the field and the rule. `ClusterArn` may also be the cluster's name (ClusterNameOrArn's
pattern): the plan resolves it to the ARN with DescribeCluster, so one spec serves a cluster created
again under the same name; the requests carry the ARN.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.governance.kinds import KINDS, Kind
from pulumi_hyperpod.core.detect import governance_resource
from pulumi_hyperpod.core.documents import read_document
from pulumi_hyperpod.core.errors import SpecError, Violation

# a well-formed ARN standing in for a cluster named by name while the rest is checked against the model
_PLACEHOLDER_ARN = "arn:aws:sagemaker:us-east-1:000000000000:cluster/aaaaaaaaaaaa"


class GovernanceSpecError(SpecError):
    kind = "task governance spec"


@dataclass(frozen=True)
class GovernanceSpec:
    """A desired compute quota or scheduler configuration: the create request as written."""

    kind: Kind
    request: dict[str, Any]  # the document: CreateComputeQuota's (CreateClusterSchedulerConfig's) input
    source: str | None = None

    @property
    def name(self) -> str:
        return str(self.request["Name"])

    @property
    def cluster(self) -> str:
        """The cluster as the spec names it: its ARN or its name."""
        return str(self.request["ClusterArn"])

    @property
    def label(self) -> str:
        return f"{self.kind.label} {self.name}"


def kind_of(document: Any) -> Kind | None:
    noun = governance_resource(document)
    return next((kind for kind in KINDS if kind.noun == noun), None)


def from_dict(document: Any, source: str | None = None) -> GovernanceSpec:
    """The spec of `document`, or GovernanceSpecError with every problem (no call is made)."""
    kind = kind_of(document)
    if kind is None or not isinstance(document, dict):
        rule = "is not a compute quota (ComputeQuotaConfig, ComputeQuotaTarget) or a scheduler configuration (SchedulerConfig)"
        raise GovernanceSpecError([Violation("", rule)], source=source)
    checked = dict(document)
    cluster = checked.get("ClusterArn")
    problems: list[Violation] = []
    if isinstance(cluster, str) and not cluster.startswith("arn:"):  # the cluster by its name
        problems += [
            Violation("ClusterArn", f"a cluster name or ARN: {rule}")
            for _path, rule in servicemodel.violations("DescribeCluster", {"ClusterName": cluster})
        ]
        checked["ClusterArn"] = _PLACEHOLDER_ARN
    problems += servicemodel.violations(kind.operation("Create"), checked)
    if problems:
        raise GovernanceSpecError(problems, source=source)
    return GovernanceSpec(kind, copy.deepcopy(document), source)


def load(path: str | Path) -> GovernanceSpec:
    return from_dict(read_document(path, GovernanceSpecError), source=str(path))
