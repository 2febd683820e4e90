"""Slurm roles (group name -> "Controller" | "Login" | "Compute") the planner can rely on.

A group's role is its `SlurmConfig.NodeType` when it has one. Clusters created the way most public
HyperPod examples do it (aws-samples/awsome-distributed-training, LifecycleScripts/base-config) have
none: their roles are in the lifecycle bundle's `provisioning_parameters.json` — `controller_group`,
`login_group`, and every other group a compute group (base-config's lifecycle_script.py treats any
group that is neither as compute; `worker_groups` gives their partitions).

Readers here take that file from a dict, a local bundle directory, or S3 (the group's
`LifeCycleConfig.SourceS3Uri`, through a boto3 `s3` client — the simulator answers it too).
`resolve_roles` combines them; when roles stay unknown it returns None and says why in its notes,
and the planner then refuses to scale any group to 0 (docs/DESIGN.md, principle 6: unknown is not safe).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.core.errors import SpecError
import dataclasses
from pulumi_hyperpod.core.documents import max_bytes, read_document, read_object_document
from botocore.exceptions import BotoCoreError, ClientError

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import S3Client

CONTROLLER, LOGIN, COMPUTE = "Controller", "Login", "Compute"
FILE_NAME = "provisioning_parameters.json"


class LifecycleError(SpecError):
    """A provisioning_parameters.json that cannot be read as roles (bad input: nothing is called)."""

    kind = "lifecycle parameters"  # its size limit (core/documents.py MAX_BYTES)

    def _render(self) -> str:
        where = f" in {self.source}" if self.source else ""
        lines = [
            f"{len(self.violations)} problem{'s' if len(self.violations) != 1 else ''} with the lifecycle provisioning parameters{where}:"
        ]
        return "\n".join(lines + [f"  - {v}" for v in self.violations])


@dataclass(frozen=True)
class ProvisioningRoles:
    """What a provisioning_parameters.json says about roles."""

    controller_group: str
    login_group: str | None
    partitions: dict[str, str]  # worker group -> partition_name

    def role_of(self, group: str) -> str:
        if group == self.controller_group:
            return CONTROLLER
        if group == self.login_group:
            return LOGIN
        return COMPUTE

    def roles_for(self, groups: Iterable[str]) -> dict[str, str]:
        return {name: self.role_of(name) for name in groups}


@dataclass(frozen=True)
class RoleResolution:
    """Roles for every group (None when some stay unknown), where they came from, and notes."""

    roles: dict[str, str] | None
    source: str | None = None  # "SlurmConfig", a directory, or an s3:// URI
    notes: tuple[str, ...] = field(default_factory=tuple)


# ---- readers -------------------------------------------------------------------------------------


def parse_provisioning_parameters(data: Any, source: str | None = None) -> ProvisioningRoles:
    """Roles from the content of a provisioning_parameters.json (base-config format)."""
    problems: list[Violation] = []
    if not isinstance(data, dict):
        raise LifecycleError([Violation("", f"the file holds an object; got {type(data).__name__}")], source=source)
    controller = data.get("controller_group")
    if not isinstance(controller, str) or not controller:
        problems.append(Violation("controller_group", "is required: the name of the instance group that runs slurmctld"))
    login = data.get("login_group")
    if login is not None and (not isinstance(login, str) or not login):
        problems.append(Violation("login_group", f"must be an instance group name; got {login!r}"))
    partitions = _worker_groups(data.get("worker_groups"), problems)
    if isinstance(controller, str) and controller == login:
        problems.append(Violation("login_group", f"{login!r} is also the controller_group"))
    for name in (controller, login):
        if isinstance(name, str) and name in partitions:
            problems.append(
                Violation(
                    "worker_groups",
                    f"{name!r} is the {'controller' if name == controller else 'login'} group and cannot also be a worker group",
                )
            )
    if problems:
        raise LifecycleError(problems, source=source)
    return ProvisioningRoles(controller, login, partitions)


def _worker_groups(value: Any, problems: list[Violation]) -> dict[str, str]:
    if value is None:
        return {}
    if not isinstance(value, list):
        problems.append(
            Violation("worker_groups", f"must be a list of {{instance_group_name, partition_name}}; got {type(value).__name__}")
        )
        return {}
    partitions: dict[str, str] = {}
    for index, item in enumerate(value):
        at = f"worker_groups[{index}]"
        name = item.get("instance_group_name") if isinstance(item, dict) else None
        partition = item.get("partition_name") if isinstance(item, dict) else None
        if not isinstance(name, str) or not name:
            problems.append(Violation(f"{at}.instance_group_name", "is required"))
        elif name in partitions:
            problems.append(Violation(f"{at}.instance_group_name", f"{name!r} is listed more than once"))
        else:
            partitions[name] = partition if isinstance(partition, str) and partition else name
    return partitions


def read_lifecycle_dir(path: str | Path) -> ProvisioningRoles:
    """From a local bundle directory (or the provisioning_parameters.json file itself)."""
    path = Path(path)
    file = path / FILE_NAME if path.is_dir() else path
    if not os.path.lexists(file):
        raise LifecycleError([Violation("", f"cannot read {FILE_NAME}: no such file")], source=str(file))
    # the one reader (core/documents.py): a regular file only (not a FIFO, not /dev/zero), size and
    # depth limits, a key given twice refused
    return parse_provisioning_parameters(read_document(file, LifecycleError), source=str(file))


def split_s3_uri(uri: str) -> tuple[str, str]:
    """("bucket", "key/prefix/") of an s3:// URI (a prefix keeps its trailing slash)."""
    if not uri.startswith("s3://") or len(uri) <= 5:
        raise ValueError(f"{uri!r} is not an s3:// URI")
    bucket, _, key = uri[5:].partition("/")
    if not bucket:
        raise ValueError(f"{uri!r} names no bucket")
    return bucket, key


def provisioning_parameters_key(uri: str) -> tuple[str, str]:
    """(bucket, key) of the provisioning_parameters.json a LifeCycleConfig.SourceS3Uri holds."""
    bucket, prefix = split_s3_uri(uri)
    return bucket, (prefix.rstrip("/") + "/" + FILE_NAME) if prefix.strip("/") else FILE_NAME


def get_object_or_none(s3_client: S3Client, bucket: str, key: str, limit: int | None = None) -> bytes | None:
    """The object's bytes, at most `limit + 1` of them (more than `limit` tells the caller it is too
    large; default: the lifecycle parameters' limit); None when there is no such key (other S3
    errors raise ClientError)."""
    limit = max_bytes(LifecycleError.kind) if limit is None else limit
    try:
        body = s3_client.get_object(Bucket=bucket, Key=key)["Body"]
        try:
            return body.read(limit + 1)
        finally:
            with contextlib.suppress(AttributeError, OSError):  # the rest is never read (the simulator's body has no close)
                body.close()
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") in ("NoSuchKey", "404"):
            return None
        raise


def read_s3(s3_client: S3Client, uri: str) -> ProvisioningRoles | None:
    """From S3 through a boto3 `s3` client; None when the bundle has no provisioning_parameters.json.

    Other S3 errors (access denied, no such bucket) raise botocore's ClientError: the caller says
    roles are unknown and why.
    """
    bucket, key = provisioning_parameters_key(uri)
    body = get_object_or_none(s3_client, bucket, key)
    if body is None:
        return None

    location = f"s3://{bucket}/{key}"
    return parse_provisioning_parameters(read_object_document(body, location, LifecycleError), source=location)


# ---- resolution ----------------------------------------------------------------------------------


def _groups(spec: Any) -> list[tuple[str, str | None, str | None]]:
    """(name, SlurmConfig.NodeType, LifeCycleConfig.SourceS3Uri) of a ClusterSpec's or a
    ClusterState's groups (a state carries DescribeCluster's group in `described`)."""
    result = []
    for group in getattr(spec, "instance_groups", None) or getattr(spec, "groups", None) or ():
        name = getattr(group, "name", None)
        node_type = getattr(group, "node_type", None)
        lifecycle = getattr(group, "life_cycle_config", None)
        uri = getattr(lifecycle, "source_s3_uri", None) if lifecycle is not None else None
        described = getattr(group, "described", None)
        if uri is None and isinstance(described, Mapping):
            uri = (described.get("LifeCycleConfig") or {}).get("SourceS3Uri")
        result.append((name, node_type, uri))
    return result


def resolve(
    *specs: Any, s3_client: S3Client | Callable[[], S3Client] | None = None, lifecycle_dir: str | Path | None = None
) -> RoleResolution:
    """Roles of every group of `specs` (a ClusterSpec and/or the observed ClusterState).

    SlurmConfig.NodeType wins; the rest come from `lifecycle_dir` when given, else from each
    group's LifeCycleConfig.SourceS3Uri through `s3_client` (a boto3 s3 client, or a function
    returning one, called only when a bundle has to be read). Malformed provisioning parameters
    raise LifecycleError; anything merely unavailable leaves roles None with a note saying how
    to state them.
    """
    present = [spec for spec in specs if spec is not None]
    if any(getattr(spec, "orchestrator_kind", "Slurm") == "Eks" for spec in present):
        return RoleResolution({}, None, ("an EKS cluster: Slurm roles do not apply",))
    groups: dict[str, tuple[str | None, str | None]] = {}
    for spec in present:
        for name, node_type, uri in _groups(spec):
            known_type, known_uri = groups.get(name, (None, None))
            groups[name] = (known_type or node_type, known_uri or uri)
    roles = {name: node_type for name, (node_type, _) in groups.items() if node_type}
    missing = [name for name in groups if name not in roles]
    if not missing:
        return RoleResolution(roles, "SlurmConfig" if roles else None)
    if lifecycle_dir is not None:
        found = read_lifecycle_dir(lifecycle_dir)
        return _complete(roles, missing, found, str(lifecycle_dir))
    if s3_client is None:
        return RoleResolution(None, None, (_unknown(missing, "no SlurmConfig and no lifecycle bundle to read"),))
    return _from_s3(s3_client, roles, missing, groups)


def resolve_roles(
    spec: Any,
    *,
    s3_client: S3Client | Callable[[], S3Client] | None = None,
    lifecycle_dir: str | Path | None = None,
    observed: Any = None,
) -> dict[str, str] | None:
    """group name -> role for every group of `spec` (and `observed`), or None when unknown.
    `resolve` gives the same with the source and notes."""
    return resolve(spec, observed, s3_client=s3_client, lifecycle_dir=lifecycle_dir).roles


def _from_s3(
    s3_client: S3Client | Callable[[], S3Client] | None, roles: dict[str, str], missing: list[str], groups: dict
) -> RoleResolution:
    uris = list(dict.fromkeys(groups[name][1] for name in missing if groups[name][1]))
    if not uris:
        return RoleResolution(None, None, (_unknown(missing, "their LifeCycleConfig has no SourceS3Uri"),))
    if callable(s3_client):  # a factory: the client (and S3's service model) only when a bundle is read
        s3_client = s3_client()
    notes: list[str] = []
    for uri in uris:
        try:
            found = read_s3(s3_client, uri)
        except (ClientError, BotoCoreError, ValueError) as error:
            notes.append(f"could not read {FILE_NAME} under {uri}: {_describe(error)}")
            continue
        if found is None:
            notes.append(f"no {FILE_NAME} under {uri}")
            continue
        resolution = _complete(roles, missing, found, uri)
        return RoleResolution(resolution.roles, resolution.source, tuple(notes) + resolution.notes)
    return RoleResolution(None, None, (*notes, _unknown(missing, "their lifecycle bundle could not tell")))


def _complete(roles: dict[str, str], missing: list[str], found: ProvisioningRoles, source: str) -> RoleResolution:
    notes = []
    names = set(missing) | set(roles)
    for key, group in (("controller_group", found.controller_group), ("login_group", found.login_group)):
        if group is not None and group not in names:
            notes.append(f"{FILE_NAME} ({source}) names {key} {group!r}, which is not an instance group")
    for name in missing:
        if name not in found.partitions and found.role_of(name) == COMPUTE:
            notes.append(f"{name}: not in {FILE_NAME}'s worker_groups; a compute group (base-config treats it so)")
    return RoleResolution({**roles, **found.roles_for(missing)}, source, tuple(notes))


def _unknown(groups: list[str], why: str) -> str:
    return (
        f"Slurm roles of {', '.join(groups)} are unknown ({why}): scaling a group to 0 is refused. "
        "State them with SlurmConfig.NodeType in the spec, or pass the lifecycle bundle (--lifecycle DIR)"
    )


def _describe(error: Exception) -> str:
    response = getattr(error, "response", None)
    if isinstance(response, dict) and response.get("Error"):
        detail = response["Error"]
        return f"{detail.get('Code')}: {detail.get('Message') or ''}".strip()
    return str(error)


def apply_roles(state: Any, roles: Mapping[str, str] | None) -> Any:
    """The observed ClusterState with each group's node_type filled in from `roles` where
    DescribeCluster gave none (legacy clusters), so the planner's controller and login guards
    apply to them exactly as to SlurmConfig clusters. A group's own SlurmConfig always wins."""
    if state is None or not roles:
        return state
    groups = tuple(dataclasses.replace(g, node_type=roles[g.name]) if g.node_type is None and g.name in roles else g for g in state.groups)
    return dataclasses.replace(state, groups=groups)
