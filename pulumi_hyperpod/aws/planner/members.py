"""Desired vs observed, member by member, as the member table (`pulumi_hyperpod.aws.members`) says.

For each row of a group: the desired value (from the spec's request form), the observed value
(where DescribeCluster reports it, turned back into the request's form), and what a difference
means — an UpdateCluster line, a refusal with the new-group-name advice, or a software line. A
member the spec leaves out is `cleared` or `kept` (the table's rule): cleared members the cluster
has are removals, shown; kept members are copied from the cluster into the entry the planner
sends, because a group entry in UpdateCluster is the group's whole specification.

A member the service fills in (the table's FILLED: read-only in the CloudFormation schema, or only in
DescribeCluster's shapes) is never compared against a spec that leaves it out; one the request takes
too (AutoPatchConfig's PatchSchedule.NextPatchDate, which AWS sets when it detects a patch) is copied
into the entry, so an update keeps what the service set instead of undoing it on every plan.
"""

from __future__ import annotations

from dataclasses import dataclass
import copy
import functools
import datetime as dt
import json
from typing import Any, Literal
from collections.abc import Mapping

from pulumi_hyperpod.aws.members import Member, filled, rows
from pulumi_hyperpod.aws.members.table import Scope

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


@dataclass(frozen=True, slots=True)
class MemberChange:
    """One member whose value the plan changes (or would, if it were not refused)."""

    group: str | None
    member: str
    change: str  # the table's verdict: UpdateCluster, UpdateClusterSoftware, new group name, …
    effect: Literal["set", "change", "remove"]
    before: Any = None
    after: Any = None
    unverified: str = ""  # the table's "what is missing" when no source decides the verdict

    @property
    def refused(self) -> bool:
        return self.change in ("new group name", "replacement", "refused")

    def line(self) -> str:
        if self.effect == "remove":
            default = f"; the group returns to the service's default, {_short(_DEFAULTS[self.member])}" if self.member in _DEFAULTS else ""
            return f"{self.member} removed (the spec leaves it out, and an UpdateCluster group entry is the group's whole specification{default})"
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
    from pulumi_hyperpod.aws.spec.models import BUILD_FIELDS  # noqa: PLC0415 - the spec's pydantic models: only a member line, not a native check (tests/unit/native/test_check_lean.py)

    line = change.line()
    if change.unverified:
        line = f"{line} (unverified: {change.unverified})"
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
    value = get(described, row.reported)
    if isinstance(value, Mapping) and (row.inner or _service_parts(row.scope, row.reported)):
        value = _request_form(row, value)
    return None if is_default(row.path, value) else value


@functools.cache  # keyed by strings: every row of every group of every plan asks
def _service_parts(scope: Scope, reported: tuple[str, ...]) -> tuple[tuple[str, ...], ...]:
    """The parts of a reported structure the service fills in that the request does not take."""
    n = len(reported)
    return tuple(f.parts[n:] for f in filled(scope) if not f.request and len(f.parts) > n and f.parts[:n] == reported)


@functools.cache
def _taken_filled(scope: Scope, parts: tuple[str, ...]) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """(request parts relative to the row, described parts absolute) of each member under a row the
    service fills in and the request takes (NextPatchDate)."""
    n = len(parts)
    found = []
    for f in filled(scope):
        request = tuple(f.request.split(".")) if f.request else ()
        if len(request) > n and request[:n] == parts:
            found.append((request[n:], f.parts))
    return tuple(found)


def _request_form(row: Member, value: Mapping[str, Any]) -> dict[str, Any]:
    """A reported structure in the request's form: the service's own parts out, the inner renames made
    (DesiredPatchSchedule → PatchSchedule)."""
    form = copy.deepcopy(dict(value))
    for parts in _service_parts(row.scope, row.reported):
        _drop(form, parts)
    for described, request in row.inner:
        moved = get(form, tuple(described.split(".")))
        _drop(form, tuple(described.split(".")))
        if moved is not None:
            put(form, tuple(request.split(".")), moved)
    return form


def _drop(data: dict[str, Any], parts: tuple[str, ...]) -> None:
    for part in parts[:-1]:
        data = data.get(part)  # type: ignore[assignment]
        if not isinstance(data, dict):
            return
    data.pop(parts[-1], None)


def _without_filled(row: Member, desired: Any, observed: Any) -> Any:
    """The observed value without the members the service fills in that the spec leaves out: what the
    service set is not a difference from a spec that does not name it."""
    if not isinstance(observed, Mapping):
        return observed
    taken = _taken_filled(row.scope, row.parts)
    if not taken:
        return observed
    trimmed = copy.deepcopy(dict(observed))
    for relative, _ in taken:
        if get(desired, relative) is not None or get(trimmed, relative) is None:
            continue  # the spec gives it (a reschedule), or the service set nothing there: compared as any member
        _drop(trimmed, relative)
        # the structure that held only the service's member goes with it, where the spec does not give
        # it. One the cluster reports empty was given empty (the model's ClusterPatchSchedule requires
        # no member, and DesiredPatchSchedule is "the requested patch schedule"; the simulator's views
        # report it so), and a spec that leaves it out changes it
        for depth in range(len(relative) - 1, 0, -1):
            parent = relative[:depth]
            if get(trimmed, parent) == {} and get(desired, parent) is None:
                _drop(trimmed, parent)
    return trimmed


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
        given, observed = get(want, parts), observed_value(row, described)
        desired = None if is_default(row.path, given) else given
        if desired is None:
            if row.omitted == "kept" or observed is None:
                continue
            # the spec naming the service's default (OnDemand after Spot) changes to it; leaving it out removes
            effect: Literal["change", "remove"] = "remove" if given is None else "change"
            changes.append(MemberChange(name, row.path, row.change, effect, observed, given, row.unverified))
            continue
        observed = _without_filled(row, desired, observed)
        if observed is None:
            changes.append(MemberChange(name, row.path, row.change, "set", None, desired, row.unverified))
        elif not same(observed, desired, row.path in _UNORDERED):
            changes.append(MemberChange(name, row.path, row.change, "change", observed, desired, row.unverified))
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
        if get(entry, row.parts) is not None:
            for relative, described_at in _taken_filled(row.scope, row.parts):  # what the service set, kept (NextPatchDate)
                value = get(described, described_at)
                if value is not None and get(entry, row.parts + relative) is None:
                    put(entry, row.parts + relative, value)
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
