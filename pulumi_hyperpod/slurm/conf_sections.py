"""Checks for the `config` maps of one partition or one node set (GCP's `partitions[].config` and
`node_sets[].config`): the parameters of a `PartitionName=` line and of a `NodeName=` line of
slurm.conf(5), as strictly as the top-level `config` (conf.py).

A key must be a parameter of that line (its PARTITION / NODE CONFIGURATION section of
slurm.conf(5)); keys the platform writes itself (the line's name, its nodes, addresses and ports)
are refused with the reason; every value obeys the same line rules as the top-level map (one
line, no `#`, no trailing `\\`, no spaces) and its type.
"""

from __future__ import annotations

from collections.abc import Mapping

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.slurm.conf import DURATION, line_violation, preempt_mode_parts, unsigned_violation

_TIME = "a time: minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes, days-hours:minutes:seconds, or UNLIMITED"

# slurm.conf(5), PARTITION CONFIGURATION: name -> value kind
PARTITION_PARAMETERS: dict[str, str] = {
    "AllocNodes": "string",
    "AllowAccounts": "string",
    "AllowGroups": "string",
    "AllowQos": "string",
    "Alternate": "string",
    "CpuBind": "string",
    "DefCpuPerGPU": "uint64",
    "DefMemPerCPU": "uint64",
    "DefMemPerGPU": "uint64",
    "DefMemPerNode": "uint64",
    "DenyAccounts": "string",
    "DenyQos": "string",
    "DefaultTime": "time",
    "DisableRootJobs": "boolean",
    "ExclusiveTopo": "boolean",
    "ExclusiveUser": "boolean",
    "GraceTime": "uint32",
    "Hidden": "boolean",
    "LLN": "boolean",
    "MaxCPUsPerNode": "uint32",
    "MaxCPUsPerSocket": "uint32",
    "MaxMemPerCPU": "uint64",
    "MaxMemPerNode": "uint64",
    "MaxNodes": "uint32",
    "MaxTime": "time",
    "MinNodes": "uint32",
    "OverSubscribe": "string",
    "OverTimeLimit": "uint16",
    "PowerDownOnIdle": "boolean",
    "PreemptMode": "preempt",
    "PriorityJobFactor": "uint16",
    "PriorityTier": "uint16",
    "QOS": "string",
    "ReqResv": "boolean",
    "ResumeTimeout": "uint32",
    "RootOnly": "boolean",
    "SelectTypeParameters": "string",
    "State": "partition_state",
    "SuspendTime": "uint32",
    "SuspendTimeout": "uint32",
    "TRESBillingWeights": "string",
}
PARTITION_OWNED: dict[str, str] = {
    "PartitionName": "the partition's name is its `id`",
    "Nodes": "the partition's nodes are its `node_pool_ids`",
    "Default": "Default is set with default_partition_id, not in a partition's config",
}
# slurm.conf(5), NODE CONFIGURATION: name -> value kind
NODE_PARAMETERS: dict[str, str] = {
    "Boards": "uint16",
    "CoreSpecCount": "uint16",
    "CoresPerSocket": "uint16",
    "CpuBind": "string",
    "CPUs": "uint16",
    "CpuSpecList": "string",
    "Features": "string",
    "Gres": "string",
    "MemSpecLimit": "uint64",
    "Procs": "uint16",
    "RealMemory": "uint64",
    "Reason": "string",
    "RestrictedCoresPerGPU": "uint16",
    "Sockets": "uint16",
    "SocketsPerBoard": "uint16",
    "State": "node_state",
    "ThreadsPerCore": "uint16",
    "TmpDisk": "uint32",
    "Topology": "string",
    "Weight": "uint32",
}
NODE_OWNED: dict[str, str] = {
    "NodeName": "the platform names the nodes of the node pool",
    "NodeHostname": "the platform sets the nodes' host names",
    "NodeAddr": "the platform sets the nodes' addresses",
    "BcastAddr": "the platform sets the nodes' addresses",
    "Port": "the platform sets the daemons' ports",
}
_BOOLEAN = {"yes", "no", "true", "false", "1", "0"}
_PARTITION_STATES = {"up", "down", "drain", "inactive"}
_NODE_STATES = {"cloud", "down", "drain", "fail", "failing", "future", "unknown"}
_MAX = {"uint16": 0xFFFF, "uint32": 0xFFFFFFFF, "uint64": 0xFFFFFFFFFFFFFFFF}
_KINDS = {"partition": (PARTITION_PARAMETERS, PARTITION_OWNED, "a partition"), "node": (NODE_PARAMETERS, NODE_OWNED, "a node set's nodes")}


def section_config_violations(config: Mapping[str, object], path: str, kind: str) -> list[Violation]:
    """Every problem of one partition's (`kind` "partition") or node set's ("node") config map."""
    parameters, owned, what = _KINDS[kind]
    canonical = {name.lower(): name for name in (*parameters, *owned)}
    problems: list[Violation] = []
    seen: dict[str, str] = {}
    for key, value in config.items():
        at = f"{path}.{key}"
        name = canonical.get(str(key).lower())
        if name is None:
            problems.append(
                Violation(at, f"{key!r} is not a parameter of {what} in slurm.conf (slurm.conf(5), {kind.upper()} CONFIGURATION)")
            )
        elif name in owned:
            problems.append(Violation(at, f"{name} cannot be set here: {owned[name]}"))
        elif name in seen:
            problems.append(Violation(at, f"{seen[name]!r} and {key!r} are the same parameter (names are case-insensitive); give it once"))
        elif not isinstance(value, str):
            problems.append(Violation(at, f"a slurm.conf value is a string; got {type(value).__name__}"))
        else:
            seen[name] = str(key)
            rule = line_violation(value) or _by_kind(parameters[name], value)
            if rule:
                problems.append(Violation(at, rule))
    return problems


def _by_kind(kind: str, value: str) -> str | None:
    low = value.lower()
    if kind in _MAX:
        return unsigned_violation(value, _MAX[kind], allow_k=kind != "uint16")
    if kind == "boolean" and low not in _BOOLEAN:
        return f"must be YES or NO; got {value!r}"
    if kind == "time" and not (low in ("unlimited", "infinite") or _is_time(value)):
        return f"must be {_TIME}; got {value!r}"
    if kind == "partition_state" and low not in _PARTITION_STATES:
        return f"must be one of UP, DOWN, DRAIN, INACTIVE; got {value!r}"
    if kind == "node_state" and low not in _NODE_STATES:
        return f"must be one of CLOUD, DOWN, DRAIN, FAIL, FAILING, FUTURE, UNKNOWN; got {value!r}"
    if kind == "preempt":
        base, _flags, unknown = preempt_mode_parts(value)
        if unknown or len(base) > 1:
            return f"{value!r} is not a preemption mode: one of OFF, CANCEL, REQUEUE, SUSPEND, optionally with GANG, WITHIN or PRIORITY"
    return None


def _is_time(value: str) -> bool:
    return DURATION.fullmatch(value) is not None and value != "-1"
