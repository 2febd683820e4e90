"""Cluster extensions: Create, Describe, Update, Delete and ListClusterExtensions, and
ListClusterExtensionVersions, as botocore's model defines them.

What the model's documentation says, simulated as said: an extension (such as
`sagemaker-observability`) goes on a cluster orchestrated by Slurm with `NodeProvisioningMode:
Continuous`, one of a name per cluster; without a version the latest is installed; an update may
change the configuration (a merge: settings given change, settings left out keep their values, a
setting given as `null` goes back to its default), the version (never to an earlier one), or both,
and is refused while the extension is being deleted; a deleted extension is `Deleting` until it is
gone from every node, then it is not listed and DescribeClusterExtension answers ResourceNotFound.
ListClusterExtensionVersions lists the versions on offer, highest first, and an empty list for a
name not offered. The offers are scenario data (`scenario.cluster_extensions`).

The simulator's assumptions, where the documentation is silent (docs/simulator.md): how long each
transition takes (`timing.extension_*_seconds`); which error a refusal is (a cluster that cannot take
extensions or a second one of a name: ConflictException; a cluster being deleted, or deleting an
extension still being created or updated: ResourceInUse; a change while one runs: ConflictException;
a version not on offer or earlier than the installed one: ValidationException; a name not offered:
ResourceNotFound). Statuses follow the clock when read; failures (CreateFailed, UpdateFailed,
DeleteFailed, Degraded) and health issues are not simulated. An extension's Tags are kept, not
listed (ListTags answers for clusters only).
"""

from __future__ import annotations

import json
import string
from typing import Any

from pulumi_hyperpod.sim.aws import pagination, validation
from pulumi_hyperpod.sim.aws.clock import to_seconds
from pulumi_hyperpod.sim.aws.errors import ConflictException, ResourceInUse, ResourceNotFound, ValidationException
from pulumi_hyperpod.sim.aws.model import RUNNING, Cluster
from pulumi_hyperpod.sim.aws.mutations import idempotent
from pulumi_hyperpod.sim.aws.world import World

CREATING, UPDATING, DELETING, ACTIVE = "Creating", "Updating", "Deleting", "Active"
_ALNUM = string.ascii_lowercase + string.digits


def version_key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def status(world: World, extension: dict) -> str | None:
    """Its status now; None once a deletion finished (it is gone)."""
    phase, due = extension["phase"], extension["due"]
    if due is None or world.now < due:
        return phase
    return None if phase == DELETING else ACTIVE


def merged(settings: dict, change: dict) -> dict:
    """`settings` with `change` applied: given settings change (objects merge), `null` removes one."""
    result = dict(settings)
    for key, value in change.items():
        if value is None:
            result.pop(key, None)
        elif isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = merged(result[key], value)
        else:
            result[key] = value
    return result


def _configuration(params: dict) -> dict:
    text = params.get("ConfigurationValues")
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except ValueError:
        value = None
    if not isinstance(value, dict):
        raise ValidationException.field("ConfigurationValues", "must be a JSON object serialized as a string")
    return value


def _cluster(world: World, region: str, arn: str) -> Cluster:
    return world.find_cluster(region, arn)


def _present(world: World, cluster: Cluster) -> list[dict]:
    return [extension for extension in cluster.extensions if status(world, extension) is not None]


def _purge(world: World, cluster: Cluster) -> None:
    """Forget the extensions whose deletion finished (a write keeps the stored list short)."""
    kept = _present(world, cluster)
    if len(kept) != len(cluster.extensions):
        cluster.extensions = kept
        world.touch(cluster)


def _extension(world: World, cluster: Cluster, arn: str) -> dict:
    for extension in _present(world, cluster):
        if extension["arn"] == arn:
            return extension
    raise ResourceNotFound(f"Extension {arn} not found on cluster {cluster.arn}.")


def _offered_version(world: World, name: str, version: str | None) -> str:
    offer = world.scenario.cluster_extensions[name]
    versions = sorted(offer.versions, key=version_key)
    if version is None:
        return versions[-1]
    if version not in versions:
        raise ValidationException.field("ExtensionVersion", f"{name} {version} is not offered; offered: {', '.join(reversed(versions))}")
    return version


def _begin(world: World, extension: dict, phase: str, seconds: float) -> None:
    extension.update(phase=phase, since=world.now, due=world.now + seconds, modified=world.now)


def create_cluster_extension(world: World, region: str, params: dict) -> dict:
    validation.check_model("CreateClusterExtension", params)
    return idempotent(world, "extension-create", "CreateClusterExtension", params, lambda: _create(world, region, params))


def _create(world: World, region: str, params: dict) -> dict:
    cluster = _cluster(world, region, params["ClusterArn"])
    name = params["ExtensionName"]
    if cluster.status == "Deleting":
        raise ResourceInUse(f"Cluster {cluster.name} is being deleted; no extension can be installed on it.")
    if cluster.orchestrator != "Slurm" or not cluster.continuous:
        raise ConflictException(
            f"Cluster {cluster.name} cannot take extensions: the cluster must use Slurm as the orchestrator "
            "and have NodeProvisioningMode set to Continuous."
        )
    if name not in world.scenario.cluster_extensions:
        raise ResourceNotFound(f"Extension {name} does not exist.")
    version = _offered_version(world, name, params.get("ExtensionVersion"))
    configuration = _configuration(params)
    _purge(world, cluster)
    if any(extension["name"] == name for extension in cluster.extensions):
        raise ConflictException(f"Cluster {cluster.name} already has an extension named {name}.")
    suffix = "".join(world.rng.choice(_ALNUM) for _ in range(12))
    arn = f"arn:aws:sagemaker:{region}:{world.account}:extension/{name}/{cluster.id}/{suffix}"
    defaults = world.scenario.cluster_extensions[name].default_configuration
    extension: dict[str, Any] = {
        "arn": arn,
        "name": name,
        "version": version,
        "configuration": merged(defaults, configuration),
        "tags": list(params.get("Tags") or []),
        "created": world.now,
    }
    _begin(world, extension, CREATING, world.scenario.timing.extension_create_seconds)
    cluster.extensions.append(extension)
    world.touch(cluster)
    return {"ExtensionArn": arn}


def update_cluster_extension(world: World, region: str, params: dict) -> dict:
    validation.check_model("UpdateClusterExtension", params)
    return idempotent(world, "extension-update", "UpdateClusterExtension", params, lambda: _update(world, region, params))


def _settled(world: World, region: str, params: dict, doing: str, busy: type[ConflictException | ResourceInUse]) -> tuple[Cluster, dict]:
    """The cluster and the extension a request names, when it is Active: one being deleted is a
    ConflictException, one being created or updated `busy`."""
    cluster = _cluster(world, region, params["ClusterArn"])
    extension = _extension(world, cluster, params["ExtensionArn"])
    now = status(world, extension)
    if now == DELETING:
        raise ConflictException(f"Extension {extension['name']} is being deleted; it cannot be {doing}.")
    if now in (CREATING, UPDATING):
        raise busy(f"Extension {extension['name']} is {now}; wait until it is Active before it is {doing}.")
    return cluster, extension


def _update(world: World, region: str, params: dict) -> dict:
    cluster, extension = _settled(world, region, params, "updated", ConflictException)
    version = params.get("ExtensionVersion")
    if version is not None:
        version = _offered_version(world, extension["name"], version)
        if version_key(version) < version_key(extension["version"]):
            raise ValidationException.field(
                "ExtensionVersion",
                f"cannot go from {extension['version']} to the earlier {version}; delete the extension and create it again with that version",
            )
        extension["version"] = version
    defaults = world.scenario.cluster_extensions[extension["name"]].default_configuration
    extension["configuration"] = merged(defaults, merged(extension["configuration"], _configuration(params)))
    _begin(world, extension, UPDATING, world.scenario.timing.extension_update_seconds)
    world.touch(cluster)
    return {"ExtensionArn": extension["arn"]}


def delete_cluster_extension(world: World, region: str, params: dict) -> dict:
    validation.check_model("DeleteClusterExtension", params)
    cluster, extension = _settled(world, region, params, "deleted", ResourceInUse)
    _begin(world, extension, DELETING, world.scenario.timing.extension_delete_seconds)
    world.touch(cluster)
    return {"ExtensionArn": extension["arn"]}


def _node_summary(world: World, cluster: Cluster, extension: dict, now: str) -> dict:
    """Nodes targeted (the running ones) and those on the current version and configuration, which
    grow across a Creating or Updating window and shrink across a Deleting one."""
    total = sum(1 for node in cluster.iter_live_nodes() if node.phase == RUNNING)
    if now == ACTIVE:
        return {"TotalCount": total, "ActiveCount": total}
    span = extension["due"] - extension["since"]
    done = 1.0 if span <= 0 else (world.now - extension["since"]) / span
    moved = min(total - 1, int(total * done)) if total else 0
    return {"TotalCount": total, "ActiveCount": total - moved if now == DELETING else moved}


def describe_cluster_extension(world: World, region: str, params: dict) -> dict:
    validation.check_model("DescribeClusterExtension", params)
    cluster = _cluster(world, region, params["ClusterArn"])
    extension = _extension(world, cluster, params["ExtensionArn"])
    now = status(world, extension) or DELETING
    return {
        "ExtensionDetails": {
            "ClusterArn": cluster.arn,
            "ExtensionArn": extension["arn"],
            "ExtensionName": extension["name"],
            "ExtensionVersion": extension["version"],
            "Status": now,
            "ConfigurationValues": json.dumps(extension["configuration"], sort_keys=True),
            "CreationTime": extension["created"],
            "LastModifiedTime": extension["modified"],
        },
        "NodeSummary": _node_summary(world, cluster, extension, now),
        "Health": {"Issues": []},
    }


def list_cluster_extensions(world: World, region: str, params: dict) -> dict:
    validation.check_model("ListClusterExtensions", params)
    cluster = _cluster(world, region, params["ClusterArn"])
    after = to_seconds(params["CreationTimeAfter"]) if params.get("CreationTimeAfter") is not None else None
    before = to_seconds(params["CreationTimeBefore"]) if params.get("CreationTimeBefore") is not None else None
    items, keys = [], []
    for extension in sorted(_present(world, cluster), key=lambda e: (e["created"], e["arn"])):
        if (after is not None and extension["created"] < after) or (before is not None and extension["created"] > before):
            continue
        items.append(
            {
                "ExtensionArn": extension["arn"],
                "ExtensionName": extension["name"],
                "ExtensionVersion": extension["version"],
                "Status": status(world, extension),
                "CreationTime": extension["created"],
            }
        )
        keys.append((extension["created"], extension["arn"]))
    return pagination.response("Extensions", items, keys, params)


def list_cluster_extension_versions(world: World, region: str, params: dict) -> dict:
    validation.check_model("ListClusterExtensionVersions", params)
    offer = world.scenario.cluster_extensions.get(params["ExtensionName"])
    versions = sorted(offer.versions if offer else [], key=version_key, reverse=True)
    keys = [tuple(-part for part in version_key(version)) for version in versions]  # ascending keys, highest version first
    return pagination.response("ExtensionVersions", [{"ExtensionVersion": version} for version in versions], keys, params)


OPERATIONS = {
    "CreateClusterExtension": create_cluster_extension,
    "DescribeClusterExtension": describe_cluster_extension,
    "UpdateClusterExtension": update_cluster_extension,
    "DeleteClusterExtension": delete_cluster_extension,
    "ListClusterExtensions": list_cluster_extensions,
    "ListClusterExtensionVersions": list_cluster_extension_versions,
}
