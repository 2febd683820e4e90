"""The desired GCP training cluster: the REST body of `modelDevelopmentClusters.create`.

Field names are the API's (snake_case here; lowerCamel is accepted on input, see keys.py). The
documented rules are checked before any call and every error names the field path:
cluster id pattern (no hyphens with a slurm_spec), min_node_count == max_node_count, A4X pools in
18-node blocks, provisioning model vs reservation affinity, the login pool, the Slurm partitions'
pool references (the shared Slurm spec, see slurm_bridge.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..servicemodel import Violation
from ..spec.documents import read_document
from ..spec.errors import InputError
from . import keys, names, slurm_bridge

ProvisioningModel = Literal["ON_DEMAND", "RESERVATION", "SPOT", "FLEX_START"]
A4X_BLOCK = 18  # A4X capacity comes in fixed 18-node NVLink domains (training-clusters compute-resources page)


class GcpSpecError(InputError):
    """Bad input in a GCP cluster spec: every violation as `path: rule`, with the file it came from —
    the same error family (and the same one-line-per-problem output) as a HyperPod spec's."""

    kind = "GCP cluster spec"

    def __init__(self, violations: list, source: str | None = None) -> None:
        super().__init__([v if isinstance(v, Violation) else Violation(*v) for v in violations], source=source)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=False)


class ReservationAffinity(_Model):
    reservation_affinity_type: Literal["NO_RESERVATION", "ANY_RESERVATION", "SPECIFIC_RESERVATION"]
    key: str | None = None
    values: tuple[str, ...] = ()


class MachineSpec(_Model):
    machine_type: str = Field(min_length=1)
    reservation_affinity: ReservationAffinity | None = None


class ScalingSpec(_Model):
    min_node_count: int = Field(ge=0)
    max_node_count: int = Field(ge=0)


class BootDisk(_Model):
    boot_disk_size_gb: int | None = Field(default=None, ge=10)
    boot_disk_type: Literal["pd-ssd", "pd-standard", "hyperdisk-balanced"] | None = None


class ConfidentialInstanceConfig(_Model):
    confidential_instance_type: Literal["SEV", "SEV_SNP", "TDX"]


class NodePool(_Model):
    id: str = Field(min_length=1, max_length=63)
    machine_spec: MachineSpec
    scaling_spec: ScalingSpec
    zone: str | None = None
    enable_public_ips: bool | None = None
    boot_disk: BootDisk | None = None
    provisioning_model: ProvisioningModel | None = None
    node_image: str | None = None
    startup_script: str | None = None
    filestores: tuple[str, ...] | None = None
    lustres: tuple[str, ...] | None = None
    labels: dict[str, str] | None = None
    flex_start_max_duration: str | None = None
    confidential_instance_config: ConfidentialInstanceConfig | None = None

    @property
    def count(self) -> int:
        return self.scaling_spec.max_node_count


class Network(_Model):
    network: str = Field(min_length=1)
    subnetwork: str | None = None


class OrchestratorSpec(_Model):
    slurm_spec: dict[str, Any]


class RuntimeSpec(_Model):
    service_account: str | None = None


class ClusterSpec(_Model):
    """One training cluster. `name` is the full resource name (or a bare id plus --project/--location)."""

    name: str = Field(min_length=1)
    display_name: str | None = Field(default=None, max_length=128)
    network: Network | None = None
    node_pools: tuple[NodePool, ...] = Field(min_length=1)
    orchestrator_spec: OrchestratorSpec
    labels: dict[str, str] | None = None
    lustre_export_config: dict[str, Any] | None = None
    runtime_spec: RuntimeSpec | None = None

    # ---- derived ------------------------------------------------------------------------------
    @property
    def slurm(self) -> dict[str, Any]:
        return self.orchestrator_spec.slurm_spec

    def pool(self, pool_id: str) -> NodePool | None:
        return next((p for p in self.node_pools if p.id == pool_id), None)

    def resource_name(self) -> names.ClusterName:
        return names.parse_name(self.name)

    def body(self) -> dict[str, Any]:
        """The request body (snake_case, unset fields left out; `name` is in the URL instead)."""
        return self.model_dump(mode="json", exclude_none=True, exclude={"name"})

    # ---- loading ------------------------------------------------------------------------------
    @classmethod
    def from_document(cls, data: Any, source: str | None = None, project: str | None = None,
                      location: str | None = None) -> ClusterSpec:
        if not isinstance(data, dict):
            raise GcpSpecError([("", "a cluster spec is a JSON object")], source)
        try:
            snake = keys.to_snake(data)
        except keys.SpellingError as error:
            raise GcpSpecError([(error.path, error.rule)], source) from None
        if "name" in snake and isinstance(snake["name"], str):
            try:
                snake["name"] = names.parse_name(snake["name"], project, location).full
            except ValueError as error:
                raise GcpSpecError([("name", str(error).removeprefix("name: "))], source) from None
        orchestrator = snake.get("orchestrator_spec")
        if isinstance(orchestrator, dict) and "slurm_spec" in orchestrator:
            snake["orchestrator_spec"] = {**orchestrator, "slurm_spec": slurm_bridge.normalized(orchestrator["slurm_spec"])}
        try:
            spec = cls.model_validate(snake)
        except ValidationError as error:
            raise GcpSpecError([(_loc(e["loc"]), _message(e)) for e in error.errors()], source) from None
        problems = rule_violations(spec)
        if problems:
            raise GcpSpecError(problems, source)
        return spec

    @classmethod
    def from_file(cls, path: str | Path, project: str | None = None, location: str | None = None) -> ClusterSpec:
        path = Path(path)
        return cls.from_document(read_document(path, GcpSpecError), str(path), project, location)


def _loc(loc: tuple) -> str:
    path = ""
    for part in loc:
        path = f"{path}[{part}]" if isinstance(part, int) else (f"{path}.{part}" if path else str(part))
    return path


def _message(error: dict) -> str:
    if error["type"] == "extra_forbidden":
        return "unknown field (see the ModelDevelopmentCluster REST reference)"
    if error["type"] == "missing":
        return "required"
    return error["msg"]


# ---- the documented rules beyond types ---------------------------------------------------------
def rule_violations(spec: ClusterSpec) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    name = spec.resource_name()
    problem = names.id_problem(name.cluster_id, slurm=True) or names.location_problem(name)
    if problem:
        found.append(("name", problem))
    seen: set[str] = set()
    for index, pool in enumerate(spec.node_pools):
        found += [(f"node_pools[{index}].{path}", rule) for path, rule in _pool_violations(pool)]
        if pool.id in seen:
            found.append((f"node_pools[{index}].id", f"node pool id {pool.id!r} is used twice"))
        seen.add(pool.id)
    found += [(f"orchestrator_spec.slurm_spec{'.' + path if path else ''}", rule)
              for path, rule in slurm_bridge.violations(spec.slurm, seen)]
    login = spec.slurm.get("login_node_pool_id")
    login_pool = spec.pool(login) if isinstance(login, str) else None
    if login_pool is not None and login_pool.count < 1:
        index = spec.node_pools.index(login_pool)
        found.append((f"node_pools[{index}].scaling_spec.max_node_count", "the login node pool needs at least one node"))
    return found


def _pool_violations(pool: NodePool) -> list[tuple[str, str]]:
    found = []
    scaling = pool.scaling_spec
    if scaling.min_node_count != scaling.max_node_count:
        found.append(("scaling_spec", (f"min_node_count ({scaling.min_node_count}) must equal max_node_count "
                                       f"({scaling.max_node_count}): training-cluster node pools have a fixed size")))
    if pool.machine_spec.machine_type.startswith("a4x-") and scaling.max_node_count % A4X_BLOCK:
        found.append(("scaling_spec.max_node_count", (f"an A4X pool's node count must be a multiple of {A4X_BLOCK} "
                                                      f"(NVLink domains), got {scaling.max_node_count}")))
    affinity = pool.machine_spec.reservation_affinity
    model = pool.provisioning_model
    if model == "RESERVATION" and affinity is None:
        found.append(("machine_spec.reservation_affinity", "required when provisioning_model is RESERVATION"))
    if model in ("ON_DEMAND", "SPOT", "FLEX_START") and affinity is not None:
        found.append(("machine_spec.reservation_affinity", f"must not be set when provisioning_model is {model}"))
    if model is None and affinity is None and _is_gpu(pool.machine_spec.machine_type):
        found.append(("provisioning_model", ("a GPU node pool needs provisioning_model (or a reservation_affinity, "
                                             "which means RESERVATION)")))
    if affinity is not None and affinity.reservation_affinity_type == "SPECIFIC_RESERVATION" and not affinity.values:
        found.append(("machine_spec.reservation_affinity.values", "SPECIFIC_RESERVATION names the reservation in values"))
    if pool.flex_start_max_duration is not None and model != "FLEX_START":
        found.append(("flex_start_max_duration", "only applies when provisioning_model is FLEX_START"))
    return found


def _is_gpu(machine_type: str) -> bool:
    return machine_type.split("-")[0] in {"a2", "a3", "a4", "a4x", "g2", "g4"}
