"""Checks for the `config` map of a Slurm spec: slurm.conf parameter → value.

A key must be a documented slurm.conf parameter (`conf_table`), not one the platform owns, and its
value must be something slurmctld would accept. Types come from Slurm's parser; the parameters the
training-cluster spec (seed 002) uses get their documented values checked one by one, so a typo in
`PreemptMode` is refused here rather than leaving slurmctld unable to start on the cluster.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.slurm.conf_table import CANONICAL, KIND, OBSOLETE

# Parameters the platform writes itself (HyperPod's agent, or the GCP service): setting them in
# `config` would fight the platform or break the cluster, so they are refused with the reason.
_CONTROLLER = "the platform places the Slurm controller (on HyperPod: the group named by controller_node_pool_id)"
_NODES = "the platform defines the nodes from the node pools / instance groups"
_AUTH = "the platform sets up authentication between the Slurm daemons"
_PATHS = "the platform lays out the daemons' files on every node"
_ACCOUNTING = (
    "the platform runs accounting storage (slurmdbd); on HyperPod an external database is "
    "given as Orchestrator.Slurm.AccountingDatabase in the cluster spec"
)
PLATFORM_OWNED: dict[str, str] = {
    "SlurmctldHost": _CONTROLLER,
    "ControlMachine": _CONTROLLER,
    "ControlAddr": _CONTROLLER,
    "BackupController": _CONTROLLER,
    "BackupAddr": _CONTROLLER,
    "NodeName": _NODES,
    "NodeSet": _NODES,
    "DownNodes": _NODES,
    "PartitionName": "partitions are declared in the spec's `partitions` list",
    "ClusterName": "the platform names the Slurm cluster after the cluster",
    "SlurmctldPort": "the platform sets the daemons' ports",
    "SlurmdPort": "the platform sets the daemons' ports",
    "SlurmUser": "the platform chooses the user the Slurm daemons run as",
    "SlurmdUser": "the platform chooses the user the Slurm daemons run as",
    "AuthType": _AUTH,
    "AuthAltTypes": _AUTH,
    "AuthAltParameters": _AUTH,
    "AuthInfo": _AUTH,
    "CredType": _AUTH,
    "StateSaveLocation": _PATHS,
    "SlurmdSpoolDir": _PATHS,
    "PluginDir": _PATHS,
    "SlurmctldPidFile": _PATHS,
    "SlurmdPidFile": _PATHS,
    "AccountingStorageType": _ACCOUNTING,
    "AccountingStorageHost": _ACCOUNTING,
    "AccountingStorageBackupHost": _ACCOUNTING,
    "AccountingStorageExternalHost": _ACCOUNTING,
    "AccountingStoragePort": _ACCOUNTING,
    "AccountingStoragePass": _ACCOUNTING,
    "Prolog": "give job prologs as prolog_bash_scripts; the platform installs them",
    "Epilog": "give job epilogs as epilog_bash_scripts; the platform installs them",
}

_UINT_MAX = {"uint16": 0xFFFF, "uint32": 0xFFFFFFFF, "uint64": 0xFFFFFFFFFFFFFFFF}
# strtoul(value, NULL, 0) as Slurm parses numbers: decimal, 0x hex or 0 octal; k/K multiplies by 1024.
_NUMBER = re.compile(r"(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)([kK]?)")
_BOOLEAN = {"yes", "up", "true", "1", "no", "down", "false", "0"}
# the numeric priority factor weights (uint32 in slurm.conf(5); PriorityWeightTRES is a list), from conf_table
_PRIORITY_WEIGHTS = tuple(key for key, kind in KIND.items() if key.startswith("PriorityWeight") and kind == "uint32")
# slurm.conf(5), PreemptExemptTime: "minutes", "minutes:seconds", "hours:minutes:seconds",
# "days-hours", "days-hours:minutes", "days-hours:minutes:seconds"; -1 disables it.
DURATION = re.compile(r"-1|\d+(:\d+){0,2}|\d+-\d+(:\d+){0,2}")
_TRES_WEIGHTS = re.compile(r"[A-Za-z][\w/:.-]*=-?\d+(\.\d+)?(,[A-Za-z][\w/:.-]*=-?\d+(\.\d+)?)*")
_ENFORCE = {"1", "associations", "2", "limits", "safe", "wckeys", "qos", "all", "nojobs", "nosteps"}
_PREEMPT_TYPES = ("preempt/partition_prio", "preempt/qos", "preempt/none")
_PRIORITY_TYPES = ("priority/basic", "priority/multifactor")
# src/common/slurm_protocol_defs.c, preempt_mode_num(): one base mode, optionally with GANG or
# WITHIN or PRIORITY; "ON" and "CLUSTER" are old spellings of SUSPEND and OFF.
_PREEMPT_BASE = {"off": "OFF", "cluster": "OFF", "cancel": "CANCEL", "requeue": "REQUEUE", "suspend": "SUSPEND", "on": "SUSPEND"}
_PREEMPT_FLAGS = {"gang": "GANG", "within": "WITHIN", "priority": "PRIORITY"}


def canonical_key(key: str) -> str | None:
    """The documented spelling of a slurm.conf parameter name, or None when it is not one."""
    return CANONICAL.get(key.lower())


def config_violations(config: Mapping[str, str], path: str = "config", spelled: Mapping[str, str] | None = None) -> list[Violation]:
    """Every problem with the values of a config map whose keys are canonical (`canonical_key`);
    `spelled` maps a canonical key to the key as the user wrote it, for the field paths."""

    def at(key: str) -> str:
        return f"{path}.{(spelled or {}).get(key, key)}"

    problems: list[Violation] = []
    for key, value in config.items():
        problems += _value_violations(key, value, at(key))
    problems += list(_cross_key(config, at))
    return problems


def key_violation(key: str, path: str, suggest: bool = True) -> Violation | None:
    """Why `key` cannot be set in `config`, or None when it can (`suggest`: with a "did you mean")."""
    name = canonical_key(key)
    if name is None:
        return Violation(path, f"{key!r} is not a slurm.conf parameter{_suggest(key) if suggest else ''}")
    if name in OBSOLETE:
        return Violation(path, f"{name} is obsolete: Slurm no longer documents it, and setting it does not do what its name says")
    if name in PLATFORM_OWNED:
        return Violation(path, f"{name} cannot be set: {PLATFORM_OWNED[name]}")
    return None


def _suggest(key: str) -> str:
    import difflib  # noqa: PLC0415 - difflib: the hint of an error message only

    if len(key) > 64:  # difflib's cost grows with the text: no parameter name is this long
        return ""
    close = difflib.get_close_matches(key.lower(), list(CANONICAL), n=1, cutoff=0.75)
    return f" (did you mean {CANONICAL[close[0]]}?)" if close else ""


def line_violation(value: str) -> str | None:
    """Why `value` cannot sit on a slurm.conf line as one parameter's value, or None. The same rules
    hold for every config map (top level, a partition's, a node set's)."""
    if value == "":
        return "is empty; remove the key to keep Slurm's default"
    if any(ch in value for ch in "\n\r\x00"):
        return "must be one line (slurm.conf is line-based)"
    if "#" in value:
        return "cannot contain '#': it starts a comment in slurm.conf and would cut the value short"
    if value.endswith("\\"):
        # slurm.conf's parser joins a line ending in a backslash with the next one: the following
        # parameter (say Prolog=) would vanish into this value
        return (
            "cannot end with '\\': slurm.conf reads it as a line continuation, joining the next line (the next parameter) into this value"
        )
    if any(ch.isspace() for ch in value):
        # slurm.conf separates parameters by whitespace: "1 SlurmctldHost=x" would be two parameters.
        return "cannot contain spaces: slurm.conf separates parameters by whitespace, so the rest would be read as another parameter"
    return None


def _value_violations(key: str, value: str, path: str) -> list[Violation]:
    line = line_violation(value)
    if line:
        return [Violation(path, line)]
    special = _SPECIAL.get(key)
    if special is not None:
        rule = special(value)
        return [Violation(path, rule)] if rule else []
    rule = _by_kind(KIND.get(key, "string"), value)
    return [Violation(path, rule)] if rule else []


def _by_kind(kind: str, value: str) -> str | None:
    if kind in _UINT_MAX:
        return unsigned_violation(value, _UINT_MAX[kind], allow_k=kind != "uint16")
    if kind == "boolean" and value.lower() not in _BOOLEAN:
        return f"must be YES or NO (or true/false, up/down, 1/0); got {value!r}"
    return None


def unsigned_violation(value: str, maximum: int, allow_k: bool = True) -> str | None:
    if value.upper() in ("UNLIMITED", "INFINITE"):
        return None
    match = _NUMBER.fullmatch(value)
    if match is None or (match.group(2) and not allow_k):
        return f"must be a whole number from 0 to {maximum} (or UNLIMITED); got {value!r}"
    number = _as_int(value)
    if number > maximum:
        return f"must be at most {maximum}; got {value!r}"
    return None


def _priority_type(value: str) -> str | None:
    return None if value in _PRIORITY_TYPES else f"must be one of {', '.join(_PRIORITY_TYPES)}; got {value!r}"


def _preempt_type(value: str) -> str | None:
    return None if value in _PREEMPT_TYPES else f"must be one of {', '.join(_PREEMPT_TYPES)}; got {value!r}"


def preempt_mode_parts(value: str) -> tuple[list[str], list[str], list[str]]:
    """(base modes, flags, unknown words) of a PreemptMode value."""
    base, flags, unknown = [], [], []
    for word in value.split(","):
        low = word.strip().lower()
        if low in _PREEMPT_BASE:
            base.append(_PREEMPT_BASE[low])
        elif low in _PREEMPT_FLAGS:
            flags.append(_PREEMPT_FLAGS[low])
        else:
            unknown.append(word)
    return base, flags, unknown


def _preempt_mode(value: str) -> str | None:
    base, flags, unknown = preempt_mode_parts(value)
    if unknown:
        return (
            f"{unknown[0]!r} is not a preemption mode; use one of OFF, CANCEL, REQUEUE, SUSPEND, optionally with GANG, WITHIN or PRIORITY"
        )
    if len(base) > 1:
        return f"names {len(base)} modes ({', '.join(base)}); give one of OFF, CANCEL, REQUEUE, SUSPEND"
    if "GANG" in flags and ("WITHIN" in flags or "PRIORITY" in flags):
        return "GANG cannot be combined with WITHIN or PRIORITY"
    if base == ["SUSPEND"] and "GANG" not in flags:
        return "SUSPEND needs GANG too at the cluster level (PreemptMode=SUSPEND,GANG)"
    return None


def _exempt_time(value: str) -> str | None:
    if DURATION.fullmatch(value):
        return None
    return (
        "must be a time: minutes, minutes:seconds, hours:minutes:seconds, days-hours, days-hours:minutes "
        f"or days-hours:minutes:seconds (-1 disables it); got {value!r}"
    )


def _enforce(value: str) -> str | None:
    bad = [word for word in value.split(",") if word.strip().lower() not in _ENFORCE]
    if bad:
        return (
            f"{bad[0]!r} is not an enforcement level; use a comma-separated list of "
            "associations, limits, qos, safe, wckeys, all, nojobs, nosteps"
        )
    return None


def _tres_weights(value: str) -> str | None:
    if _TRES_WEIGHTS.fullmatch(value):
        return None
    return f"must be a comma-separated list of TRES=weight (e.g. CPU=1000,Mem=2000,GRES/gpu=3000); got {value!r}"


_SPECIAL = {
    "PriorityType": _priority_type,
    "PreemptType": _preempt_type,
    "PreemptMode": _preempt_mode,
    "PreemptExemptTime": _exempt_time,
    "AccountingStorageEnforce": _enforce,
    "PriorityWeightTRES": _tres_weights,
}


def _cross_key(config: Mapping[str, str], at) -> Iterator[Violation]:
    """Rules between keys that slurmctld checks at start-up (read_config.c)."""
    weights = {key: config[key] for key in _PRIORITY_WEIGHTS if key in config and unsigned_violation(config[key], 0xFFFFFFFF) is None}
    total = sum(_as_int(value) for value in weights.values())
    if total > 0xFFFFFFFF:
        yield Violation(
            ", ".join(at(key) for key in weights),
            f"the priority weights add up to {total}, more than 4294967295: job priorities would overflow",
        )
    if "PreemptMode" in config and _preempt_mode(config["PreemptMode"]) is None:
        yield from _preempt_pair(config, at)
    elif "PreemptMode" not in config and config.get("PreemptType") in ("preempt/partition_prio", "preempt/qos"):
        yield Violation(
            at("PreemptType"),
            f"{config['PreemptType']} needs PreemptMode set too (its default, OFF, is not compatible): CANCEL, REQUEUE or SUSPEND,GANG",
        )


def _preempt_pair(config: Mapping[str, str], at) -> Iterator[Violation]:
    base, _, _ = preempt_mode_parts(config["PreemptMode"])
    mode = base[0] if base else "OFF"
    preempt_type = config.get("PreemptType", "preempt/none")
    if preempt_type not in _PREEMPT_TYPES:
        return
    if preempt_type == "preempt/none" and mode != "OFF":
        yield Violation(
            at("PreemptMode"), f"{mode} needs a PreemptType (preempt/partition_prio or preempt/qos); without one preemption is off"
        )
    if preempt_type != "preempt/none" and mode == "OFF":
        yield Violation(at("PreemptMode"), f"OFF is not compatible with PreemptType={preempt_type}; use CANCEL, REQUEUE or SUSPEND,GANG")


def _as_int(value: str) -> int:
    if value.upper() in ("UNLIMITED", "INFINITE"):
        return 0xFFFFFFFF
    match = _NUMBER.fullmatch(value)
    assert match is not None
    text = match.group(1)
    number = int(text, 16) if text[:2].lower() == "0x" else int(text, 8) if len(text) > 1 and text.startswith("0") else int(text)
    return number * (1024 if match.group(2) else 1)
