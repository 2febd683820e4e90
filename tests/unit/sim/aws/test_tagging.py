"""SageMaker's tagging calls on a simulated cluster (fake/tagging.py), through a real botocore client:
the tags of CreateCluster are the ones ListTags shows, AddTags overwrites a key, DeleteTags removes
keys, and the service's rules (aws: keys, 50 tags, unknown ARNs) are errors."""

from __future__ import annotations

import pytest
from botocore.exceptions import ClientError

from tests.support.sim_helpers import eks_request, group


@pytest.fixture
def arn(client) -> str:
    request = eks_request("tagged", [group("pool", 1)])
    request["Tags"] = [{"Key": "team", "Value": "ml"}]
    return client.create_cluster(**request)["ClusterArn"]


def tags(client, arn: str) -> dict[str, str]:
    pages = client.get_paginator("list_tags").paginate(ResourceArn=arn)
    return {tag["Key"]: tag["Value"] for page in pages for tag in page["Tags"]}


def test_the_tags_of_create_cluster_are_listed_and_add_tags_overwrites_a_key(client, arn):
    assert tags(client, arn) == {"team": "ml"}
    client.add_tags(ResourceArn=arn, Tags=[{"Key": "team", "Value": "research"}, {"Key": "cost-center", "Value": "42"}])
    assert tags(client, arn) == {"team": "research", "cost-center": "42"}
    described = client.describe_cluster(ClusterName="tagged")
    assert described["ClusterArn"] == arn


def test_list_tags_shows_all_fifty_tags_a_resource_can_hold_on_one_page(client, arn):
    client.add_tags(ResourceArn=arn, Tags=[{"Key": f"k{i:02d}", "Value": str(i)} for i in range(49)])
    listed = client.list_tags(ResourceArn=arn, MaxResults=50)  # the model's smallest page is 50
    assert len(listed["Tags"]) == 50 and "NextToken" not in listed
    assert tags(client, arn) == {"team": "ml", **{f"k{i:02d}": str(i) for i in range(49)}}


def test_delete_tags_removes_the_keys_and_ignores_keys_that_are_not_there(client, arn):
    client.add_tags(ResourceArn=arn, Tags=[{"Key": "a", "Value": "1"}])
    client.delete_tags(ResourceArn=arn, TagKeys=["team", "not-there"])
    assert tags(client, arn) == {"a": "1"}


@pytest.mark.parametrize(
    "change, code, words",
    [
        (lambda c, arn: c.add_tags(ResourceArn=arn, Tags=[{"Key": "aws:owner", "Value": "x"}]), "ValidationException", "reserved"),
        (
            lambda c, arn: c.add_tags(ResourceArn=arn, Tags=[{"Key": f"k{i}", "Value": "v"} for i in range(50)]),
            "ValidationException",
            "at most 50",
        ),
        (lambda c, arn: c.list_tags(ResourceArn=arn.replace(arn.rsplit("/", 1)[1], "zzzzzzzzzzzz")), "ResourceNotFound", "not found"),
        (
            lambda c, arn: c.add_tags(
                ResourceArn="arn:aws:sagemaker:us-west-2:123456789012:training-job/x", Tags=[{"Key": "a", "Value": "b"}]
            ),
            "ValidationException",
            "not a cluster ARN",
        ),
    ],
)
def test_the_services_rules_are_errors_and_change_nothing(client, arn, change, code, words):
    with pytest.raises(ClientError) as raised:
        change(client, arn)
    assert raised.value.response["Error"]["Code"] == code
    assert words in raised.value.response["Error"]["Message"]
    assert tags(client, arn) == {"team": "ml"}
