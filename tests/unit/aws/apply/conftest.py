"""Shared fixtures of the core tests."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber


@pytest.fixture
def stubbed():
    """A sagemaker client behind botocore's Stubber: every request is checked against the service model."""
    client = boto3.session.Session(aws_access_key_id="x", aws_secret_access_key="y", region_name="us-west-2").client("sagemaker")
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()
