"""UpdateClusterSoftware: patch the platform software (AMI) of a cluster's instances, group by group.

Validation first (the model, the groups named, nothing else running that blocks it), then the rolling
update starts (`rolling_update.py`): the cluster and its patched groups are `SystemUpdating` and each
instance shows `SystemUpdating` while its turn lasts. Blocked, like BatchAdd/BatchDelete, while a group
has not reached its MinCount yet (seed 000: "UpdateClusterSoftware … 被阻止" during Creating/Updating).
"""

from __future__ import annotations

from pulumi_hyperpod.sim.aws import ids, rolling_update, validation
from pulumi_hyperpod.sim.aws.errors import ConflictException, ValidationException
from pulumi_hyperpod.sim.aws.mutations import require_writable
from pulumi_hyperpod.sim.aws.world import World


def update_cluster_software(world: World, region: str, params: dict) -> dict:
    validation.check_model("UpdateClusterSoftware", params)
    cluster = world.find_cluster(region, params["ClusterName"])
    require_writable(cluster, "UpdateClusterSoftware")
    if cluster.orchestrator == "Slurm" and params.get("DeploymentConfig"):
        raise ValidationException.field(
            "DeploymentConfig",
            "rolling updates (DeploymentConfig) are supported only for "
            "clusters orchestrated by Amazon EKS; a Slurm cluster's nodes are all updated at once",
        )
    if cluster.software_update is not None:
        raise ConflictException(
            f"Cluster {cluster.name} is already updating its software; wait for it to be "
            "InService before calling UpdateClusterSoftware again."
        )
    entries = params.get("InstanceGroups") or []
    problems = []
    for index, entry in enumerate(entries):
        group = cluster.groups.get(entry["InstanceGroupName"])
        if group is None or group.deleting:
            problems.append(
                validation.Violation(
                    f"InstanceGroups[{index}].InstanceGroupName",
                    f"instance group {entry['InstanceGroupName']!r} does not exist in cluster {cluster.name}",
                )
            )
    validation.raise_if(problems)
    names = [entry["InstanceGroupName"] for entry in entries] or list(cluster.groups)
    for name in names:
        group = cluster.groups[name]
        if group.status in ("Creating", "Updating"):
            raise ConflictException(
                f"Instance group {name} is {group.status} until MinCount {group.min_count} is "
                "reached; UpdateClusterSoftware is blocked until it is InService."
            )
    rolling_update.start(world, cluster, entries, params.get("DeploymentConfig"), params.get("ImageId"), ids.new_uuid(world.rng))
    return {"ClusterArn": cluster.arn}
