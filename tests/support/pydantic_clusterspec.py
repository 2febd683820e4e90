"""The pydantic ClusterSpec models as they were before `aws/spec/models.py` became stdlib
dataclasses (issue 30), kept unchanged as the oracle the dataclasses are compared with
(tests/unit/aws/spec/test_models.py): the same request, attributes, views and errors. Test-only:
nothing under pulumi_hyperpod imports pydantic for a cluster spec any more.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.core.documents import read_document
from pulumi_hyperpod.core.errors import SpecError
from pulumi_hyperpod.aws.spec.request import checked_request
from pulumi_hyperpod.aws.spec.rules import CONTINUOUS, orchestrator_kind

# extra="allow": the service model has already rejected unknown keys, and members a newer botocore
# adds (AutoPatchConfig, ImageReleaseVersion…) pass through to the request unchanged.
_CONFIG = ConfigDict(populate_by_name=True, frozen=True, extra="allow")

# The members of a group that describe how its nodes are built. A change here leaves existing
# nodes as they were built (seed 004, "Lifecycleの冪等性").
BUILD_FIELDS = ("LifeCycleConfig", "ExecutionRole", "ThreadsPerCore", "InstanceStorageConfigs", "ImageId")


class _Model(BaseModel):
    model_config = _CONFIG

    def to_api(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class LifeCycleConfig(_Model):
    source_s3_uri: str | None = Field(None, alias="SourceS3Uri")
    on_create: str | None = Field(None, alias="OnCreate")
    on_init_complete: str | None = Field(None, alias="OnInitComplete")


class SlurmConfig(_Model):
    node_type: Literal["Controller", "Login", "Compute"] = Field(alias="NodeType")
    partition_names: tuple[str, ...] | None = Field(None, alias="PartitionNames")


class InstanceRequirements(_Model):
    instance_types: tuple[str, ...] = Field(alias="InstanceTypes")


class VpcConfig(_Model):
    security_group_ids: tuple[str, ...] = Field(alias="SecurityGroupIds")
    subnets: tuple[str, ...] = Field(alias="Subnets")


class EksOrchestrator(_Model):
    cluster_arn: str = Field(alias="ClusterArn")


class SlurmOrchestrator(_Model):
    slurm_config_strategy: Literal["Overwrite", "Managed", "Merge"] | None = Field(None, alias="SlurmConfigStrategy")


class Orchestrator(_Model):
    eks: EksOrchestrator | None = Field(None, alias="Eks")
    slurm: SlurmOrchestrator | None = Field(None, alias="Slurm")


class Tag(_Model):
    key: str = Field(alias="Key")
    value: str = Field(alias="Value")


class AutoScaling(_Model):
    mode: Literal["Enable", "Disable"] = Field(alias="Mode")
    auto_scaler_type: str | None = Field(None, alias="AutoScalerType")


class InstanceGroupSpec(_Model):
    instance_group_name: str = Field(alias="InstanceGroupName")
    instance_count: int = Field(alias="InstanceCount")
    execution_role: str = Field(alias="ExecutionRole")
    min_instance_count: int | None = Field(None, alias="MinInstanceCount")
    instance_type: str | None = Field(None, alias="InstanceType")
    instance_requirements: InstanceRequirements | None = Field(None, alias="InstanceRequirements")
    life_cycle_config: LifeCycleConfig | None = Field(None, alias="LifeCycleConfig")
    threads_per_core: int | None = Field(None, alias="ThreadsPerCore")
    instance_storage_configs: tuple[dict[str, Any], ...] | None = Field(None, alias="InstanceStorageConfigs")
    on_start_deep_health_checks: tuple[str, ...] | None = Field(None, alias="OnStartDeepHealthChecks")
    training_plan_arn: str | None = Field(None, alias="TrainingPlanArn")
    override_vpc_config: VpcConfig | None = Field(None, alias="OverrideVpcConfig")
    scheduled_update_config: dict[str, Any] | None = Field(None, alias="ScheduledUpdateConfig")
    image_id: str | None = Field(None, alias="ImageId")
    kubernetes_config: dict[str, Any] | None = Field(None, alias="KubernetesConfig")
    slurm_config: SlurmConfig | None = Field(None, alias="SlurmConfig")
    capacity_requirements: dict[str, Any] | None = Field(None, alias="CapacityRequirements")
    network_interface: dict[str, Any] | None = Field(None, alias="NetworkInterface")

    @property
    def name(self) -> str:
        return self.instance_group_name

    @property
    def node_type(self) -> str | None:
        return self.slurm_config.node_type if self.slurm_config else None

    @property
    def instance_types(self) -> tuple[str, ...]:
        """Provisioning priority order: one type for a fixed group, the list for a flexible one."""
        if self.instance_requirements is not None:
            return self.instance_requirements.instance_types
        return (self.instance_type,) if self.instance_type else ()

    def effective_min_count(self, continuous: bool) -> int:
        """MinInstanceCount as the service applies it: in Continuous mode controller and login
        groups default to 1 at creation (seed 000, "MinCount 使用时的关键注意事项")."""
        if self.min_instance_count is not None:
            return self.min_instance_count
        if continuous and self.node_type in ("Controller", "Login"):
            return min(1, self.instance_count)
        return 0

    def build_config(self) -> dict[str, Any]:
        """What decides how a node of this group is built (compared with existing nodes)."""
        api = self.to_api()
        return {key: api[key] for key in BUILD_FIELDS if key in api}


class ClusterSpec(_Model):
    """The cluster a platform team wants. Loads the AWS CLI's `--cli-input-json` form unchanged."""

    cluster_name: str = Field(alias="ClusterName")
    instance_groups: tuple[InstanceGroupSpec, ...] = Field((), alias="InstanceGroups")
    restricted_instance_groups: tuple[dict[str, Any], ...] | None = Field(None, alias="RestrictedInstanceGroups")
    vpc_config: VpcConfig | None = Field(None, alias="VpcConfig")
    tags: tuple[Tag, ...] | None = Field(None, alias="Tags")
    orchestrator: Orchestrator | None = Field(None, alias="Orchestrator")
    node_recovery: Literal["Automatic", "None"] | None = Field(None, alias="NodeRecovery")
    tiered_storage_config: dict[str, Any] | None = Field(None, alias="TieredStorageConfig")
    node_provisioning_mode: Literal["Continuous"] | None = Field(None, alias="NodeProvisioningMode")
    cluster_role: str | None = Field(None, alias="ClusterRole")
    auto_scaling: AutoScaling | None = Field(None, alias="AutoScaling")

    @model_validator(mode="before")
    @classmethod
    def _validate_request(cls, data: Any) -> Any:
        if isinstance(data, BaseModel):
            return data
        if not isinstance(data, dict):
            raise SpecError([servicemodel.Violation("", f"a cluster spec is an object; got {type(data).__name__}")])
        request, problems = checked_request(data)
        if problems:
            raise SpecError(problems)
        return request

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> ClusterSpec:
        try:
            return cls.model_validate(data)
        except SpecError as error:
            raise SpecError(error.violations, source=source) from None

    @classmethod
    def from_file(cls, path: str | Path) -> ClusterSpec:
        """JSON or YAML (1.2), in the AWS CLI's `--cli-input-json` form (PascalCase) or snake_case;
        see `documents.read_document` for the limits on the file itself."""
        return cls.from_dict(read_document(path, SpecError), source=str(path))

    # ---- views -------------------------------------------------------------------------------
    @property
    def name(self) -> str:
        return self.cluster_name

    @property
    def continuous(self) -> bool:
        return self.node_provisioning_mode == CONTINUOUS

    @property
    def orchestrator_kind(self) -> str:
        return orchestrator_kind(self.to_api())

    def group(self, name: str) -> InstanceGroupSpec | None:
        return next((g for g in self.instance_groups if g.instance_group_name == name), None)

    def to_api(self, operation: Literal["CreateCluster", "UpdateCluster"] = "CreateCluster") -> dict[str, Any]:
        """The exact request dict for `operation`: members the operation does not take are left out."""
        request = super().to_api()
        members = servicemodel.input_shape(operation).members
        return {key: value for key, value in request.items() if key in members}
