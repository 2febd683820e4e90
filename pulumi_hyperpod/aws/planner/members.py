"""Desired vs observed, member by member, as the member table (`pulumi_hyperpod.members`) says.

For each row of a group: the desired value (from the spec's request form), the observed value
(where DescribeCluster reports it, turned back into the request's form), and what a difference
means — an UpdateCluster line, a refusal with the new-group-name advice, or a software line. A
member the spec leaves out is `cleared` or `kept` (the table's rule): cleared members the cluster
has are removals, shown; kept members are copied from the cluster into the entry the planner
sends, because a group entry in UpdateCluster is the group's whole specification.
"""

from __future__ import annotations

import copy
import functools
import datetime as dt
import json
from typing import Any, Literal, Mapping

from ...core.frozen import Frozen, record
from ...members import Member, rows
from ...members.table import Scope

# Rows the count planner and the older rules handle (planner.py, compare.group_immutable_changes)
_OWN_RULES = frozenset(
    {"InstanceGroupName", "InstanceCount", "MinInstanceCount", "InstanceType", "InstanceRequirements.InstanceTypes", "SlurmConfig.NodeType"}
)
# Lists whose order means nothing (InstanceTypes keep theirs: provisioning priority, seed 001)
_UNORDERED = frozenset({"OnStartDeepHealthChecks", "OverrideVpcConfig", "InstanceStorageConfigs", "KubernetesConfig.Taints"})
# What the service reports for a member never set: the same as not set
# the value the service has when the member is not set: the same as not set. ImageId "default" is the
# HyperPod public AMI a group without ImageId runs (the model's ImageId pattern; aws/planner/software.py)
_DEFAULTS: dict[str, Any] = {"CapacityRequirements": {"OnDemand": {}}, "ImageId": "default"}


@record  # core/frozen.py: a few per plan, none in a no-change one
class MemberChange(Frozen):
    """One member whose value the plan changes (or would, if it were not refused)."""

    group: str | None
    member: str
    change: str  # the table's verdict: UpdateCluster, UpdateClusterSoftware, new group name, …
    effect: Literal["set", "change", "remove"]
    before: Any = None
    after: Any = None

    @property
    def refused(self) -> bool:
        return self.change in ("new group name", "replacement", "refused")

    def line(self) -> str:
        if self.effect == "remove":
            return f"{self.member} removed (the spec leaves it out, and an UpdateCluster group entry is the group's whole specification)"
        shown = _short(self.after)
        if self.effect == "set":
            return f"{self.member} set to {shown}"
        return f"{self.member} {_short(self.before)} → {shown}"


def _short(value: Any) -> str:
    """A value for a plan line: strings whole (the model bounds them, an ARN cut short names nothing),
    structures as JSON, cut at 160 characters."""
    if isinstance(value, str):
        return value
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 160 else text[:157] + "..."


def member_line(change: MemberChange) -> str:
    """A member change as a plan line; the software members say how existing nodes get it."""
    from ..clusterspec.models import BUILD_FIELDS

    line = change.line()
    if change.change == "UpdateClusterSoftware":
        return (
            f"{line} (UpdateCluster sets it for nodes launched from now on; existing nodes get it through an UpdateClusterSoftware rollout)"
        )
    if change.member in BUILD_FIELDS:
        return f"{line} (existing nodes keep how they were built)"
    return line


# ---- reading values ------------------------------------------------------------------------------
def get(data: Mapping[str, Any] | None, parts: tuple[str, ...]) -> Any:
    current: Any = data
    for part in parts:
        if type(current) is not dict and not isinstance(current, Mapping):  # dict first: typing's check is slow
            return None
        current = current.get(part)
    return current


def put(data: dict[str, Any], parts: tuple[str, ...], value: Any) -> None:
    for part in parts[:-1]:
        data = data.setdefault(part, {})
    data[parts[-1]] = copy.deepcopy(value)


def observed_value(row: Member, described: Mapping[str, Any]) -> Any:
    """The member as the cluster has it, in the request's form (None: not set, or not reported)."""
    return _observed_at(row.path, row.reported, described)


def _observed_at(path: str, reported: tuple[str, ...], described: Mapping[str, Any]) -> Any:
    value = get(described, reported)
    if path == "AutoPatchConfig" and isinstance(value, Mapping):
        value = {k: v for k, v in value.items() if k not in ("CurrentPatchSchedule", "DesiredPatchSchedule")} | (
            {"PatchSchedule": value["DesiredPatchSchedule"]} if value.get("DesiredPatchSchedule") is not None else {}
        )
    if path == "EnvironmentConfig" and isinstance(value, Mapping):
        # EnvironmentConfigDetails adds S3OutputPath, where the service puts the group's output: the
        # service's, not the request's (EnvironmentConfig has only FSxLustreConfig)
        value = {k: v for k, v in value.items() if k != "S3OutputPath"} or None
    return None if is_default(path, value) else value


def is_default(path: str, value: Any) -> bool:
    """The value the service has when the member is not set (CapacityRequirements OnDemand): the same as not set."""
    return value is not None and path in _DEFAULTS and _normal(value) == _normal(_DEFAULTS[path])


def _normal(value: Any, unordered: bool = False) -> Any:
    """A value in one comparable form: timestamps as UTC seconds, unordered lists sorted."""
    if isinstance(value, dt.datetime):
        return (value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)).timestamp()
    if isinstance(value, str) and len(value) >= 19 and value[4:5] == "-" and value[10:11] == "T":
        try:
            return _normal(dt.datetime.fromisoformat(value.replace("Z", "+00:00")))
        except ValueError:
            return value
    if isinstance(value, Mapping):
        return {k: _normal(v) for k, v in value.items() if v is not None}
    if isinstance(value, (list, tuple)):
        items = [_normal(v) for v in value]
        return sorted(items, key=lambda item: json.dumps(item, sort_keys=True, default=str)) if unordered else items
    return value


def same(observed: Any, desired: Any, unordered: bool = False) -> bool:
    if observed == desired:  # equal values normalize alike: most members of most groups are unchanged
        return True
    return _normal(observed, unordered) == _normal(desired, unordered)


# ---- one group -------------------------------------------------------------------------------------
def group_member_changes(want: Mapping[str, Any], described: Mapping[str, Any], name: str, scope: Scope = "group") -> list[MemberChange]:
    """Every member of an existing group whose value the plan changes, by the table's rows."""
    changes = []
    for row, parts, reported in _compared_rows(scope):
        if parts[0] not in want and reported[0] not in described:
            continue  # set on neither side: most of the table for most groups
        desired, observed = get(want, parts), _observed_at(row.path, reported, described)
        desired = None if is_default(row.path, desired) else desired
        if desired is None:
            if row.omitted == "kept" or observed is None:
                continue
            changes.append(MemberChange(name, row.path, row.change, "remove", observed, None))
        elif observed is None:
            changes.append(MemberChange(name, row.path, row.change, "set", None, desired))
        elif not same(observed, desired, row.path in _UNORDERED):
            changes.append(MemberChange(name, row.path, row.change, "change", observed, desired))
    return changes


@functools.cache
def _compared_rows(scope: Scope) -> tuple[tuple[Member, tuple[str, ...], tuple[str, ...]], ...]:
    """The scope's rows this module compares, with their paths split once (every group of every plan reads them)."""
    return tuple((row, row.parts, row.reported) for row in rows(scope) if row.path not in _OWN_RULES)


def complete_entry(want: Mapping[str, Any], described: Mapping[str, Any], scope: Scope = "group") -> dict[str, Any]:
    """The group's whole specification for UpdateCluster: the spec's members, and each `kept` member
    the spec leaves out copied from the cluster (the table's rule for omitted members)."""
    entry = copy.deepcopy(dict(want))
    for row in rows(scope):
        if row.omitted != "kept" or row.path in ("InstanceGroupName", "InstanceCount") or get(entry, row.parts) is not None:
            continue
        if row.path == "InstanceRequirements.InstanceTypes" and "InstanceType" in entry:
            continue  # a fixed-type group: InstanceType and InstanceRequirements are exclusive
        if row.path == "InstanceType" and "InstanceRequirements" in entry:
            continue
        value = observed_value(row, described)
        if value is not None:
            put(entry, row.parts, value)
    return entry
