"""The live source picks the orchestrator's reader from the observed cluster; the EKS client gets its
endpoint and CA from EKS DescribeCluster and a fresh token through the client's refresh hook."""

from __future__ import annotations

import base64
from typing import Any

import botocore.session
import pytest

from pulumi_hyperpod.aws.workload.eks_auth import TOKEN_PREFIX, eks_api_client
from pulumi_hyperpod.aws.workload.live import LiveWorkload
from pulumi_hyperpod.aws.workload.slurm import SlurmWorkload
from pulumi_hyperpod.aws.workload.source import WorkloadError
from tests.support.factories import observed_from, slurm_spec

EKS_ARN = "arn:aws:eks:us-west-2:111122223333:cluster/hyperpod-eks"


def test_a_slurm_cluster_is_read_through_the_command_prefix_given() -> None:
    live = LiveWorkload(command="ssh head-node")
    source = live._for(observed_from(slurm_spec(workers=1)))
    assert isinstance(source, SlurmWorkload) and source.runner.argv(["squeue", "--json"])[:2] == ["ssh", "head-node"]
    with pytest.raises(WorkloadError, match="not read yet"):
        LiveWorkload().cordon(["n1"], "x")


class _Session:
    """A botocore session whose EKS client answers DescribeCluster; STS is botocore's own (it only presigns)."""

    def __init__(self) -> None:
        self.real = botocore.session.Session()
        self.real.set_credentials("AKIDEXAMPLE", "secret")
        self.described: list[str] = []

    def create_client(self, service: str, region_name: str) -> Any:
        if service == "sts":
            return self.real.create_client("sts", region_name=region_name)
        session = self

        class Eks:
            def describe_cluster(self, name: str) -> dict:
                session.described.append(name)
                return {
                    "cluster": {
                        "endpoint": "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com",
                        "certificateAuthority": {"data": base64.b64encode(b"-----CA-----").decode()},
                    }
                }

        return Eks()


def test_the_eks_client_is_made_from_describe_cluster_with_a_token_refreshed_before_requests() -> None:
    session = _Session()
    api = eks_api_client(session, EKS_ARN)
    configuration = api.configuration
    assert session.described == ["hyperpod-eks"]
    assert configuration.host == "https://ABCDEF.gr7.us-west-2.eks.amazonaws.com"
    assert open(configuration.ssl_ca_cert, "rb").read() == b"-----CA-----"
    headers = configuration.auth_settings()["BearerToken"]["value"]  # runs the refresh hook
    assert headers.startswith("Bearer " + TOKEN_PREFIX)
