"""`orchestrator_spec.slurm_spec` on the wire, and the shared Slurm spec's rules over it.

The GCP body carries the Slurm layer in the API's own form (partitions, default_partition_id,
login_node_pool_id, home_directory_storage, config, prolog/epilog scripts, node_sets). This module
checks that form's shape (the wire model below) and runs the cloud-neutral Slurm rules — the
shared `pulumi_hyperpod.slurm.SlurmSpec` and its pool-reference check; it is the only place this
cloud touches the shared Slurm model.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pulumi_hyperpod.slurm import SlurmSpec, SlurmSpecError, reference_violations
from pulumi_hyperpod.slurm.conf_sections import section_config_violations

from pulumi_hyperpod.slurm.spec import PartitionNames

# Update-mask paths the API accepts under orchestrator_spec.slurm_spec (ModelDevelopmentCluster.yaml,
# update_mask_fields); home_directory_storage is immutable.
MUTABLE_FIELDS = (
    "accounting",
    "config",
    "default_partition_id",
    "epilog_bash_scripts",
    "login_node_pool_id",
    "node_sets",
    "partitions",
    "prolog_bash_scripts",
    "scheduling",
)
IMMUTABLE_FIELDS = ("home_directory_storage",)

# The rule this cloud passes the shared Slurm spec for a partition's id. The API reference gives
# `partitions[].id` no pattern or length of its own; the id becomes slurm.conf's PartitionName (the
# service renders it), so it is held to a word that line carries unquoted: letters and digits, dashes
# between (the words and the length this cloud's specs were held to until each cloud passed its own).
PARTITION_NAMES = PartitionNames(
    pattern=r"[a-zA-Z0-9](-*[a-zA-Z0-9])*",
    maximum=1024,
    words="letters and digits, single or repeated '-' between them",
    source="the Slurm partition id rule",
)


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Partition(_Wire):
    id: str = Field(min_length=1)
    node_pool_ids: tuple[str, ...] = Field(min_length=1)
    config: dict[str, str] | None = None


class NodeSet(_Wire):
    node_pool_id: str = Field(min_length=1)
    config: dict[str, str] | None = None


class WireSlurmSpec(_Wire):
    login_node_pool_id: str = Field(min_length=1)
    home_directory_storage: str = Field(pattern=r"^projects/[^/]+/locations/[^/]+/instances/[^/]+$")
    partitions: tuple[Partition, ...] = ()
    default_partition_id: str | None = None
    config: dict[str, str] | None = None
    prolog_bash_scripts: tuple[str, ...] | None = None
    epilog_bash_scripts: tuple[str, ...] | None = None
    node_sets: tuple[NodeSet, ...] | None = None
    accounting: dict[str, Any] | None = None
    scheduling: dict[str, Any] | None = None


def normalized(slurm: Any) -> Any:
    """Whole numbers in the slurm.conf maps as strings (YAML writes `PriorityWeightAge: 1000`; the
    API's maps are string → string, and the shared SlurmSpec accepts them the same way)."""
    if not isinstance(slurm, dict):
        return slurm
    result = dict(slurm)
    result["config"] = _strings(slurm.get("config"))
    for name in ("partitions", "node_sets"):
        if isinstance(slurm.get(name), list):
            result[name] = [
                {**item, "config": _strings(item.get("config"))} if isinstance(item, dict) and "config" in item else item
                for item in slurm[name]
            ]
    if slurm.get("config") is None and "config" not in slurm:
        del result["config"]
    return result


def _strings(config: Any) -> Any:
    if not isinstance(config, dict):
        return config
    return {k: str(v) if isinstance(v, int) and not isinstance(v, bool) else v for k, v in config.items()}


SHARED_FIELDS = (
    "partitions",
    "default_partition_id",
    "login_node_pool_id",
    "home_directory_storage",
    "config",
    "prolog_bash_scripts",
    "epilog_bash_scripts",
)


def violations(slurm: dict[str, Any], pool_ids: set[str]) -> list[tuple[str, str]]:
    """(path under slurm_spec, rule) for every problem; empty when the Slurm layer is sound.

    The shared SlurmSpec checks what is common to both clouds (partitions, default partition,
    login pool, /home, slurm.conf keys and values, scripts) and its reference check the pool
    names; the wire model here adds what only this API has (node_sets, a partition's own config,
    no controller pool: the service runs the controller)."""
    found = _shared_violations(slurm, pool_ids)
    reported = [path for path, _ in found]
    try:
        wire = WireSlurmSpec.model_validate(slurm)
    except ValidationError as error:
        for e in error.errors():
            path = ".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in e["loc"]).replace(".[", "[")
            if not any(path == r or path.startswith((r + ".", r + "[")) for r in reported):
                found.append(
                    (path, "unknown field" if e["type"] == "extra_forbidden" else ("required" if e["type"] == "missing" else e["msg"]))
                )
        return found
    return found + _gcp_only_violations(wire, pool_ids)


def _shared_violations(slurm: dict[str, Any], pool_ids: set[str]) -> list[tuple[str, str]]:
    shared = {k: v for k, v in slurm.items() if k in SHARED_FIELDS}
    if isinstance(shared.get("partitions"), list):  # a partition's own config is this API's, not the shared model's
        shared["partitions"] = [{k: v for k, v in p.items() if k != "config"} if isinstance(p, dict) else p for p in shared["partitions"]]
    try:
        spec = SlurmSpec.from_dict(shared, partition_names=PARTITION_NAMES)
    except SlurmSpecError as error:
        return [(v.path, v.rule) for v in error.violations]
    return [(v.path, v.rule) for v in reference_violations(spec, sorted(pool_ids), kind="node pool")]


def _gcp_only_violations(wire: WireSlurmSpec, pool_ids: set[str]) -> list[tuple[str, str]]:
    """A partition's and a node set's own config are checked as strictly as the top-level one
    (slurm/conf_sections.py): they become parameters of slurm.conf lines too."""
    found = []
    for i, partition in enumerate(wire.partitions):
        found += [(v.path, v.rule) for v in section_config_violations(partition.config or {}, f"partitions[{i}].config", "partition")]
    for i, node_set in enumerate(wire.node_sets or ()):
        if node_set.node_pool_id not in pool_ids:
            found.append((f"node_sets[{i}].node_pool_id", f"{node_set.node_pool_id!r} is not a node pool of the cluster"))
        found += [(v.path, v.rule) for v in section_config_violations(node_set.config or {}, f"node_sets[{i}].config", "node")]
    return found
