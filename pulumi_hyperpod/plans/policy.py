"""Policy: what a plan may do to a running cluster. Guards refuse, with the reason, what it may not.

A frozen dataclass, so that the policy most runs use (the defaults: a preview's `diff`, a plan
without `--policy`) costs no pydantic import or model build in a fresh process. Any other value is
validated by a pydantic model built once, on first need, from these field declarations (`validator`):
the same rules, the same ValidationError (type, loc, msg, title "Policy") as when Policy was that
model. `model_validate`, `model_dump` and the rest of the BaseModel API callers use are kept.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import re
import typing
from dataclasses import dataclass, field
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal
from collections.abc import Mapping

from pulumi_hyperpod.core.policy_members import check


if TYPE_CHECKING:  # pragma: no cover
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

# botocore's sagemaker model: ClusterNodeId and ClusterNodeLogicalId (tests/unit/plans/test_policy_ids.py
# checks these against the model; copied so that a Policy does not load the model)
INSTANCE_ID = re.compile(r"i-[a-f0-9]{8}(?:[a-f0-9]{9})?")
LOGICAL_ID = re.compile(r"[a-zA-Z0-9][a-zA-Z0-9\-]*[a-zA-Z0-9]")
NODE_ID_FIELDS = ("protected_node_ids", "remove_first", "replace_node_ids", "reboot_node_ids")


def _member(default: Any, description: str, **bounds: float) -> Any:
    """A Policy field: its default, its description and pydantic's bounds (ge, le, gt), kept as data
    (the field's metadata) so that the model `validator` builds from them is their one home."""
    return field(default=default, metadata={"description": description, **bounds})


class _ModelFields:
    """`Policy.model_fields`: the validating model's FieldInfo by name (description, annotation, bounds)."""

    def __get__(self, instance: object, owner: type) -> dict[str, FieldInfo]:
        return validator().model_fields


@dataclass(frozen=True, slots=True)
class Policy:
    """What a plan may do to a running cluster: made from keywords, as the pydantic model it was."""

    protected_node_ids: frozenset[str] = _member(frozenset(), "Instance or logical ids a scale-in must never remove.")
    max_scale_in_fraction: float = _member(1.0, "Largest share of a group's nodes one plan may remove (1.0 = no limit).", ge=0.0, le=1.0)
    allow_controller_scale_in: bool = _member(
        False, "Allow shrinking or deleting a Slurm Controller group (its nodes are still never named)."
    )
    allow_login_scale_in: bool = _member(False, "Allow removing Login nodes or the Login group.")
    allow_replacement: bool = _member(
        False, "Allow a plan that deletes and re-creates the cluster for a change the service cannot make in place."
    )
    max_nodes_per_delete_call: int = _member(
        99, "Nodes named in one BatchDeleteClusterNodes call (the API reference allows 99).", ge=1, le=99
    )
    max_hourly_cost_increase: float | None = _member(
        None, "Refuse a plan that raises the cluster's hourly cost by more than this (USD).", ge=0.0
    )
    quota_warning_margin: float = _member(0.9, "Warn when a plan would use more than this share of a service quota.", ge=0.0, le=1.0)

    # scale-in by workload and drain before delete (docs/workloads.md; aws/planner/workload_order.py, apply/drain.py)
    scale_in_order: Literal["workload", "state", "oldest", "newest"] = _member(
        "workload",
        "Which removable nodes a scale-in names first: workload (idle, then the work "
        "that ends soonest; by state where no workload was read), state (unhealthy, never launched, newest), oldest, newest.",
    )
    remove_first: frozenset[str] = _member(
        frozenset(),
        "Instance or logical ids a scale-in names before any other (Cluster API's delete-machine annotation); never a protected one.",
    )
    drain: Literal["none", "cordon", "drain"] = _member(
        "none",
        "Before deleting nodes: none; cordon (no new work lands; Slurm DRAIN, Kubernetes "
        "cordon), then delete; drain (cordon, evict pods through the Eviction API, wait for the work to end), then delete.",
    )
    drain_timeout: float = _member(3600.0, "Seconds a drain waits for the work to end.", gt=0, le=7 * 86400)
    drain_deadline: Literal["stop", "delete"] = _member(
        "stop", "At drain_timeout: stop (exit 1, the nodes left drained and named) or delete them anyway."
    )

    # ---- node lifecycle (docs/lifecycle.md) --------------------------------------------------
    software_deployment: dict[str, Any] | None = _member(
        None,
        "UpdateClusterSoftware DeploymentConfig for rollouts the plan makes (the model's "
        "DeploymentConfiguration: RollingUpdatePolicy, WaitIntervalInSeconds, "
        "AutoRollbackConfiguration); default: the group's ScheduledUpdateConfig.DeploymentConfig.",
    )
    max_unavailable_fraction: float = _member(
        1.0,
        "Largest share of a group's nodes a rollout, reboot or replacement may take down at once (1.0 = no limit).",
        ge=0.0,
        le=1.0,
    )
    allow_login_disruption: bool = _member(False, "Allow a rollout, reboot or replacement to take Slurm Login nodes down.")
    allow_controller_disruption: bool = _member(
        False, "Allow a software rollout to take a Slurm Controller down (Slurm schedules nothing until it is back)."
    )
    failed_nodes: Literal["delete", "replace", "leave"] = _member(
        "delete",
        "Nodes in Failure: removed first on scale-in (delete), replaced with "
        "BatchReplaceClusterNodes (replace), or left where they are and named (leave).",
    )
    canary_nodes: int | None = _member(
        None,
        "Canary scale-out: a group growing by more than this adds this many nodes first, waits until their "
        "lifecycle scripts and deep health checks pass, then adds the rest; a canary failure stops the apply.",
        ge=1,
        le=50,
    )
    replace_node_ids: frozenset[str] = _member(
        frozenset(), "Nodes (instance or logical ids) this plan replaces with BatchReplaceClusterNodes (--replace)."
    )
    reboot_node_ids: frozenset[str] = _member(
        frozenset(), "Nodes (instance or logical ids) this plan reboots with BatchRebootClusterNodes (--reboot)."
    )

    # node moves (docs/capacity.md, "Node moves"; aws/planner/moves.py)
    allow_node_moves: bool = _member(
        True,
        "A group lowered while another of the same instance type is raised (EKS, Continuous): move the nodes "
        "with MoveClusterNodes instead of deleting and adding them (False: delete and add).",
    )

    model_fields = _ModelFields()

    def __init__(self, /, **data: Any) -> None:
        """Keyword arguments, as a pydantic model takes them: a list of ids becomes a frozenset, a bad
        value is a pydantic ValidationError. Only the defaults skip the model."""
        values = dict(DEFAULTS) if _only_defaults(data) else _validated(validator().model_validate(data))
        for name, value in values.items():
            object.__setattr__(self, name, value)

    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> Policy:
        if isinstance(obj, Policy):  # as pydantic does with an instance of the model (revalidate_instances="never")
            return obj
        if type(obj) is dict and not options and _only_defaults(obj):
            return cls()
        return _from_model(validator().model_validate(obj, **options))

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **options: Any) -> Policy:
        return _from_model(validator().model_validate_json(json_data, **options))

    def model_dump(self, *, mode: str = "python", exclude_defaults: bool = False, **options: Any) -> dict[str, Any]:
        if not options and self._is_default():
            return {} if exclude_defaults else _json_defaults() if mode == "json" else dict(DEFAULTS)
        dumped: dict[str, Any] = self._model().model_dump(mode=mode, exclude_defaults=exclude_defaults, **options)
        return dumped

    def model_dump_json(self, **options: Any) -> str:
        if not options and self._is_default():
            return json.dumps(_json_defaults(), separators=(",", ":"))  # pydantic's compact form of these values
        dumped: str = self._model().model_dump_json(**options)
        return dumped

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> Policy:
        """A copy with `update`'s values, not validated (as pydantic's model_copy)."""
        copied = copy.deepcopy(self) if deep else copy.copy(self)
        for name, value in (update or {}).items():
            object.__setattr__(copied, name, value)
        return copied

    def __str__(self) -> str:  # pydantic's: `name=value` pairs
        return " ".join(f"{name}={getattr(self, name)!r}" for name in DEFAULTS)

    def _is_default(self) -> bool:
        return _only_defaults({name: getattr(self, name) for name in DEFAULTS})

    def _model(self) -> BaseModel:
        """This policy as the validating model's instance (values already valid: not validated again)."""
        return validator().model_construct(**{name: getattr(self, name) for name in DEFAULTS})


# The members every cloud honours (Google Cloud reads only these); the rest are HyperPod's, read through
# its section (aws/planner/policy.py, registered in core/policy_members.py). The surface stays flat: every member
# is spelled at the top level in keywords, files, dumps and the native schema.
NEUTRAL: tuple[str, ...] = (
    "protected_node_ids",
    "max_scale_in_fraction",
    "allow_login_scale_in",
    "allow_replacement",
    "max_hourly_cost_increase",
    "quota_warning_margin",
)

DEFAULTS: Mapping[str, Any] = MappingProxyType({member.name: member.default for member in dataclasses.fields(Policy)})


def _json_defaults() -> dict[str, Any]:
    """The defaults as pydantic's JSON mode gives them: a new list for each set (the caller's to change)."""
    return {name: [] if isinstance(value, frozenset) else value for name, value in DEFAULTS.items()}


def _only_defaults(data: dict[str, Any]) -> bool:
    """Every value a field's default, of the default's own type: 1 + 0j == 1.0, yet the model refuses it."""
    return all(name in DEFAULTS and type(value) is type(DEFAULTS[name]) and value == DEFAULTS[name] for name, value in data.items())


def _validated(model: BaseModel) -> dict[str, Any]:
    return {name: getattr(model, name) for name in DEFAULTS}


def _from_model(model: BaseModel) -> Policy:
    policy = Policy.__new__(Policy)
    for name, value in _validated(model).items():
        object.__setattr__(policy, name, value)
    return policy


# ---- the validating model: the rules of the fields above, in pydantic -----------------------------
def _deployment(cls: type, config: dict[str, Any] | None) -> dict[str, Any] | None:
    """HyperPod's member: checked by HyperPod against its service model (core/policy_members.py),
    so a bad one fails here, before any call."""
    if config is None:
        return None
    checked: dict[str, Any] = check("software_deployment", config)
    return checked


def _node_ids(cls: type, ids: frozenset[str]) -> frozenset[str]:
    """A protected id that is not a node id protects nothing: a typo here would let the very
    node it meant to keep be removed, so it is refused rather than ignored."""
    for node_id in sorted(ids):
        if node_id[:2].lower() == "i-" and not INSTANCE_ID.fullmatch(node_id):
            raise ValueError(f"{node_id!r} is not an instance id (i- and 8 or 17 lower-case hex digits)")
        if not INSTANCE_ID.fullmatch(node_id) and not LOGICAL_ID.fullmatch(node_id):
            raise ValueError(
                f"{node_id!r} is neither an instance id (i-0123456789abcdef0) nor a node logical id (letters, digits and inner dashes)"
            )
    return ids


def _first_not_protected(self: Any) -> Any:
    both = sorted(self.remove_first & self.protected_node_ids)
    if both:
        raise ValueError(f"remove_first and protected_node_ids both name {', '.join(both)}: a node cannot be kept and removed first")
    return self


@cache
def validator() -> type[BaseModel]:
    """The pydantic model named "Policy" with Policy's fields (type, default, description, bounds) and
    rules, built once per process, when a value other than the defaults is first given."""
    from pydantic import ConfigDict, Field, create_model, field_validator, model_validator  # noqa: PLC0415 - pydantic only when a value other than the defaults is given (tests/unit/provider/test_policy_defaults_lean.py)

    types = typing.get_type_hints(Policy)
    fields: dict[str, Any] = {
        member.name: (types[member.name], Field(default=member.default, **member.metadata)) for member in dataclasses.fields(Policy)
    }
    rules: dict[str, Any] = {
        "_deployment": field_validator("software_deployment")(_deployment),
        "_node_ids": field_validator(*NODE_ID_FIELDS)(_node_ids),
        "_first_not_protected": model_validator(mode="after")(_first_not_protected),
    }
    config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)
    model: type[BaseModel] = create_model("Policy", __config__=config, __module__=__name__, __validators__=rules, **fields)
    return model
