"""SageMaker's tagging calls on clusters: AddTags, ListTags, DeleteTags.

A cluster's tags are the `Tags` of its CreateCluster request, kept in `cluster.config["Tags"]`;
these calls read and change that list, so DescribeCluster, ListTags and a later plan all see the
same tags. Only cluster ARNs are simulated (the simulator holds no other SageMaker resource).

Limits are the service's: at most 50 tags on a resource (SageMaker's documented per-resource
limit; the model allows 50 per AddTags call), `aws:` keys are reserved; AddTags overwrites the value
of a key that is already there; DeleteTags of a key that is not there is not an error.
"""

from __future__ import annotations

from pulumi_hyperpod.sim.aws.errors import ResourceNotFound, ValidationException
from pulumi_hyperpod.sim.aws.model import Cluster
from pulumi_hyperpod.sim.aws.pagination import page
from pulumi_hyperpod.sim.aws.service_rules import tag_problems
from pulumi_hyperpod.sim.aws.validation import check_model, raise_if
from pulumi_hyperpod.sim.aws.world import World

MAX_TAGS_PER_RESOURCE = 50


def _cluster(world: World, region: str, arn: str) -> Cluster:
    """The cluster whose ARN this is, in the caller's region."""
    if ":cluster/" not in arn:
        raise ValidationException(f"The HyperPod simulator holds clusters only; {arn} is not a cluster ARN.")
    try:
        return world.find_cluster(region, arn)
    except ResourceNotFound:
        raise ResourceNotFound(f"Resource {arn} not found.") from None


def _tags(cluster: Cluster) -> list[dict]:
    return list(cluster.config.get("Tags") or [])


def add_tags(world: World, region: str, params: dict) -> dict:
    check_model("AddTags", params)
    raise_if(tag_problems(params["Tags"]))
    cluster = _cluster(world, region, params["ResourceArn"])
    added = {tag["Key"]: tag["Value"] for tag in params["Tags"]}
    kept = [tag for tag in _tags(cluster) if tag["Key"] not in added]
    tags = kept + [{"Key": key, "Value": value} for key, value in added.items()]
    if len(tags) > MAX_TAGS_PER_RESOURCE:
        raise ValidationException(
            f"Resource {cluster.arn} would have {len(tags)} tags; a resource can have at most {MAX_TAGS_PER_RESOURCE}."
        )
    cluster.config = {**cluster.config, "Tags": tags}
    world.touch(cluster)
    return {"Tags": params["Tags"]}


def list_tags(world: World, region: str, params: dict) -> dict:
    check_model("ListTags", params)
    tags = sorted(_tags(_cluster(world, region, params["ResourceArn"])), key=lambda tag: tag["Key"])
    chosen, token = page(
        tags,
        [(tag["Key"],) for tag in tags],
        descending=False,
        max_results=params.get("MaxResults"),
        token=params.get("NextToken"),
        default_max=50,
    )
    return {"Tags": chosen, **({"NextToken": token} if token else {})}


def delete_tags(world: World, region: str, params: dict) -> dict:
    check_model("DeleteTags", params)
    cluster = _cluster(world, region, params["ResourceArn"])
    gone = set(params["TagKeys"])
    cluster.config = {**cluster.config, "Tags": [tag for tag in _tags(cluster) if tag["Key"] not in gone]}
    world.touch(cluster)
    return {}


OPERATIONS = {"AddTags": add_tags, "ListTags": list_tags, "DeleteTags": delete_tags}
