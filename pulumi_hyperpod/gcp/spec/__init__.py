"""The desired GCP training cluster: the REST body of `modelDevelopmentClusters.create`.

Field names are the API's (snake_case here; lowerCamel is accepted on input, see keys.py). The
documented rules are checked before any call and every error names the field path:
cluster id pattern (no hyphens with a slurm_spec), min_node_count <= max_node_count, A4X pools in
18-node blocks, provisioning model vs reservation affinity, the login pool, the Slurm partitions'
pool references (the shared Slurm spec, see slurm_bridge.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    ValidationError,
)

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.core.documents import read_document
from pulumi_hyperpod.core.errors import InputError
from pulumi_hyperpod.gcp.spec import keys, limits, names, proto3, rules, slurm_bridge
from pulumi_hyperpod.gcp.spec.limits import MAX_TEXT

ProvisioningModel = Literal["ON_DEMAND", "RESERVATION", "SPOT", "FLEX_START"]
AcceleratorType = Literal[limits.ACCELERATOR_TYPES]  # type: ignore[valid-type]
# strict scalars: 2.0 and true are not counts, "yes" is not a boolean (the service refuses them); the
# string forms proto3 JSON accepts ("2", "true") are read as such first (proto3.py)
NodeCount = Annotated[StrictInt, Field(ge=0, le=limits.MAX_POOL_NODES)]
Text = Annotated[str, Field(max_length=MAX_TEXT)]


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
    key: str | None = Field(default=None, pattern=limits.RESERVATION_KEY.pattern)
    values: tuple[Annotated[str, Field(pattern=limits.RESERVATION.pattern)], ...] = Field(default=(), max_length=100)


class MachineSpec(_Model):
    machine_type: str = Field(min_length=1, max_length=63, pattern=limits.MACHINE_TYPE.pattern)
    accelerator_type: AcceleratorType | None = None
    accelerator_count: Annotated[StrictInt, Field(ge=1, le=limits.MAX_ACCELERATORS)] | None = None
    reservation_affinity: ReservationAffinity | None = None


class ScalingSpec(_Model):
    min_node_count: NodeCount
    max_node_count: NodeCount


class BootDisk(_Model):
    boot_disk_size_gb: Annotated[StrictInt, Field(ge=limits.MIN_BOOT_DISK_GB, le=limits.MAX_BOOT_DISK_GB)] | None = None
    boot_disk_type: Literal["pd-ssd", "pd-standard", "hyperdisk-balanced"] | None = None


class ConfidentialInstanceConfig(_Model):
    confidential_instance_type: Literal["SEV", "SEV_SNP", "TDX"]


class NodePool(_Model):
    id: str = Field(min_length=1, max_length=63, pattern=limits.POOL_ID.pattern)
    machine_spec: MachineSpec
    scaling_spec: ScalingSpec
    zone: str | None = Field(default=None, pattern=limits.ZONE.pattern)
    enable_public_ips: StrictBool | None = None
    boot_disk: BootDisk | None = None
    provisioning_model: ProvisioningModel | None = None
    node_image: str | None = Field(default=None, pattern=limits.IMAGE.pattern)
    startup_script: str | None = Field(default=None, max_length=limits.MAX_STARTUP_SCRIPT)
    filestores: tuple[Annotated[str, Field(pattern=limits.STORAGE_INSTANCE.pattern)], ...] | None = Field(default=None, max_length=10)
    lustres: tuple[Annotated[str, Field(pattern=limits.STORAGE_INSTANCE.pattern)], ...] | None = Field(default=None, max_length=10)
    labels: dict[str, str] | None = None
    flex_start_max_duration: str | None = Field(default=None, pattern=limits.DURATION.pattern)
    confidential_instance_config: ConfidentialInstanceConfig | None = None

    @property
    def count(self) -> int:
        return self.scaling_spec.max_node_count


class Network(_Model):
    network: str = Field(min_length=1, max_length=MAX_TEXT, pattern=limits.NETWORK.pattern)
    subnetwork: str | None = Field(default=None, max_length=MAX_TEXT, pattern=limits.SUBNETWORK.pattern)


class OrchestratorSpec(_Model):
    slurm_spec: dict[str, Any]


class RuntimeSpec(_Model):
    service_account: str | None = Field(default=None, max_length=MAX_TEXT, pattern=limits.SERVICE_ACCOUNT.pattern)


class ClusterSpec(_Model):
    """One training cluster. `name` is the full resource name (or a bare id plus --project/--location)."""

    name: Text = Field(min_length=1)
    display_name: str | None = Field(default=None, max_length=128)
    network: Network | None = None
    node_pools: tuple[NodePool, ...] = Field(min_length=1, max_length=limits.MAX_NODE_POOLS)
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
    def from_document(
        cls, data: Any, source: str | None = None, project: str | None = None, location: str | None = None, cluster_id: str | None = None
    ) -> ClusterSpec:
        if not isinstance(data, dict):
            raise GcpSpecError([("", "a cluster spec is a JSON object")], source)
        try:
            snake = keys.to_snake(data)
        except keys.SpellingError as error:
            raise GcpSpecError([(error.path, error.rule)], source) from None
        problems = rules.document_violations(snake)
        if problems:
            raise GcpSpecError(problems, source)
        snake = proto3.scalars(snake)
        if cluster_id is not None or "name" not in snake or str(snake.get("name")).endswith("/"):
            try:
                snake["name"] = names.with_cluster_id(snake.get("name"), cluster_id)
            except ValueError as error:
                raise GcpSpecError([("name", str(error))], source) from None
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
        problems = rules.rule_violations(spec)
        if problems:
            raise GcpSpecError(problems, source)
        return spec

    @classmethod
    def from_file(
        cls, path: str | Path, project: str | None = None, location: str | None = None, cluster_id: str | None = None
    ) -> ClusterSpec:
        path = Path(path)
        return cls.from_document(read_document(path, GcpSpecError), str(path), project, location, cluster_id)


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
    if error["type"] in ("bool_type", "bool_parsing"):
        return f'must be true or false (or the string "true" / "false", as proto3 JSON allows); got {error.get("input")!r}'
    if error["type"] in ("int_type", "int_parsing", "int_from_float"):
        return f"must be a whole number (or its decimal string, as proto3 JSON allows); got {error.get('input')!r}"
    return error["msg"]
