"""Task governance: compute quotas and the cluster's scheduler configuration (Create, Describe,
Update, Delete, ListComputeQuotas and the same of ClusterSchedulerConfig), as botocore's model
defines them.

What the model says, simulated as said: a name is unique within the cluster `ClusterArn` names
(CreateComputeQuota's and CreateClusterSchedulerConfig's `Name`: "The name must be unique within the
SageMaker AI HyperPod cluster specified by ClusterArn"); ids are 12 lowercase alphanumerics and ARNs
`arn:aws:sagemaker:REGION:ACCOUNT:compute-quota/ID` and `…:cluster-scheduler-config/ID` (the model's
ComputeQuotaArn and ClusterSchedulerConfigArn patterns); ActivationState defaults to `Enabled`; an
update names `TargetVersion` and answers the new `…Version`; ConflictException is one of the errors
the model lists for Create and Update; statuses are SchedulerResourceStatus's words.

The simulator's assumptions, where the model is silent (docs/simulator.md, "Task governance"):
`TargetVersion` is the version the caller read, and any other is a ConflictException (an optimistic
lock; the update makes it one higher); a resource is `Creating` (`Updating`) for
`timing.governance_seconds`, then `Created` (`Updated`); a delete is `Deleting` for as long, then the
resource is gone (Describe answers ResourceNotFound, List leaves it out); task governance is for
EKS-orchestrated clusters (the HyperPod task governance guide), so a Slurm cluster is a
ValidationException; a cluster has one scheduler configuration (the guide's "cluster policy"), a
second is a ConflictException; a change while one runs is a ConflictException. Tags are kept, not
listed. The sum of the quotas against the cluster's instances is not checked (the model documents no
such limit).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pulumi_hyperpod.sim.aws import pagination, validation
from pulumi_hyperpod.sim.aws.clock import to_seconds
from pulumi_hyperpod.sim.aws.errors import ConflictException, ResourceNotFound, ValidationException
from pulumi_hyperpod.sim.aws.model import Cluster
from pulumi_hyperpod.sim.aws.world import World

CREATING, CREATED, UPDATING, UPDATED, DELETING = "Creating", "Created", "Updating", "Updated", "Deleting"
_SETTLED = {CREATING: CREATED, UPDATING: UPDATED}
_ALNUM = string.ascii_lowercase + string.digits


@dataclass(frozen=True)
class Kind:
    """One of the two resources: its operations' member names and where a cluster keeps them."""

    noun: str  # "ComputeQuota" | "ClusterSchedulerConfig"
    arn_type: str  # the ARN's resource type
    attribute: str  # the Cluster field holding them
    body: tuple[str, ...]  # the request members the resource keeps (Name, ClusterArn and Tags aside)
    updatable: tuple[str, ...]  # the members Update* takes
    one_per_cluster: bool

    @property
    def id_member(self) -> str:
        return f"{self.noun}Id"

    @property
    def arn_member(self) -> str:
        return f"{self.noun}Arn"

    @property
    def version_member(self) -> str:
        return f"{self.noun}Version"


QUOTA = Kind(
    "ComputeQuota",
    "compute-quota",
    "compute_quotas",
    ("Description", "ComputeQuotaConfig", "ComputeQuotaTarget", "ActivationState"),
    ("ComputeQuotaConfig", "ComputeQuotaTarget", "ActivationState", "Description"),
    one_per_cluster=False,
)
SCHEDULER = Kind(
    "ClusterSchedulerConfig",
    "cluster-scheduler-config",
    "scheduler_configs",
    ("SchedulerConfig", "Description"),
    ("SchedulerConfig", "Description"),
    one_per_cluster=True,
)
DEFAULTS = {"ComputeQuota": {"ActivationState": "Enabled"}, "ClusterSchedulerConfig": {}}


def status(world: World, record: dict) -> str | None:
    """Its status now; None once a deletion finished (it is gone)."""
    if record["due"] is None or world.now < record["due"]:
        return record["phase"]
    return None if record["phase"] == DELETING else _SETTLED.get(record["phase"], record["phase"])


def _records(cluster: Cluster, kind: Kind) -> list[dict]:
    return getattr(cluster, kind.attribute)


def _present(world: World, cluster: Cluster, kind: Kind) -> list[dict]:
    return [record for record in _records(cluster, kind) if status(world, record) is not None]


def _purge(world: World, cluster: Cluster, kind: Kind) -> None:
    """Forget the resources whose deletion finished (a write keeps the stored list short)."""
    kept = _present(world, cluster, kind)
    if len(kept) != len(_records(cluster, kind)):
        setattr(cluster, kind.attribute, kept)
        world.touch(cluster)


def _find(world: World, region: str, kind: Kind, rid: str) -> tuple[Cluster, dict]:
    for cluster in world.clusters_in(region):
        for record in _present(world, cluster, kind):
            if record["id"] == rid:
                return cluster, record
    raise ResourceNotFound(f"{kind.noun} {rid} not found.")


def _begin(world: World, record: dict, phase: str) -> None:
    record.update(phase=phase, due=world.now + world.scenario.timing.governance_seconds, modified=world.now)


def _settled(world: World, kind: Kind, record: dict, doing: str) -> None:
    now = status(world, record)
    if now in (CREATING, UPDATING, DELETING):
        raise ConflictException(f"{kind.noun} {record['name']} is {now}; it cannot be {doing} until that finishes.")


def _create(kind: Kind) -> Callable[[World, str, dict], dict]:
    def create(world: World, region: str, params: dict) -> dict:
        validation.check_model(f"Create{kind.noun}", params)
        cluster = world.find_cluster(region, params["ClusterArn"])
        if cluster.orchestrator != "Eks":
            raise ValidationException.field(
                "ClusterArn",
                f"cluster {cluster.name} is orchestrated by {cluster.orchestrator}; task governance is for EKS-orchestrated clusters",
            )
        if cluster.status == "Deleting":
            raise ConflictException(f"Cluster {cluster.name} is being deleted.")
        _purge(world, cluster, kind)
        present = _records(cluster, kind)
        if any(record["name"] == params["Name"] for record in present):
            raise ConflictException(f"Cluster {cluster.name} already has a {kind.noun} named {params['Name']}.")
        if kind.one_per_cluster and present:
            raise ConflictException(f"Cluster {cluster.name} already has a {kind.noun} ({present[0]['name']}); a cluster has one.")
        rid = "".join(world.rng.choice(_ALNUM) for _ in range(12))
        arn = f"arn:aws:sagemaker:{region}:{world.account}:{kind.arn_type}/{rid}"
        body = {**DEFAULTS[kind.noun], **{name: params[name] for name in kind.body if name in params}}
        record: dict[str, Any] = {
            "id": rid,
            "arn": arn,
            "name": params["Name"],
            "version": 1,
            "body": body,
            "tags": list(params.get("Tags") or []),
            "created": world.now,
        }
        _begin(world, record, CREATING)
        present.append(record)
        world.touch(cluster)
        return {kind.arn_member: arn, kind.id_member: rid}

    return create


def _describe(kind: Kind) -> Callable[[World, str, dict], dict]:
    def describe(world: World, region: str, params: dict) -> dict:
        validation.check_model(f"Describe{kind.noun}", params)
        cluster, record = _find(world, region, kind, params[kind.id_member])
        asked = params.get(kind.version_member)
        if asked is not None and asked != record["version"]:
            raise ResourceNotFound(f"{kind.noun} {record['id']} has no version {asked}; its version is {record['version']}.")
        answer = {
            kind.arn_member: record["arn"],
            kind.id_member: record["id"],
            "Name": record["name"],
            kind.version_member: record["version"],
            "Status": status(world, record),
            "ClusterArn": cluster.arn,
            **record["body"],
            "CreationTime": record["created"],
            "CreatedBy": {},
            "LastModifiedTime": record["modified"],
            "LastModifiedBy": {},
        }
        if kind is QUOTA:  # DescribeComputeQuota's required ComputeQuotaTarget is always there (the create requires it)
            answer.setdefault("ComputeQuotaTarget", {})
        return answer

    return describe


def _update(kind: Kind) -> Callable[[World, str, dict], dict]:
    def update(world: World, region: str, params: dict) -> dict:
        validation.check_model(f"Update{kind.noun}", params)
        cluster, record = _find(world, region, kind, params[kind.id_member])
        _settled(world, kind, record, "updated")
        if params["TargetVersion"] != record["version"]:
            raise ConflictException(
                f"{kind.noun} {record['name']} is at version {record['version']}, not {params['TargetVersion']}: describe it again and retry."
            )
        record["body"].update({name: params[name] for name in kind.updatable if name in params})
        record["version"] += 1
        _begin(world, record, UPDATING)
        world.touch(cluster)
        return {kind.arn_member: record["arn"], kind.version_member: record["version"]}

    return update


def _delete(kind: Kind) -> Callable[[World, str, dict], dict]:
    def delete(world: World, region: str, params: dict) -> dict:
        validation.check_model(f"Delete{kind.noun}", params)
        cluster, record = _find(world, region, kind, params[kind.id_member])
        _settled(world, kind, record, "deleted")
        _begin(world, record, DELETING)
        world.touch(cluster)
        return {}

    return delete


def _list(kind: Kind, result_key: str) -> Callable[[World, str, dict], dict]:
    sort_keys: dict[str, Callable[[dict, str, Cluster], Any]] = {
        "Name": lambda record, _status, _cluster: record["name"],
        "CreationTime": lambda record, _status, _cluster: record["created"],
        "Status": lambda _record, now, _cluster: now,
        "ClusterArn": lambda _record, _status, cluster: cluster.arn,
    }

    def listing(world: World, region: str, params: dict) -> dict:
        validation.check_model(f"List{kind.noun}s", params)
        after = to_seconds(params["CreatedAfter"]) if params.get("CreatedAfter") is not None else None
        before = to_seconds(params["CreatedBefore"]) if params.get("CreatedBefore") is not None else None
        by = sort_keys[params.get("SortBy") or "CreationTime"]
        items, keys = [], []
        for cluster in world.clusters_in(region):
            if params.get("ClusterArn") not in (None, cluster.arn):
                continue
            for record in _present(world, cluster, kind):
                now = status(world, record)
                if (after is not None and record["created"] < after) or (before is not None and record["created"] > before):
                    continue
                if params.get("NameContains") and params["NameContains"] not in record["name"]:
                    continue
                if params.get("Status") not in (None, now):
                    continue
                summary = {
                    kind.arn_member: record["arn"],
                    kind.id_member: record["id"],
                    "Name": record["name"],
                    kind.version_member: record["version"],
                    "Status": now,
                    "ClusterArn": cluster.arn,
                    "CreationTime": record["created"],
                    "LastModifiedTime": record["modified"],
                }
                if kind is QUOTA:
                    summary.update(
                        {name: record["body"][name] for name in ("ComputeQuotaConfig", "ActivationState") if name in record["body"]}
                    )
                    summary["ComputeQuotaTarget"] = record["body"].get("ComputeQuotaTarget", {})
                items.append(summary)
                keys.append((by(record, now or "", cluster), record["created"], record["id"]))
        ordered = sorted(zip(keys, items, strict=True), key=lambda pair: pair[0])
        if params.get("SortOrder") is None:  # the model: "By default, listed in Descending order"
            params = {**params, "SortOrder": "Descending"}
        return pagination.response(result_key, [item for _key, item in ordered], [key for key, _item in ordered], params)

    return listing


OPERATIONS: dict[str, Callable[[World, str, dict], dict]] = {
    **{
        f"{verb}{kind.noun}": make(kind)
        for kind in (QUOTA, SCHEDULER)
        for verb, make in (("Create", _create), ("Describe", _describe), ("Update", _update), ("Delete", _delete))
    },
    "ListComputeQuotas": _list(QUOTA, "ComputeQuotaSummaries"),
    "ListClusterSchedulerConfigs": _list(SCHEDULER, "ClusterSchedulerConfigSummaries"),
}
