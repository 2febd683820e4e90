"""Credentials for an EKS cluster's Kubernetes API made with botocore, as `aws eks get-token` does:
a presigned STS GetCallerIdentity URL whose signature covers the `x-k8s-aws-id: <cluster name>`
header, base64url-encoded (no padding) after `k8s-aws-v1.`. The API server (aws-iam-authenticator)
calls that URL to learn who is asking. A token lives 15 minutes; the client asks for a new one
through the configuration's refresh hook before each request when the old one is 10 minutes old.
"""

from __future__ import annotations

import base64
import tempfile
import time
from typing import Any

from pulumi_hyperpod.core.extras import needed

TOKEN_PREFIX = "k8s-aws-v1."
CLUSTER_HEADER = "x-k8s-aws-id"
PRESIGN_SECONDS = 60  # as the AWS CLI: the URL is only to be called at once by the API server
REFRESH_AFTER = 600.0


def eks_token(session: Any, cluster_name: str, region: str) -> str:
    """A bearer token for EKS cluster `cluster_name` from a botocore session's credentials."""
    sts = session.create_client("sts", region_name=region)

    def add_cluster_header(request: Any, **_: Any) -> None:
        request.headers[CLUSTER_HEADER] = cluster_name

    sts.meta.events.register("before-sign.sts.GetCallerIdentity", add_cluster_header)
    url = sts.generate_presigned_url("get_caller_identity", Params={}, ExpiresIn=PRESIGN_SECONDS, HttpMethod="GET")
    return TOKEN_PREFIX + base64.urlsafe_b64encode(url.encode()).decode().rstrip("=")


def eks_api_client(session: Any, eks_cluster_arn: str) -> Any:
    """A kubernetes ApiClient for the EKS cluster `eks_cluster_arn` (HyperPod's Orchestrator.Eks.ClusterArn):
    its endpoint and CA from EKS DescribeCluster, a token refreshed as it ages."""
    with needed("eks"):
        from kubernetes import client  # noqa: PLC0415 - kubernetes (the eks extra): loaded by an EKS workload read only

    region, name = eks_cluster_arn.split(":")[3], eks_cluster_arn.rsplit("/", 1)[-1]
    cluster = session.create_client("eks", region_name=region).describe_cluster(name=name)["cluster"]
    configuration = client.Configuration()
    configuration.host = cluster["endpoint"]
    with tempfile.NamedTemporaryFile("wb", suffix=".crt", delete=False) as ca:
        ca.write(base64.b64decode(cluster["certificateAuthority"]["data"]))
    configuration.ssl_ca_cert = ca.name
    issued: list[float | None] = [None]

    def refresh(config: Any) -> None:
        if issued[0] is None or time.monotonic() - issued[0] >= REFRESH_AFTER:
            config.api_key["authorization"] = eks_token(session, name, region)
            issued[0] = time.monotonic()

    configuration.api_key_prefix = {"authorization": "Bearer"}
    configuration.api_key = {}
    refresh(configuration)  # the client sends the header only when a key is there; the hook keeps it fresh
    configuration.refresh_api_key_hook = refresh
    return client.ApiClient(configuration)
