"""AddTags, ListTags, DeleteTags on a simulated cluster (the SageMaker tagging operations).

A cluster's tags are the `Tags` of its CreateCluster request, kept in its config and changed only by
these operations; DescribeCluster does not report them (its output shape has no Tags), ListTags does.
The same tag rules as at creation: each key once, and no `aws:` prefix (AWS tagging rules), at most
50 tags on a resource.
"""

from __future__ import annotations

from . import pagination, validation
from .errors import ValidationException
from .model import Cluster
from .world import World

MAX_TAGS = 50  # AWS: "a resource can have up to 50 user-created tags"


def _cluster(world: World, region: str, arn: str) -> Cluster:
    if not arn.startswith("arn:") or ":cluster/" not in arn:
        raise ValidationException.field("ResourceArn", f"{arn!r} is not the ARN of a HyperPod cluster (the simulator "
                                        "tags clusters only)")
    return world.find_cluster(region, arn)


def add_tags(world: World, region: str, params: dict) -> dict:
    validation.check_model("AddTags", params)
    validation.raise_if(validation.tag_rules(params["Tags"]))
    cluster = _cluster(world, region, params["ResourceArn"])
    tags = {tag["Key"]: tag["Value"] for tag in cluster.config.get("Tags") or []}
    tags.update({tag["Key"]: tag.get("Value", "") for tag in params["Tags"]})
    if len(tags) > MAX_TAGS:
        raise ValidationException.field("Tags", f"a resource can have at most {MAX_TAGS} tags; this request would "
                                        f"make {len(tags)}")
    cluster.config["Tags"] = [{"Key": key, "Value": value} for key, value in tags.items()]
    world.touch(cluster)
    return {"Tags": [dict(tag) for tag in params["Tags"]]}


def delete_tags(world: World, region: str, params: dict) -> dict:
    validation.check_model("DeleteTags", params)
    cluster = _cluster(world, region, params["ResourceArn"])
    gone = set(params["TagKeys"])
    cluster.config["Tags"] = [tag for tag in cluster.config.get("Tags") or [] if tag["Key"] not in gone]
    world.touch(cluster)
    return {}


def list_tags(world: World, region: str, params: dict) -> dict:
    validation.check_model("ListTags", params)
    cluster = _cluster(world, region, params["ResourceArn"])
    tags = sorted(cluster.config.get("Tags") or [], key=lambda tag: tag["Key"])
    chosen, token = pagination.page(tags, [(tag["Key"],) for tag in tags], descending=False,
                                    max_results=params.get("MaxResults"), token=params.get("NextToken"))
    response: dict = {"Tags": [dict(tag) for tag in chosen]}
    if token:
        response["NextToken"] = token
    return response
