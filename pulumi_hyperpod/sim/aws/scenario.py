"""The scenario: everything about the simulated world that is not an API call.

Capacity, fault rates, timing and speed are data so that a test (or `$HYPERPOD_FAKE_SCENARIO`)
can describe "12 p5 instances now, 4 more after two hours" without touching code. Every field has
a default, so `{}` is a valid scenario: unlimited capacity, no faults, realistic-ish timing.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, field_validator, model_validator
from pulumi_hyperpod.aws import servicemodel  # botocore's model: read only by a scenario that lists a plan
from importlib import resources
from pulumi_hyperpod.core.errors import InputError


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Timing(_Strict):
    """Virtual seconds each step takes; the defaults make a Slurm create take ~10 virtual minutes."""

    launch_seconds: float = Field(90, ge=0, description="EC2 launch until the lifecycle script starts")
    lifecycle_seconds: float = Field(210, ge=0, description="lifecycle script (OnCreate) run time")
    deep_health_check_seconds: float = Field(
        7200,
        ge=0,
        description="deep health checks on a node (OnStartDeepHealthChecks, StartClusterHealthCheck): AWS documents about 2 hours "
        "for the instance stress test (docs.aws.amazon.com/sagemaker/latest/dg/sagemaker-hyperpod-eks-resiliency-deep-health-checks.html)",
    )
    terminate_seconds: float = Field(60, ge=0, description="ShuttingDown until the node is gone")
    software_update_seconds: float = Field(900, ge=0, description="UpdateClusterSoftware: patching one instance (SystemUpdating)")
    reboot_seconds: float = Field(300, ge=0, description="BatchRebootClusterNodes: restarting until Running again")
    auto_patch_delay_seconds: float = Field(
        86400,
        ge=0,
        description="AutoPatchConfig without a PatchSchedule: a new release is applied this long after it comes out (NextPatchDate)",
    )
    detach_seconds: float = Field(120, ge=0, description="MoveClusterNodes: DetachInProgress until the hand-off")
    extension_create_seconds: float = Field(
        300, ge=0, description="CreateClusterExtension: Creating until Active (an assumption: AWS documents no duration)"
    )
    extension_update_seconds: float = Field(300, ge=0, description="UpdateClusterExtension: Updating until Active (an assumption)")
    extension_delete_seconds: float = Field(120, ge=0, description="DeleteClusterExtension: Deleting until gone (an assumption)")
    governance_seconds: float = Field(
        30,
        ge=0,
        description="a compute quota's or scheduler configuration's Creating, Updating or Deleting (an assumption: AWS documents no duration)",
    )
    retry_interval_seconds: float = Field(300, gt=0, description="Continuous mode: async launch retry")
    min_count_timeout_seconds: float = Field(3 * 3600, gt=0, description="MinCount rollback timeout")
    client_token_ttl_seconds: float = Field(8 * 3600, gt=0, description="BatchAddClusterNodes ClientToken")
    jitter_seconds: float = Field(0, ge=0, description="uniform extra launch/lifecycle time, whole seconds")
    max_launch_attempts: int = Field(3, ge=1, description="all-or-nothing: replacements before failing")


class FaultRates(_Strict):
    """Probabilities per launch; None in an override means "inherit"."""

    launch_failure_rate: float | None = Field(None, ge=0, le=1, description="instance comes up unhealthy")
    lifecycle_failure_rate: float | None = Field(None, ge=0, le=1, description="lifecycle script fails")
    deep_health_check_failure_rate: float | None = Field(None, ge=0, le=1, description="a deep health check fails")


class Faults(_Strict):
    launch_failure_rate: float = Field(0.0, ge=0, le=1)
    lifecycle_failure_rate: float = Field(0.0, ge=0, le=1)
    deep_health_check_failure_rate: float = Field(0.0, ge=0, le=1, description="StartClusterHealthCheck: a node fails")
    throttle_rate: float = Field(0.0, ge=0, le=1, description="requests answered ThrottlingException")
    server_error_rate: float = Field(0.0, ge=0, le=1, description="requests answered 500/503")
    per_group: dict[str, FaultRates] = Field(default_factory=dict)
    per_instance_type: dict[str, FaultRates] = Field(default_factory=dict)

    def rate(self, kind: str, group: str, instance_type: str | None) -> float:
        """The most specific rate: per group, then per instance type, then the global one."""
        for override in (self.per_group.get(group), self.per_instance_type.get(instance_type or "")):
            value = getattr(override, kind, None) if override else None
            if value is not None:
                return value
        return getattr(self, kind)


class CapacityPool(_Strict):
    """Free instances of a type; `availability_zone` None means one pool shared by every AZ."""

    instance_type: str
    availability_zone: str | None = None
    available: int = Field(ge=0)


def reservable(instance_type: str) -> str:
    """`instance_type` when a training plan can reserve it (the model's ReservedCapacityInstanceType)."""
    types = servicemodel.shape("ReservedCapacityInstanceType").enum
    if instance_type not in types:
        raise ValueError(f"{instance_type} cannot be reserved in a training plan (ReservedCapacityInstanceType: {', '.join(types)})")
    return instance_type


class TrainingPlanCapacity(_Strict):
    """A training plan (DescribeTrainingPlan, ListTrainingPlans): reserved instances of one type in one
    AZ for a window. A group with this TrainingPlanArn launches only these, and only while the plan is
    Active. Its status follows the simulator's clock, as the model's TrainingPlanStatus: Pending (not
    paid yet) until `scheduled_at`, Scheduled until `start_at`, Active for `duration_hours`, then
    Expired (times in virtual seconds after the world was created, as `capacity_changes`)."""

    instance_type: str
    count: int = Field(ge=0, description="TotalInstanceCount: the instances reserved")
    name: str | None = Field(None, description="TrainingPlanName; default: the ARN's last part")
    availability_zone: str | None = Field(None, description="where the capacity is reserved; default: the region's first AZ")
    scheduled_at: float = Field(0, ge=0, description="Pending until then")
    start_at: float = Field(0, ge=0, description="StartTime: Scheduled until then, Active from then")
    duration_hours: float = Field(720, gt=0, description="the window: Expired after StartTime + this")
    failed: bool = Field(False, description="the plan's purchase failed: Status Failed")
    upfront_fee: str | None = Field(None, description="UpfrontFee (CurrencyCode USD)")

    @field_validator("instance_type")
    @classmethod
    def _reservable(cls, instance_type: str) -> str:
        return reservable(instance_type)

    @model_validator(mode="after")
    def _in_order(self) -> TrainingPlanCapacity:
        if self.scheduled_at > self.start_at:
            raise ValueError("scheduled_at comes before start_at (Pending → Scheduled → Active)")
        return self


class TrainingPlanOffering(_Strict):
    """A training plan offering (SearchTrainingPlanOfferings): `count` instances of one type in one
    AZ for a window, at an upfront fee. Shown only: buying it (CreateTrainingPlan) is not simulated."""

    id: str = Field(pattern=r"^[a-z0-9\-]{1,256}$", description="TrainingPlanOfferingId")
    instance_type: str
    count: int = Field(ge=1, le=256, description="the instances it reserves: it matches a search for as many or fewer")
    availability_zone: str | None = Field(None, description="default: the region's first AZ")
    start_at: float = Field(0, ge=0, description="its StartTime, in virtual seconds after the world was created")
    duration_hours: float = Field(168, gt=0, description="its window: EndTime is StartTime + this")
    upfront_fee: str = Field(description="UpfrontFee, as the API returns it (a string)")
    currency_code: str = Field("USD", description="CurrencyCode")
    target_resources: list[Literal["training-job", "hyperpod-cluster", "endpoint", "studio-apps"]] = Field(
        default_factory=lambda: ["hyperpod-cluster"], min_length=1, description="TargetResources (SageMakerResourceName)"
    )

    @field_validator("instance_type")
    @classmethod
    def _reservable(cls, instance_type: str) -> str:
        return reservable(instance_type)


# An extension's name: the model's ExtensionName, and a prefix its ExtensionArn pattern allows.
ExtensionName = Annotated[str, StringConstraints(pattern=r"^(sagemaker|eks|pcs)-[a-z0-9]+(-[a-z0-9]+)*$", max_length=128)]


class ClusterExtensionOffer(_Strict):
    """An extension the service offers (ListClusterExtensionVersions, CreateClusterExtension): the
    versions it installs, and the settings a configuration that leaves them out gets."""

    versions: list[str] = Field(min_length=1, description="the installable versions, MAJOR.MINOR.PATCH")
    default_configuration: dict[str, Any] = Field(
        default_factory=dict, description="every setting's default: DescribeClusterExtension's ConfigurationValues include them"
    )

    @field_validator("versions")
    @classmethod
    def _semantic(cls, versions: list[str]) -> list[str]:
        for version in versions:
            if not re.fullmatch(r"[0-9]+\.[0-9]+\.[0-9]+", version):
                raise ValueError(f"{version!r} is not a MAJOR.MINOR.PATCH version (the model's ExtensionVersion)")
        return versions


class CapacityChange(_Strict):
    """At `at`, set a pool's free count (`available`) or grow/shrink it (`add`, e.g. "4 more")."""

    at: float = Field(ge=0, description="virtual seconds after the world was created")
    instance_type: str
    availability_zone: str | None = None
    available: int | None = Field(None, ge=0)
    add: int | None = None

    @model_validator(mode="after")
    def _one_of(self) -> CapacityChange:
        if (self.available is None) == (self.add is None):
            raise ValueError("give exactly one of available (new free count) or add (change of the free count)")
        return self


class WorkerGroup(BaseModel):
    model_config = ConfigDict(extra="allow")
    instance_group_name: str
    partition_name: str


class ProvisioningParameters(BaseModel):
    """The legacy `provisioning_parameters.json` a lifecycle S3 prefix holds (other keys allowed)."""

    model_config = ConfigDict(extra="allow")
    controller_group: str | None = None
    login_group: str | None = None
    worker_groups: list[WorkerGroup] = Field(default_factory=list)


class QuotaValue(_Strict):
    """An applied Service Quotas value (service `sagemaker`), named by its name or its code."""

    quota_name: str | None = Field(None, description='e.g. "ml.p5.48xlarge for cluster usage"')
    quota_code: str | None = Field(None, pattern=r"^L-[0-9A-F]{8}$")
    value: float = Field(ge=0)
    region: str | None = Field(None, description="the region it is applied in (quotas are per region); None: every region")

    @model_validator(mode="after")
    def _named(self) -> QuotaValue:
        if (self.quota_name is None) == (self.quota_code is None):
            raise ValueError("give exactly one of quota_name or quota_code")
        return self

    @field_validator("region")
    @classmethod
    def _a_region(cls, region: str | None) -> str | None:
        from pulumi_hyperpod.aws.regions import is_region, not_a_region  # noqa: PLC0415 - botocore's partitions: only a quota that names a region

        if region is not None and not is_region(region):
            raise ValueError(not_a_region(region))
        return region


# An AWS account id, and the shape of an access key id (IAM's AccessKeyIdType: 16 to 128 word characters).
AccountId = Annotated[str, StringConstraints(pattern=r"^\d{12}$")]
AccessKeyId = Annotated[str, StringConstraints(pattern=r"^\w{16,128}$")]


class AccountSettings(_Strict):
    """One account of the simulated world besides the default (`Scenario.account_id`): which access keys
    sign as it, and its Service Quotas (sim/aws/accounts.py)."""

    access_keys: list[AccessKeyId] = Field(
        default_factory=list,
        description="access key ids whose requests are this account's (a 12-digit key id is its account without being listed)",
    )
    account: Literal["raised", "new"] | None = Field(
        None, description="as the scenario's `account`, for this account; None: the scenario's"
    )
    quotas: list[QuotaValue] = Field(
        default_factory=list, description="applied Service Quotas values of this account, on top of the scenario's"
    )


class SlurmSettings(_Strict):
    default_partition: str | None = Field("dev", description="partition holding every compute node")


class Scenario(_Strict):
    account_id: str = Field("123456789012", pattern=r"^\d{12}$")
    speed: float = Field(
        600,
        ge=0,
        description="persistent worlds: virtual seconds per real second while a "
        "client waits on the world (polls); otherwise it follows the wall clock. 0: frozen, only "
        "advance() moves it",
    )
    poll_window_seconds: float = Field(
        2, gt=0, description="a repeated identical read within this many real seconds is a client polling (waiting on the world)"
    )
    timing: Timing = Field(default_factory=Timing)
    availability_zones: list[str] | None = Field(None, description="default: <region>a, b, c")
    subnets: dict[str, str] = Field(default_factory=dict, description="subnet id -> availability zone")
    capacity: list[CapacityPool] = Field(default_factory=list)
    capacity_changes: list[CapacityChange] = Field(default_factory=list)
    training_plans: dict[str, TrainingPlanCapacity] = Field(
        default_factory=dict,
        description="training plan ARN -> the plan (training_plans.py); a plan not listed is not simulated: "
        "DescribeTrainingPlan does not find it, a group naming it launches from the on-demand pools",
    )
    training_plan_offerings: list[TrainingPlanOffering] = Field(
        default_factory=list,
        description="what SearchTrainingPlanOfferings finds (training_plans.py), in every region: an offering "
        "whose availability_zone is another region's is not found there",
    )
    cluster_extensions: dict[ExtensionName, ClusterExtensionOffer] = Field(
        default_factory=lambda: {"sagemaker-observability": ClusterExtensionOffer(versions=["1.0.0"])},
        description="extension name -> what the service offers of it (extensions.py); a name not listed is not offered",
    )
    faults: Faults = Field(default_factory=Faults)
    provisioning_parameters: dict[str, ProvisioningParameters] = Field(default_factory=dict)
    slurm: SlurmSettings = Field(default_factory=SlurmSettings)
    account: Literal["raised", "new"] = Field(
        "raised",
        description="raised: the account's Service Quotas were raised (every quota applied at "
        "data/service_quotas.yaml's raised values); new: a new account, only AWS's defaults apply (0 of every instance type)",
    )
    quotas: list[QuotaValue] = Field(default_factory=list, description="applied Service Quotas values, on top of the account's")
    accounts: dict[AccountId, AccountSettings] = Field(
        default_factory=dict,
        description="account id -> its access keys and quotas: the other accounts a request's access key can name (sim/aws/accounts.py)",
    )
    quotas_access_denied: bool = Field(False, description="Service Quotas answers AccessDeniedException")
    image_release: str | None = Field(
        None,
        pattern=r"^[0-9]+\.[0-9]+\.[0-9]+$",
        description="the newest HyperPod "
        "AMI release (ImageReleaseVersion): groups with ScheduledUpdateConfig or "
        "AutoPatchConfig are patched to it on their schedule (patching.py)",
    )
    image_released_at: float | None = Field(None, description="when image_release came out (epoch seconds)")

    @model_validator(mode="after")
    def _one_account_per_key(self) -> Scenario:
        owners: dict[str, str] = {}
        for account_id, settings in self.accounts.items():
            for key in settings.access_keys:
                if owners.setdefault(key, account_id) != account_id:
                    raise ValueError(f"accounts: access key {key} is listed under both {owners[key]} and {account_id}")
        return self

    @field_validator("capacity_changes")
    @classmethod
    def _sorted(cls, changes: list[CapacityChange]) -> list[CapacityChange]:
        return sorted(changes, key=lambda change: change.at)

    def zones(self, region: str) -> list[str]:
        return list(self.availability_zones or [f"{region}{letter}" for letter in "abc"])

    def provisioning_parameters_for(self, s3_uri: str | None) -> ProvisioningParameters | None:
        if not s3_uri:
            return None
        wanted = s3_uri.rstrip("/")
        for uri, params in self.provisioning_parameters.items():
            if uri.rstrip("/") == wanted:
                return params
        return None


def named_scenarios() -> dict[str, Path]:
    """The scenarios the package ships (data/scenarios/: `default`, `new-account`), by name."""
    folder = resources.files("pulumi_hyperpod").joinpath("data/scenarios")
    return {Path(entry.name).stem: Path(str(entry)) for entry in folder.iterdir() if entry.name.endswith(".yaml")}


def load_scenario(source: Scenario | dict[str, Any] | str | Path | None) -> Scenario:
    """A Scenario from a dict, a YAML/JSON file path, the name of a scenario the package ships
    (`new-account`: a string with no path separator and no file suffix), or None (all defaults).

    Errors name the offending key, e.g. `scenario timing.launch_seconds: Input should be ...`.
    """
    if source is None:
        return Scenario()
    if isinstance(source, Scenario):
        return source
    if isinstance(source, str) and "/" not in source and "." not in source:
        shipped = named_scenarios()
        if source not in shipped:
            raise ValueError(
                f"invalid simulator scenario: {source!r} is neither a file nor a scenario the package ships ({', '.join(sorted(shipped))})"
            )
        source = shipped[source]
    if isinstance(source, (str, Path)):
        from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - only a scenario file: not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

        class ScenarioError(InputError):
            kind = "simulator scenario"

        # the one reader (core/documents.py): a regular file, JSON or YAML 1.2, size and depth limits
        data = read_document(source, ScenarioError) or {}
    else:
        data = source
    try:
        return Scenario.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(str(part) for part in item['loc'])}: {item['msg']}" for item in error.errors())
        raise ValueError(f"invalid simulator scenario: {problems}") from None
