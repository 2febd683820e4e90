"""The desired cluster: frozen dataclasses in the shape CreateCluster / UpdateCluster take.

Validation happens in one place, before anything is built (`request.checked_request`): keys are
spelled the model's way (`keys.to_model_keys`; a field given in two spellings is refused), every
rule of the service model is checked (`servicemodel.violations`, botocore's ParamValidator plus
max/enum/pattern), then the documented cross-field rules (`rules.spec_rules`, and the model's
sentence-rules in `documented.py`; the simulator has its own, sim/aws/service_rules.py). All problems are reported together in one SpecError, each with its field path.
Files are read by `documents.read_document` (size limit, YAML 1.2). Nested members the planner does
not reason about (storage, scheduled updates, Kubernetes labels…) stay plain dicts — already checked
against the model — so a botocore upgrade that adds a member needs no change here.

A checked request has exactly the members, types and values these classes declare, so building them
is a conversion, not a second validation (no pydantic: the request check against botocore's model
is the validation). The classes are frozen stdlib dataclasses; one generic converter builds them: an attribute is its API member in snake_case (`source_s3_uri` ⇄
`SourceS3Uri`), a nested object becomes the class `_NESTED` names, a list a tuple; members a class
does not declare (AutoPatchConfig, ImageReleaseVersion…) are kept as given in `model_extra` and go
back into the request unchanged, after the declared ones, as pydantic's extra="allow" did.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import MISSING, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar, Literal, NamedTuple
from collections.abc import Mapping

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.core.errors import SpecError, Violation
from pulumi_hyperpod.aws.spec.request import checked_request
from pulumi_hyperpod.aws.spec.rules import CONTINUOUS, orchestrator_kind

# The members of a group that describe how its nodes are built. A change here leaves existing
# nodes as they were built (seed 004, "Lifecycleの冪等性").
BUILD_FIELDS = ("LifeCycleConfig", "ExecutionRole", "ThreadsPerCore", "InstanceStorageConfigs", "ImageId")


class Extras(dict[str, Any]):
    """Members a class does not declare, in the order given."""

    __slots__ = ()


def api_name(attribute: str) -> str:
    """`source_s3_uri` -> `SourceS3Uri`: the service model's spelling of an attribute."""
    return "".join(part.capitalize() for part in attribute.split("_"))


@dataclass(frozen=True, slots=True, init=False)
class _Model:
    """Built by keyword in either spelling (`InstanceGroupName=` or `instance_group_name=`), or from
    a checked request; `to_api()` gives the request back (no nulls, lists, the declared members in
    declaration order, then the others as given). Equality, hashing (by the declared members: the
    undeclared ones may be dicts), repr, pickling and frozenness are the dataclass's own."""

    model_extra: Extras = field(default_factory=Extras, kw_only=True, hash=False)
    # attribute -> the class its value (or each item of its list) is built as
    _NESTED: ClassVar[Mapping[str, type[_Model]]] = {}

    def __init__(self, **members: Any) -> None:
        _fill(self, members)

    def __getattr__(self, name: str) -> Any:
        """An undeclared member by its given name (`group.AutoPatchConfig`), as extra="allow" did."""
        if name != "model_extra":  # not set yet (while unpickling): no extras to look in
            try:
                return self.model_extra[name]
            except (KeyError, AttributeError):
                pass
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def to_api(self) -> dict[str, Any]:
        """The request form, new each call (a caller may change it)."""
        api = {name: _api_value(getattr(self, attribute)) for attribute, name in _declared(type(self))}
        api.update((key, _api_value(value)) for key, value in self.model_extra.items())
        return {key: value for key, value in api.items() if value is not None}


class _Layout(NamedTuple):
    """What the converter needs of a class, read from its dataclass fields once."""

    declared: tuple[tuple[str, str], ...]  # (attribute, API member), in declaration order
    spellings: dict[str, str]  # both spellings of every member -> its attribute
    defaults: tuple[tuple[str, Any], ...]  # (attribute, default); MISSING: the member is required


_LAYOUTS: dict[type[_Model], _Layout] = {}


def _layout(cls: type[_Model]) -> _Layout:
    layout = _LAYOUTS.get(cls)
    if layout is None:
        members = [f for f in fields(cls) if f.name != "model_extra"]
        declared = tuple((f.name, api_name(f.name)) for f in members)
        spellings = {spelling: attribute for attribute, name in declared for spelling in (attribute, name)}
        defaults = tuple((f.name, f.default) for f in members)
        layout = _LAYOUTS[cls] = _Layout(declared, spellings, defaults)
    return layout


def _declared(cls: type[_Model]) -> tuple[tuple[str, str], ...]:
    return _layout(cls).declared


def _fill(instance: _Model, members: Mapping[str, Any]) -> None:
    cls = type(instance)
    spellings, values, extra = _layout(cls).spellings, {}, Extras()
    for key, value in members.items():
        attribute = spellings.get(key)
        if attribute is None:
            extra[key] = value
        else:
            values[attribute] = _built(cls._NESTED.get(attribute), value)
    for attribute, default in _layout(cls).defaults:
        value = values.get(attribute, default)
        if value is MISSING:
            raise TypeError(f"{cls.__name__} needs {api_name(attribute)}")
        object.__setattr__(instance, attribute, value)  # frozen: the dataclass's __setattr__ refuses
    object.__setattr__(instance, "model_extra", extra)


def _of(cls: type[_Model], members: Mapping[str, Any]) -> _Model:
    """An instance from members already checked (no keyword-constructor check runs)."""
    instance = object.__new__(cls)
    _fill(instance, members)
    return instance


def _built(cls: type[_Model] | None, value: Any) -> Any:
    if isinstance(value, (list, tuple)):
        return tuple(_built(cls, item) for item in value)
    if cls is not None and isinstance(value, dict):
        return _of(cls, value)
    return value


def _api_value(value: Any) -> Any:
    """A value as JSON carries it, the way pydantic's mode="json" dumped it."""
    if isinstance(value, _Model):
        return _Model.to_api(value)
    if isinstance(value, (list, tuple)):
        return [_api_value(item) for item in value]
    if isinstance(value, dict):
        return {key: _api_value(item) for key, item in value.items()}
    if isinstance(value, dt.datetime):  # a timestamp member (AutoPatchConfig's NextPatchDate)
        return _iso(value)
    return value


def _iso(value: dt.datetime) -> str:
    text = value.isoformat()
    return text[:-6] + "Z" if value.utcoffset() == dt.timedelta(0) else text


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class LifeCycleConfig(_Model):
    """ClusterLifeCycleConfig: where a group's lifecycle scripts are and which run."""

    source_s3_uri: str | None = None
    on_create: str | None = None
    on_init_complete: str | None = None


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class SlurmConfig(_Model):
    """ClusterSlurmConfig: a group's Slurm role and partitions."""

    node_type: Literal["Controller", "Login", "Compute"]
    partition_names: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class InstanceRequirements(_Model):
    """ClusterInstanceRequirements: a flexible group's instance types, in priority order."""

    instance_types: tuple[str, ...]


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class VpcConfig(_Model):
    """VpcConfig: the cluster's (or a group's override) subnets and security groups."""

    security_group_ids: tuple[str, ...]
    subnets: tuple[str, ...]


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class EksOrchestrator(_Model):
    """ClusterOrchestratorEksConfig: the EKS cluster that orchestrates."""

    cluster_arn: str


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class SlurmOrchestrator(_Model):
    """ClusterOrchestratorSlurmConfig: how the service treats slurm.conf."""

    slurm_config_strategy: Literal["Overwrite", "Managed", "Merge"] | None = None


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class Orchestrator(_Model):
    """ClusterOrchestrator: EKS or Slurm (none given: Slurm)."""

    _NESTED: ClassVar[Mapping[str, type[_Model]]] = {"eks": EksOrchestrator, "slurm": SlurmOrchestrator}

    eks: EksOrchestrator | None = None
    slurm: SlurmOrchestrator | None = None


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class Tag(_Model):
    """Tag: one key and its value."""

    key: str
    value: str


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class AutoScaling(_Model):
    """ClusterAutoScalingConfig: whether the service's autoscaler owns the counts."""

    mode: Literal["Enable", "Disable"]
    auto_scaler_type: str | None = None


class _Group(_Model):
    """What a group of either kind answers the same way: its name, and what builds its nodes."""

    __slots__ = ()
    instance_group_name: str

    @property
    def name(self) -> str:
        return self.instance_group_name

    def build_config(self) -> dict[str, Any]:
        """What decides how a node of this group is built (compared with existing nodes)."""
        api = self.to_api()
        return {key: api[key] for key in BUILD_FIELDS if key in api}


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class InstanceGroupSpec(_Group):
    """ClusterInstanceGroupSpecification: one instance group."""

    _NESTED: ClassVar[Mapping[str, type[_Model]]] = {
        "instance_requirements": InstanceRequirements,
        "life_cycle_config": LifeCycleConfig,
        "override_vpc_config": VpcConfig,
        "slurm_config": SlurmConfig,
    }

    instance_group_name: str
    instance_count: int
    execution_role: str
    min_instance_count: int | None = None
    instance_type: str | None = None
    instance_requirements: InstanceRequirements | None = None
    life_cycle_config: LifeCycleConfig | None = None
    threads_per_core: int | None = None
    instance_storage_configs: tuple[dict[str, Any], ...] | None = None
    on_start_deep_health_checks: tuple[str, ...] | None = None
    training_plan_arn: str | None = None
    override_vpc_config: VpcConfig | None = None
    scheduled_update_config: dict[str, Any] | None = None
    image_id: str | None = None
    kubernetes_config: dict[str, Any] | None = None
    slurm_config: SlurmConfig | None = None
    capacity_requirements: dict[str, Any] | None = None
    network_interface: dict[str, Any] | None = None
    restricted: ClassVar[bool] = False

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


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class RestrictedInstanceGroupSpec(_Group):
    """ClusterRestrictedInstanceGroupSpecification: one restricted instance group (RIG, EKS only:
    the SageMaker-managed groups Amazon Nova customization runs on). It answers the planner, cost and
    quotas as an InstanceGroupSpec does: a fixed type, no MinCount, no Slurm role, no image."""

    _NESTED: ClassVar[Mapping[str, type[_Model]]] = {"override_vpc_config": VpcConfig}
    restricted: ClassVar[bool] = True
    node_type: ClassVar[None] = None
    min_instance_count: ClassVar[None] = None
    instance_requirements: ClassVar[None] = None
    capacity_requirements: ClassVar[None] = None
    image_id: ClassVar[None] = None

    instance_count: int
    instance_group_name: str
    instance_type: str
    execution_role: str
    threads_per_core: int | None = None
    instance_storage_configs: tuple[dict[str, Any], ...] | None = None
    on_start_deep_health_checks: tuple[str, ...] | None = None
    training_plan_arn: str | None = None
    override_vpc_config: VpcConfig | None = None
    scheduled_update_config: dict[str, Any] | None = None
    environment_config: dict[str, Any] | None = None

    @property
    def instance_types(self) -> tuple[str, ...]:
        return (self.instance_type,)

    def effective_min_count(self, continuous: bool) -> int:
        return 0


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class ExtensionSpec(_Model):
    """A cluster extension the spec wants (spec/extensions.py): CreateClusterExtension's request
    without the members the plan sets (ClusterArn, ClientToken)."""

    _NESTED: ClassVar[Mapping[str, type[_Model]]] = {"tags": Tag}

    extension_name: str
    extension_version: str | None = None  # None: the latest on offer at creation; never diffed after
    configuration_values: str | None = None  # a JSON object as a string; None: the extension's defaults
    tags: tuple[Tag, ...] | None = None

    @property
    def name(self) -> str:
        return self.extension_name


# a group of either kind: the planner, cost and quotas read both alike (`ClusterSpec.groups`)
AnyGroupSpec = InstanceGroupSpec | RestrictedInstanceGroupSpec


@dataclass(frozen=True, slots=True, init=False)  # built by _Model's __init__ (either spelling)
class ClusterSpec(_Model):
    """The cluster a platform team wants. Loads the AWS CLI's `--cli-input-json` form unchanged.
    `ClusterSpec(**request)` checks the request as `from_dict` does."""

    _NESTED: ClassVar[Mapping[str, type[_Model]]] = {
        "instance_groups": InstanceGroupSpec,
        "restricted_instance_groups": RestrictedInstanceGroupSpec,
        "vpc_config": VpcConfig,
        "tags": Tag,
        "orchestrator": Orchestrator,
        "auto_scaling": AutoScaling,
        "extensions": ExtensionSpec,
    }

    cluster_name: str
    instance_groups: tuple[InstanceGroupSpec, ...] = ()
    restricted_instance_groups: tuple[RestrictedInstanceGroupSpec, ...] | None = None
    vpc_config: VpcConfig | None = None
    tags: tuple[Tag, ...] | None = None
    orchestrator: Orchestrator | None = None
    node_recovery: Literal["Automatic", "None"] | None = None
    tiered_storage_config: dict[str, Any] | None = None
    node_provisioning_mode: Literal["Continuous"] | None = None
    cluster_role: str | None = None
    auto_scaling: AutoScaling | None = None
    # not a CreateCluster member: the extensions the spec wants (spec/extensions.py); None: the spec
    # does not manage them (the cluster's are left alone), (): it wants none
    extensions: tuple[ExtensionSpec, ...] | None = None

    def __init__(self, **members: Any) -> None:
        _fill(self, _checked(members))

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> ClusterSpec:
        if isinstance(data, cls):
            return data
        try:
            return _of(cls, _checked(data))  # type: ignore[return-value]
        except SpecError as error:
            raise SpecError(error.violations, source=source) from None

    @classmethod
    def from_file(cls, path: str | Path) -> ClusterSpec:
        """JSON or YAML (1.2), in the AWS CLI's `--cli-input-json` form (PascalCase) or snake_case;
        see `documents.read_document` for the limits on the file itself."""
        from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - yaml: a file only here, a provider's spec comes as data

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

    @property
    def groups(self) -> tuple[AnyGroupSpec, ...]:
        """Every group, instance groups first, then the restricted ones: the rows a plan, its cost and
        its quotas have (a restricted group is marked `restricted`)."""
        return (*self.instance_groups, *(self.restricted_instance_groups or ()))

    def group(self, name: str) -> AnyGroupSpec | None:
        return next((g for g in self.groups if g.instance_group_name == name), None)

    def to_api(self, operation: Literal["CreateCluster", "UpdateCluster"] = "CreateCluster") -> dict[str, Any]:
        """The exact request dict for `operation`: members the operation does not take are left out."""
        request = _Model.to_api(self)
        members = servicemodel.input_shape(operation).members
        # InstanceGroups has at least one entry in the model: a cluster of restricted groups only sends none
        return {key: value for key, value in request.items() if key in members and not (key == "InstanceGroups" and value == [])}

    def to_spec(self) -> dict[str, Any]:
        """The spec as a document (what a saved plan keeps): CreateCluster's request, and the
        Extensions when the spec names them."""
        document = self.to_api("CreateCluster")
        if self.extensions is not None:
            document["Extensions"] = [extension.to_api() for extension in self.extensions]
        return document


def _checked(data: Any) -> dict[str, Any]:
    """The request `data` is, spelled the model's way, or a SpecError with every problem."""
    if not isinstance(data, dict):
        raise SpecError([Violation("", f"a cluster spec is an object; got {type(data).__name__}")])
    request, problems = checked_request(data)
    if problems:
        raise SpecError(problems)
    return request
