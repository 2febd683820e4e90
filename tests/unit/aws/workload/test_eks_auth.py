"""The EKS token is made as `aws eks get-token` makes it: a presigned STS GetCallerIdentity URL whose
signature covers x-k8s-aws-id, base64url without padding after k8s-aws-v1."""

from __future__ import annotations

import base64
from urllib.parse import parse_qs, urlsplit

import botocore.session

from pulumi_hyperpod.aws.workload.eks_auth import TOKEN_PREFIX, eks_token


def test_the_token_is_a_presigned_get_caller_identity_url_signed_over_the_cluster_header() -> None:
    session = botocore.session.Session()
    session.set_credentials("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY")
    token = eks_token(session, "hyperpod-eks", "us-west-2")
    assert token.startswith(TOKEN_PREFIX) and "=" not in token
    encoded = token[len(TOKEN_PREFIX) :]
    url = base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4)).decode()
    parts = urlsplit(url)
    query = parse_qs(parts.query)
    assert parts.netloc == "sts.us-west-2.amazonaws.com"
    assert query["Action"] == ["GetCallerIdentity"] and query["X-Amz-Expires"] == ["60"]
    assert "x-k8s-aws-id" in query["X-Amz-SignedHeaders"][0].split(";")
    assert query["X-Amz-Credential"][0].startswith("AKIDEXAMPLE/")
