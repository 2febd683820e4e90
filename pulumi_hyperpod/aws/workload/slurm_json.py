"""Slurm's `--json` outputs read into plain records: `squeue --json` (jobs) and `sinfo --json` /
`scontrol show nodes --json` (nodes).

Two generations of the format are read (Slurm's data_parser): 22.05's openapi v0.0.38, where a
time is an integer (0: not set) and a state a string, and 23.02 onward, where a number may be
`{"set": …, "infinite": …, "number": …}` and a state a list of flags. `sinfo --json` of 23.02+
groups nodes (`{"sinfo": [{"nodes": {"nodes": [...]}, "node": {"state": [...]}}]}`); the others list
them. A job's `nodes` is a Slurm hostlist (`ip-10-1-17-[1-2]`).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any
from collections.abc import Mapping

from pulumi_hyperpod.slurm.hostlist import HostlistError, expand
from pulumi_hyperpod.core.timestamps import TimestampError, from_epoch

# job states whose job still holds its nodes (squeue lists finished jobs for MinJobAge too)
ACTIVE_JOB_STATES = frozenset({"RUNNING", "COMPLETING", "SUSPENDED", "CONFIGURING", "STOPPED", "RESIZING", "SIGNALING", "STAGE_OUT"})


class SlurmOutputError(ValueError):
    """A file or command output that is not what the Slurm command it claims to be prints."""


@dataclass(frozen=True)
class SlurmJob:
    job_id: str
    user: str
    name: str
    state: str
    nodes: tuple[str, ...]
    end_time: dt.datetime | None  # start + time limit for a running job (None: unlimited)


@dataclass(frozen=True)
class SlurmNode:
    name: str
    hostname: str
    address: str
    state: str  # the base state, lower case: idle, allocated, mixed, down, …
    flags: tuple[str, ...]  # DRAIN, DRAINING, COMPLETING, NOT_RESPONDING, …
    reason: str
    reason_time: dt.datetime | None

    @property
    def drained(self) -> bool:
        return "DRAIN" in self.flags or self.state in ("drain", "drained", "draining")


def kind_of(document: Any) -> str:
    """ "squeue" or "nodes" for a parsed --json output; SlurmOutputError otherwise."""
    if isinstance(document, Mapping):
        if isinstance(document.get("jobs"), list):
            return "squeue"
        if isinstance(document.get("nodes"), list) or isinstance(document.get("sinfo"), list):
            return "nodes"
    raise SlurmOutputError("not the --json output of squeue, sinfo or scontrol show nodes (no 'jobs', 'nodes' or 'sinfo' list)")


def _number(value: Any) -> int | float | None:
    """22.05: an int (0 = not set); 23.02+: {"set", "infinite", "number"}."""
    if isinstance(value, Mapping):
        if not value.get("set", True) or value.get("infinite"):
            return None
        value = value.get("number")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return value or None


def _flags(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value.upper(),) if value else ()
    if isinstance(value, list):
        return tuple(str(v).upper() for v in value)
    return ()


def _epoch(value: Any, where: str) -> dt.datetime | None:
    """A time of the output (seconds since 1970), range-checked by the one reader (core/timestamps.py)."""
    seconds = _number(value)
    if not seconds:
        return None
    try:
        return from_epoch(seconds)
    except TimestampError as error:
        raise SlurmOutputError(f"{where}: {error}") from None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def jobs(document: Mapping[str, Any], where: str = "squeue --json") -> list[SlurmJob]:
    """The jobs that hold nodes now (running, completing, suspended…), with their nodes expanded."""
    found = []
    for index, raw in enumerate(document.get("jobs") or ()):
        if not isinstance(raw, Mapping):
            raise SlurmOutputError(f"{where}: jobs[{index}] is not an object")
        states = _flags(raw.get("job_state"))
        if not states or not (set(states) & ACTIVE_JOB_STATES):
            continue
        try:
            nodes = tuple(expand(_text(raw.get("nodes"))))
        except HostlistError as error:
            raise SlurmOutputError(f"{where}: jobs[{index}].nodes: {error}") from None
        job_id = raw.get("job_id")
        if job_id is None:
            raise SlurmOutputError(f"{where}: jobs[{index}] has no job_id")
        found.append(
            SlurmJob(
                job_id=str(job_id),
                user=_text(raw.get("user_name")) or str(raw.get("user_id", "")),
                name=_text(raw.get("name")),
                state=states[0],
                nodes=nodes,
                end_time=_end_time(raw, f"{where}: jobs[{index}].end_time"),
            )
        )
    return found


def _end_time(raw: Mapping[str, Any], where: str) -> dt.datetime | None:
    """A running job's end_time is its start plus its time limit (what squeue shows as END_TIME);
    an unlimited job has none."""
    limit = raw.get("time_limit")
    if isinstance(limit, Mapping) and limit.get("infinite"):
        return None
    return _epoch(raw.get("end_time"), where)


def nodes(document: Mapping[str, Any], where: str = "sinfo --json") -> list[SlurmNode]:
    if isinstance(document.get("sinfo"), list):
        return _grouped_nodes(document["sinfo"], where)
    found = []
    for index, raw in enumerate(document.get("nodes") or ()):
        if not isinstance(raw, Mapping) or not _text(raw.get("name")):
            raise SlurmOutputError(f"{where}: nodes[{index}] is not a node object with a name")
        states = _flags(raw.get("state"))
        base = states[0].lower() if states else ""
        flags = tuple(dict.fromkeys(states[1:] + _flags(raw.get("state_flags"))))
        found.append(
            SlurmNode(
                name=raw["name"],
                hostname=_text(raw.get("hostname")),
                address=_text(raw.get("address")),
                state=base,
                flags=flags,
                reason=_text(raw.get("reason")),
                reason_time=_epoch(raw.get("reason_changed_at"), f"{where}: nodes[{index}].reason_changed_at"),
            )
        )
    return found


def _grouped_nodes(groups: list, where: str) -> list[SlurmNode]:
    found: dict[str, SlurmNode] = {}
    for index, group in enumerate(groups):
        if not isinstance(group, Mapping):
            raise SlurmOutputError(f"{where}: sinfo[{index}] is not an object")
        names = (group.get("nodes") or {}).get("nodes") or []
        states = _flags((group.get("node") or {}).get("state"))
        reason = group.get("reason") or {}
        reason_time = _epoch(reason.get("time"), f"{where}: sinfo[{index}].reason.time")
        for name in names:
            found.setdefault(
                name,
                SlurmNode(
                    name=name,
                    hostname="",
                    address="",
                    state=states[0].lower() if states else "",
                    flags=states[1:],
                    reason=_text(reason.get("description")),
                    reason_time=reason_time,
                ),
            )
    return list(found.values())
