"""A Slurm spec rendered for HyperPod: the groups' SlurmConfig and a lifecycle bundle.

Roles reach HyperPod one of two ways. Clusters that use `SlurmConfig` (every Continuous-mode
cluster, seed 000; any cluster whose spec already gives a group SlurmConfig) get NodeType and
PartitionNames written into each group. The rest ("legacy" clusters) get their roles from the
bundle's `provisioning_parameters.json`, in the format of aws-samples/awsome-distributed-training
LifecycleScripts/base-config (`controller_group`, `login_group`, `worker_groups[{instance_group_name,
partition_name}]`, `fsx_dns_name`/`fsx_mountname` or `fsx_openzfs_dns_name`). Both get the same
bundle, except that an API-driven (SlurmConfig) cluster gets no provisioning_parameters.json and its
FSx home goes into every group's InstanceStorageConfigs (AWS "Migrating to API-driven Slurm
configuration"), which HyperPod mounts:

    on_create.sh                 LifeCycleConfig.OnCreate: runs slurm_spec_hook.py on every node
    slurm_spec_hook.py           mounts the home, installs prolog/epilog, configures the controller
    provisioning_parameters.json roles and shared storage (base-config format; legacy clusters only)
    slurm-spec.conf              the `config` lines and the Prolog/Epilog globs (included by slurm.conf)
    slurm-spec.json              the Slurm spec itself, with its default partition and parsed home
    prolog.d/, epilog.d/         the job scripts, named so slurmd runs them in the spec's order
    on_create_base.sh, …         with `base_dir`: the lifecycle scripts it builds on (their own
                                 on_create.sh renamed, run first)

Pure: the same specs give the same bytes, so the bundle's digest can name its S3 prefix.
"""

from __future__ import annotations

import copy
import hashlib
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from pulumi_hyperpod.aws.slurm.hyperpod import (
    COMPUTE,
    CONTROLLER,
    LOGIN,
    GroupRole,
    group_roles,
    hyperpod_violations,
    spec_violations,
)
from pulumi_hyperpod.aws.slurm.hyperpod import no_role_violation as _no_role
from pulumi_hyperpod.slurm.references import reference_violations
from pulumi_hyperpod.slurm.spec import SlurmSpec, SlurmSpecError
from pulumi_hyperpod.aws.slurm.bundle_files import BaseFolderError, read_base, write_bundle
from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.spec import ClusterSpec
from pulumi_hyperpod.aws.spec.keys import to_model_keys
from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.aws.servicemodel import member_shape

SLURM_ETC = "/opt/slurm/etc"
ON_CREATE = "on_create.sh"
HOOK = "slurm_spec_hook.py"
PROVISIONING_PARAMETERS = "provisioning_parameters.json"
INCLUDE = "slurm-spec.conf"
SPEC_FILE = "slurm-spec.json"

BASE_ON_CREATE = "on_create_base.sh"

_ON_CREATE_TEXT = """#!/bin/bash
# Lifecycle entry point written by `hyperpod slurm render` (pulumi-hyperpod): installs the Slurm spec
# on this node. HyperPod runs it as LifeCycleConfig.OnCreate on every node it creates.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p /var/log/provision
if [[ -f on_create_base.sh ]]; then
  # the lifecycle scripts this bundle was built on (their on_create.sh, renamed), first
  bash on_create_base.sh "$@"
fi
python3 -u slurm_spec_hook.py "$@" 2>&1 | tee -a /var/log/provision/slurm-spec.log
exit "${PIPESTATUS[0]}"
"""


@dataclass(frozen=True)
class HyperPodRendering:
    """What a Slurm spec becomes on one HyperPod cluster."""

    mode: str  # "SlurmConfig" | "provisioning_parameters": how HyperPod learns the roles
    roles: dict[str, GroupRole]
    cluster_spec: dict[str, Any]  # the CreateCluster request with SlurmConfig / LifeCycleConfig filled in
    files: dict[str, bytes] = field(repr=False)  # bundle path -> content

    @property
    def digest(self) -> str:
        """sha256 over the bundle's paths and contents: the same bundle, the same digest."""
        h = hashlib.sha256()
        for path in sorted(self.files):
            h.update(path.encode() + b"\0" + hashlib.sha256(self.files[path]).digest())
        return h.hexdigest()

    @property
    def prefix(self) -> str:
        """A content-addressed S3 key prefix for the bundle."""
        return f"slurm-bundles/{self.digest[:16]}/"

    def role_names(self) -> dict[str, str]:
        return {name: role.node_type for name, role in self.roles.items()}

    def write(self, directory: str | Path) -> list[Path]:
        """Write the bundle under `directory` (created); returns the files written.

        A directory already holding other files is refused: uploaded with the bundle, a stale
        script (say a prolog since removed from the spec) would still be installed. A symbolic
        link in it is refused too: the bundle is never written through one (bundle_files.py).
        """
        return write_bundle(directory, self.files)


def uses_slurm_config(cluster: ClusterSpec | dict) -> bool:
    """Continuous clusters must (seed 000); a cluster already giving SlurmConfig does."""
    if isinstance(cluster, dict):
        groups = [g for g in cluster.get("InstanceGroups") or [] if isinstance(g, dict)]
        return cluster.get("NodeProvisioningMode") == "Continuous" or any("SlurmConfig" in g for g in groups)
    return cluster.continuous or any(g.slurm_config is not None for g in cluster.instance_groups)


def load_cluster(data: ClusterSpec | dict, slurm: SlurmSpec, *, slurm_config: bool | None = None, source: str | None = None) -> ClusterSpec:
    """The cluster spec, with SlurmConfig filled in from the Slurm spec on groups that lack it when
    the cluster takes roles from SlurmConfig (a Continuous cluster spec is only valid with them)."""
    if isinstance(data, ClusterSpec):
        data = data.to_api()
    request = to_model_keys(servicemodel.input_shape("CreateCluster"), copy.deepcopy(data))
    groups = request.get("InstanceGroups") if isinstance(request, dict) else None
    groups = [g for g in groups if isinstance(g, dict)] if isinstance(groups, list) else []
    # Names first: a misspelt pool in the Slurm spec is the problem to report, not the
    # SlurmConfig it therefore could not fill in.
    problems = reference_violations(slurm, [g.get("InstanceGroupName") for g in groups], kind="instance group", prefix="slurm")
    problems += spec_violations(slurm)
    if isinstance(request, dict) and (uses_slurm_config(request) if slurm_config is None else slurm_config):
        for index, group in enumerate(groups):
            if "SlurmConfig" in group:
                continue
            config = _declared_role(slurm, group.get("InstanceGroupName"))
            if config is not None:
                group["SlurmConfig"] = config
            elif not problems:
                problems.append(_no_role(index, group.get("InstanceGroupName")))
    if problems:
        raise SlurmSpecError(problems, source=source)
    return ClusterSpec.from_dict(request, source=source)


def _declared_role(slurm: SlurmSpec, name: Any) -> dict[str, Any] | None:
    if name is not None and name == slurm.controller_node_pool_id:
        return {"NodeType": CONTROLLER}
    if name is not None and name == slurm.login_node_pool_id:
        return {"NodeType": LOGIN}
    partitions = slurm.partitions_of(name) if isinstance(name, str) else ()
    return {"NodeType": COMPUTE, "PartitionNames": list(partitions)} if partitions else None


def render_hyperpod(
    cluster: ClusterSpec | dict,
    slurm: SlurmSpec,
    *,
    lifecycle_uri: str | None = None,
    slurm_config: bool | None = None,
    source: str | None = None,
    base_dir: str | Path | None = None,
) -> HyperPodRendering:
    """Check `slurm` against `cluster` (SlurmSpecError naming every problem) and render both parts.

    `cluster` is a ClusterSpec or its request dict (then groups may lack the SlurmConfig the Slurm
    spec implies, see `load_cluster`). `slurm_config` None decides by `uses_slurm_config`;
    `lifecycle_uri` (where the bundle will be) becomes every group's LifeCycleConfig.SourceS3Uri,
    with OnCreate `on_create.sh`. `base_dir`: lifecycle scripts to build on (say aws-samples'
    base-config): copied into the bundle, their on_create.sh renamed on_create_base.sh and run first,
    their provisioning_parameters.json replaced by the one the Slurm spec gives.
    """
    if not _is_cluster_spec(cluster):
        cluster = load_cluster(cluster, slurm, slurm_config=slurm_config, source=source)
    problems = hyperpod_violations(cluster, slurm)
    if problems:
        raise SlurmSpecError(problems, source=source)
    roles = group_roles(cluster, slurm)
    use_config = uses_slurm_config(cluster) if slurm_config is None else slurm_config
    if cluster.continuous and not use_config:
        raise SlurmSpecError(
            [
                _violation(
                    "NodeProvisioningMode",
                    "is Continuous, which takes roles from SlurmConfig only "
                    "(provisioning_parameters.json is not supported); render with SlurmConfig",
                )
            ],
            source=source,
        )
    storage = platform_storage(slurm) if use_config else None
    if use_config and slurm.home_storage is not None and storage is None:
        raise SlurmSpecError(
            [
                _violation(
                    "slurm.home_directory_storage",
                    (
                        "an API-driven cluster (SlurmConfig) mounts FSx through InstanceStorageConfigs, whose DnsName must match "
                        f"{_fsx_dns_pattern()}: give the file system's DNS name"
                    ),
                )
            ],
            source=source,
        )
    return HyperPodRendering(
        mode="SlurmConfig" if use_config else "provisioning_parameters",
        roles=roles,
        cluster_spec=_cluster_request(cluster, roles, use_config, lifecycle_uri, storage),
        files={**(base_files(base_dir, source) if base_dir else {}), **bundle_files(cluster, slurm, roles, api_driven=use_config)},
    )


def _is_cluster_spec(value: Any) -> bool:
    return isinstance(value, ClusterSpec)


def _violation(path: str, rule: str):
    return Violation(path, rule)


# Where an API-driven cluster has HyperPod mount the home file system (InstanceStorageConfigs);
# the hook then only binds Lustre's /fsx/home onto /home, as it does when it mounts Lustre itself.
LUSTRE_MOUNT_PATH, OPENZFS_MOUNT_PATH = "/fsx", "/home"


def platform_storage(slurm: SlurmSpec) -> dict[str, Any] | None:
    """The home file system as an InstanceStorageConfigs entry (API-driven clusters: AWS "Migrating
    to API-driven Slurm configuration" — FSx is mounted from the API payload, not a lifecycle
    script); None when there is no FSx home or its address is not a DnsName the model accepts."""
    import regex  # noqa: PLC0415 - regex: the model's pattern dialect, only where a value is checked against it

    storage = slurm.home_storage
    if storage is None or storage.kind not in ("fsx_lustre", "fsx_openzfs"):
        return None
    if not regex.fullmatch(_fsx_dns_pattern(), storage.address):
        return None
    if storage.kind == "fsx_lustre":
        return {"FsxLustreConfig": {"DnsName": storage.address, "MountName": storage.mount_name, "MountPath": LUSTRE_MOUNT_PATH}}
    return {"FsxOpenZfsConfig": {"DnsName": storage.address, "MountPath": OPENZFS_MOUNT_PATH}}


def _fsx_dns_pattern() -> str:
    return member_shape("ClusterFsxLustreConfig", "DnsName").metadata["pattern"]


def _cluster_request(
    cluster: ClusterSpec, roles: dict[str, GroupRole], use_config: bool, lifecycle_uri: str | None, storage: dict[str, Any] | None = None
) -> dict:
    request = copy.deepcopy(cluster.to_api())
    for group in request.get("InstanceGroups", []):
        role = roles[group["InstanceGroupName"]]
        if use_config:
            config: dict[str, Any] = {"NodeType": role.node_type}
            if role.partition:
                config["PartitionNames"] = [role.partition]
            group["SlurmConfig"] = config
        if storage is not None:
            kind = next(iter(storage))
            kept = [c for c in group.get("InstanceStorageConfigs") or [] if kind not in c]  # one home mount, the spec's
            group["InstanceStorageConfigs"] = [*kept, copy.deepcopy(storage)]
        if lifecycle_uri is not None:
            group["LifeCycleConfig"] = {**group.get("LifeCycleConfig", {}), "SourceS3Uri": lifecycle_uri, "OnCreate": ON_CREATE}
    return request


# ---- the bundle ----------------------------------------------------------------------------------


def base_files(base_dir: str | Path, source: str | None = None) -> dict[str, bytes]:
    """The files of a lifecycle scripts folder to build the bundle on (see `render_hyperpod`)."""
    root = Path(base_dir)
    if not root.is_dir():
        raise SlurmSpecError([Violation("", f"lifecycle scripts folder {root} does not exist")], source=source)
    ours = {HOOK, INCLUDE, SPEC_FILE, BASE_ON_CREATE, "prolog.d", "epilog.d"}
    files: dict[str, bytes] = {}
    clashes = []
    try:
        found = read_base(root)  # links followed only inside the folder
    except BaseFolderError as error:
        raise SlurmSpecError([Violation("", str(error))], source=source) from None
    for relative, content in sorted(found.items()):
        if relative.split("/", 1)[0] in ours:
            clashes.append(relative)
        elif relative == PROVISIONING_PARAMETERS:
            continue  # the Slurm spec's roles replace it
        else:
            files[BASE_ON_CREATE if relative == ON_CREATE else relative] = content
    if clashes:
        raise SlurmSpecError([Violation("", f"{root} has files the Slurm bundle writes itself: {', '.join(clashes)}")], source=source)
    return files


def bundle_files(cluster: ClusterSpec, slurm: SlurmSpec, roles: dict[str, GroupRole], api_driven: bool = False) -> dict[str, bytes]:
    """The bundle. An API-driven cluster (roles in SlurmConfig, FSx in InstanceStorageConfigs) gets
    no provisioning_parameters.json: AWS's migration guide removes it, and a stale one must not
    contradict the API; the hook then takes each group's role from slurm-spec.json."""
    files = {
        ON_CREATE: _ON_CREATE_TEXT.encode(),
        HOOK: resources.files(__package__).joinpath("hook.py").read_bytes(),
        INCLUDE: include_text(slurm).encode(),
        SPEC_FILE: _json(spec_document(slurm, roles, platform_mounts=api_driven and platform_storage(slurm) is not None)),
    }
    if not api_driven:
        files[PROVISIONING_PARAMETERS] = _json(provisioning_parameters(cluster, slurm, roles))
    files.update(_scripts("prolog", slurm.prolog_bash_scripts))
    files.update(_scripts("epilog", slurm.epilog_bash_scripts))
    return files


def provisioning_parameters(cluster: ClusterSpec, slurm: SlurmSpec, roles: dict[str, GroupRole]) -> dict[str, Any]:
    """base-config's provisioning_parameters.json for these roles (group order as in the cluster)."""
    ordered = [roles[g.name] for g in cluster.instance_groups if g.name in roles]
    params: dict[str, Any] = {"version": "1.0.0", "workload_manager": "slurm"}
    params["controller_group"] = next(r.group for r in ordered if r.node_type == CONTROLLER)
    login = [r.group for r in ordered if r.node_type == LOGIN]
    if login:
        params["login_group"] = login[0]
    params["worker_groups"] = [{"instance_group_name": r.group, "partition_name": r.partition} for r in ordered if r.node_type == COMPUTE]
    storage = slurm.home_storage
    if storage is not None and storage.kind == "fsx_lustre":
        params["fsx_dns_name"], params["fsx_mountname"] = storage.address, storage.mount_name
    elif storage is not None and storage.kind == "fsx_openzfs":
        params["fsx_openzfs_dns_name"] = storage.address
    return params


def include_text(slurm: SlurmSpec) -> str:
    """The slurm.conf include: the spec's parameters (sorted, so reordering the spec changes nothing)."""
    lines = [
        "# Written by `hyperpod slurm render` (pulumi-hyperpod) from the Slurm spec; do not edit here.",
        f"# Included from {SLURM_ETC}/slurm.conf on the controller. Default partition: {slurm.default_partition}",
        "# (set as Default=YES on its PartitionName line, which HyperPod manages in merge mode).",
    ]
    lines += [f"{key}={slurm.config[key]}" for key in sorted(slurm.config)]
    if slurm.prolog_bash_scripts:
        lines.append(f"Prolog={SLURM_ETC}/prolog.d/*")
    if slurm.epilog_bash_scripts:
        lines.append(f"Epilog={SLURM_ETC}/epilog.d/*")
    return "\n".join(lines) + "\n"


def spec_document(slurm: SlurmSpec, roles: dict[str, GroupRole] | None = None, platform_mounts: bool = False) -> dict[str, Any]:
    """slurm-spec.json: the spec, its default partition, the home storage (`mounted_by`:
    "InstanceStorageConfigs" when HyperPod mounts it) and each group's role (for the hook, when
    there is no provisioning_parameters.json)."""
    storage = slurm.home_storage
    home = None if storage is None else {"kind": storage.kind, "address": storage.address, "mount_name": storage.mount_name}
    if home is not None and platform_mounts:
        home["mounted_by"] = "InstanceStorageConfigs"
    document: dict[str, Any] = {"spec": slurm.to_dict(), "default_partition": slurm.default_partition, "home_storage": home}
    if roles:
        document["roles"] = {name: role.node_type for name, role in roles.items()}
    return document


def script_names(kind: str, count: int) -> list[str]:
    """slurmd runs a glob's scripts in reverse alphabetical order (slurm.conf(5), Prolog), so the
    first script gets the highest number: list order is run order."""
    return [f"{kind}.d/{99 - index:02d}-{kind}-{index + 1}.sh" for index in range(count)]


def _scripts(kind: str, scripts: tuple[str, ...]) -> dict[str, bytes]:
    if len(scripts) > 99:
        raise SlurmSpecError([_violation(f"{kind}_bash_scripts", f"at most 99 {kind} scripts; got {len(scripts)}")])
    return {name: _executable(text).encode() for name, text in zip(script_names(kind, len(scripts)), scripts, strict=True)}


def _executable(text: str) -> str:
    """slurmd executes the file itself: a script without a #! line gets bash's."""
    text = text if text.endswith("\n") else text + "\n"
    return text if text.startswith("#!") else "#!/bin/bash\n" + text


def _json(data: Any) -> bytes:
    return (json.dumps(data, indent=2, sort_keys=False) + "\n").encode()
