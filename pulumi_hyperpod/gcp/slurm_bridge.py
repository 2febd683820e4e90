"""`orchestrator_spec.slurm_spec` on the wire, and the shared Slurm spec's rules over it.

The GCP body carries the Slurm layer in the API's own form (partitions, default_partition_id,
login_node_pool_id, home_directory_storage, config, prolog/epilog scripts, node_sets). This module
checks that form's shape (the wire model below) and runs the cloud-neutral Slurm rules — the
shared `pulumi_hyperpod.slurm.SlurmSpec` and its pool-reference check — when that package is
present; it is the only place this cloud touches the shared Slurm model.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

# Update-mask paths the API accepts under orchestrator_spec.slurm_spec (ModelDevelopmentCluster.yaml,
# update_mask_fields); home_directory_storage is immutable.
MUTABLE_FIELDS = ("accounting", "config", "default_partition_id", "epilog_bash_scripts", "login_node_pool_id",
                  "node_sets", "partitions", "prolog_bash_scripts", "scheduling")
IMMUTABLE_FIELDS = ("home_directory_storage",)


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


def violations(slurm: dict[str, Any], pool_ids: set[str]) -> list[tuple[str, str]]:
    """(path under slurm_spec, rule) for every problem; empty when the Slurm layer is sound."""
    try:
        wire = WireSlurmSpec.model_validate(slurm)
    except ValidationError as error:
        return [(".".join(str(p) if not isinstance(p, int) else f"[{p}]" for p in e["loc"]).replace(".[", "["),
                 "unknown field" if e["type"] == "extra_forbidden" else ("required" if e["type"] == "missing" else e["msg"]))
                for e in error.errors()]
    return _reference_violations(wire, pool_ids) + _shared_violations(slurm, pool_ids)


def _reference_violations(wire: WireSlurmSpec, pool_ids: set[str]) -> list[tuple[str, str]]:
    found = []
    if wire.login_node_pool_id not in pool_ids:
        found.append(("login_node_pool_id", f"names node pool {wire.login_node_pool_id!r}, which is not in node_pools"))
    partition_ids: set[str] = set()
    for i, partition in enumerate(wire.partitions):
        if partition.id in partition_ids:
            found.append((f"partitions[{i}].id", f"partition id {partition.id!r} is used twice"))
        partition_ids.add(partition.id)
        for j, pool in enumerate(partition.node_pool_ids):
            if pool not in pool_ids:
                found.append((f"partitions[{i}].node_pool_ids[{j}]", f"names node pool {pool!r}, which is not in node_pools"))
            if pool == wire.login_node_pool_id:
                found.append((f"partitions[{i}].node_pool_ids[{j}]", f"{pool!r} is the login node pool; login nodes do not run jobs"))
        if partition.config and any(key.lower() == "default" for key in partition.config):
            found.append((f"partitions[{i}].config", "Default is set with default_partition_id, not in a partition's config"))
    if wire.default_partition_id is not None and wire.default_partition_id not in partition_ids:
        found.append(("default_partition_id", f"names partition {wire.default_partition_id!r}, which is not in partitions"))
    for i, node_set in enumerate(wire.node_sets or ()):
        if node_set.node_pool_id not in pool_ids:
            found.append((f"node_sets[{i}].node_pool_id", f"names node pool {node_set.node_pool_id!r}, which is not in node_pools"))
    return found


def _shared_violations(slurm: dict[str, Any], pool_ids: set[str]) -> list[tuple[str, str]]:
    """The shared Slurm model's own rules, when the slurm package is present (see module doc)."""
    try:
        from ..slurm import spec as shared  # noqa: F401  (built on another branch; optional until merged)
    except ImportError:
        return []
    return list(_run_shared(shared, slurm, pool_ids))


def _run_shared(shared: Any, slurm: dict[str, Any], pool_ids: set[str]):
    model = getattr(shared, "SlurmSpec", None)
    if model is None:
        return
    try:
        parsed = model.model_validate(slurm)
    except ValidationError as error:
        for e in error.errors():
            yield ".".join(str(p) for p in e["loc"]), e["msg"]
        return
    check = getattr(shared, "reference_violations", None) or getattr(parsed, "reference_violations", None)
    if callable(check):
        result = check(parsed, pool_ids) if check is not getattr(parsed, "reference_violations", None) else check(pool_ids)
        for item in result or ():
            yield (item if isinstance(item, tuple) else ("", str(item)))
