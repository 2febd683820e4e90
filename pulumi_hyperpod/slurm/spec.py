"""The Slurm side of a training cluster (seed 002's `slurmSpec`), cloud-neutral.

Seed 002's block loads unchanged: snake_case keys as the seed writes them, or lowerCamel as the
REST form spells them (both spellings of one field at once is an error naming both). HyperPod adds
one field the GCP service manages for you: `controller_node_pool_id`, the controller group.

Everything that can be checked without the cluster is checked here, all problems reported together
with their field paths; `references.reference_violations` checks the names against a cluster's
node pools / instance groups.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, model_validator

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.core.errors import SpecError
from pulumi_hyperpod.slurm.conf import canonical_key, config_violations, key_violation
from pulumi_hyperpod.core.documents import read_document

SUGGESTIONS = 50  # "did you mean" for at most this many keys (errors show 50 lines: core/errors.py SHOWN)


class SlurmSpecError(SpecError):
    """A Slurm spec that breaks one or more rules (a SpecError, so callers can catch both alike)."""

    kind = "Slurm spec"

    def _render(self) -> str:
        where = f" in {self.source}" if self.source else ""
        count = len(self.violations)
        lines = [f"{count} problem{'s' if count != 1 else ''} in the Slurm spec{where}:"]
        lines += [f"  - {v}" for v in self.violations]
        return "\n".join(lines)


# snake_case name -> lowerCamel name, per object.
_SPEC_FIELDS = {
    "partitions": "partitions",
    "default_partition_id": "defaultPartitionId",
    "login_node_pool_id": "loginNodePoolId",
    "controller_node_pool_id": "controllerNodePoolId",
    "home_directory_storage": "homeDirectoryStorage",
    "config": "config",
    "prolog_bash_scripts": "prologBashScripts",
    "epilog_bash_scripts": "epilogBashScripts",
}
_PARTITION_FIELDS = {"id": "id", "node_pool_ids": "nodePoolIds"}
_WRAPPERS = (("orchestratorSpec", "slurmSpec"), ("orchestrator_spec", "slurm_spec"), ("slurmSpec",), ("slurm_spec",))

_CONFIG = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True, slots=True)
class PartitionNames:
    """What a partition's id may be on one cloud: each cloud passes its own when it loads a Slurm
    spec (AWS: HyperPod's ClusterPartitionName from botocore's model, aws/slurm/hyperpod.py; Google
    Cloud: gcp/spec/names.py), so this layer reads no cloud's service model."""

    pattern: str  # matched whole, with `regex` (a service model's patterns use its dialect)
    maximum: int  # characters
    words: str  # the pattern for people: "letters and digits, single or repeated '-' between them"
    source: str  # where the rule comes from: "HyperPod's PartitionName pattern"


_RULE = "partition_names"  # the key of the rule in pydantic's validation context


def _rule(info: ValidationInfo) -> PartitionNames:
    rule = (info.context or {}).get(_RULE)
    if not isinstance(rule, PartitionNames):
        raise TypeError("a Slurm spec is loaded with its cloud's partition-name rule: SlurmSpec.from_dict(..., partition_names=...)")
    return rule


class Partition(BaseModel):
    model_config = _CONFIG

    id: str
    node_pool_ids: tuple[str, ...]


@dataclass(frozen=True)
class HomeStorage:
    """Where /home lives, parsed from `home_directory_storage`.

    kind "filestore": a Filestore instance (GCP), `projects/P/locations/L/instances/I`;
    kind "fsx_lustre": FSx for Lustre as its mount target `DNS_NAME@tcp:/MOUNT_NAME`;
    kind "fsx_openzfs": FSx for OpenZFS as its NFS export `DNS_NAME:/fsx`.
    """

    kind: Literal["filestore", "fsx_lustre", "fsx_openzfs"]
    address: str
    mount_name: str | None = None


_HOST = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*"
_FILESTORE = re.compile(r"projects/[^/\s]+/locations/[^/\s]+/instances/[^/\s]+")
_LUSTRE = re.compile(rf"({_HOST})@tcp:/([A-Za-z0-9]+)")
_OPENZFS = re.compile(rf"({_HOST}):/fsx")
HOME_STORAGE_FORMS = (
    "projects/PROJECT/locations/LOCATION/instances/INSTANCE (Filestore), "
    "DNS_NAME@tcp:/MOUNT_NAME (FSx for Lustre) or DNS_NAME:/fsx (FSx for OpenZFS)"
)


def parse_home_storage(value: str) -> HomeStorage | None:
    if _FILESTORE.fullmatch(value):
        return HomeStorage("filestore", value)
    if match := _LUSTRE.fullmatch(value):
        return HomeStorage("fsx_lustre", match.group(1), match.group(2))
    if match := _OPENZFS.fullmatch(value):
        return HomeStorage("fsx_openzfs", match.group(1))
    return None


class SlurmSpec(BaseModel):
    """Partitions, login pool, shared home, slurm.conf parameters and job prolog/epilog scripts."""

    model_config = _CONFIG

    partitions: tuple[Partition, ...]
    default_partition_id: str | None = None
    login_node_pool_id: str | None = None
    controller_node_pool_id: str | None = None
    home_directory_storage: str | None = None
    config: dict[str, str] = Field(default_factory=dict)
    prolog_bash_scripts: tuple[str, ...] = ()
    epilog_bash_scripts: tuple[str, ...] = ()

    @model_validator(mode="before")
    @classmethod
    def _validate(cls, data: Any, info: ValidationInfo) -> Any:
        if isinstance(data, BaseModel):
            return data
        normalized, problems = _normalize(data, _rule(info))
        if problems:
            raise SlurmSpecError(problems)
        return normalized

    # ---- construction ----------------------------------------------------------------------
    @classmethod
    def from_dict(cls, data: Any, source: str | None = None, *, partition_names: PartitionNames) -> SlurmSpec:
        """The `slurmSpec` block itself, or a document holding it (`orchestratorSpec.slurmSpec`);
        `partition_names`: the loading cloud's rule for a partition's id."""
        data, prefix = _unwrap(data)
        try:
            return cls.model_validate(data, context={_RULE: partition_names})
        except SlurmSpecError as error:
            raise SlurmSpecError([_prefixed(v, prefix) for v in error.violations], source=source) from None

    @classmethod
    def from_file(cls, path: str | Path, *, partition_names: PartitionNames) -> SlurmSpec:
        """JSON or YAML (the same reader, limits and YAML 1.2 meaning as a cluster spec)."""
        path = Path(path)
        data = read_document(path, SlurmSpecError)
        return cls.from_dict(data, source=str(path), partition_names=partition_names)

    # ---- views -------------------------------------------------------------------------------
    @property
    def default_partition(self) -> str:
        """The partition jobs run in without --partition (seed 002: the first one unless set)."""
        return self.default_partition_id or self.partitions[0].id

    @property
    def home_storage(self) -> HomeStorage | None:
        return parse_home_storage(self.home_directory_storage) if self.home_directory_storage else None

    def partitions_of(self, pool: str) -> tuple[str, ...]:
        return tuple(p.id for p in self.partitions if pool in p.node_pool_ids)

    def pool_partitions(self) -> dict[str, tuple[str, ...]]:
        """pool -> the partitions naming it, in one pass: for callers that ask about every pool
        (asking `partitions_of` per pool would be quadratic in a large spec)."""
        found: dict[str, list[str]] = {}
        for partition in self.partitions:
            for pool in dict.fromkeys(partition.node_pool_ids):
                found.setdefault(pool, []).append(partition.id)
        return {pool: tuple(ids) for pool, ids in found.items()}

    def compute_pools(self) -> tuple[str, ...]:
        """Every node pool some partition names, in first-mention order."""
        return tuple(dict.fromkeys(pool for p in self.partitions for pool in p.node_pool_ids))

    def referenced_pools(self) -> dict[str, str]:
        """pool name -> the field path that names it first (for reference checks)."""
        found: dict[str, str] = {}
        for i, partition in enumerate(self.partitions):
            for j, pool in enumerate(partition.node_pool_ids):
                found.setdefault(pool, f"partitions[{i}].node_pool_ids[{j}]")
        for name in ("login_node_pool_id", "controller_node_pool_id"):
            if getattr(self, name):
                found.setdefault(getattr(self, name), name)
        return found

    def to_dict(self, style: Literal["snake", "camel"] = "snake") -> dict[str, Any]:
        """The spec as data, keys spelled as seed 002 writes them (snake) or lowerCamel; unset
        fields left out. `SlurmSpec.from_dict(spec.to_dict(style))` gives the same spec."""
        data = self.model_dump(mode="json", exclude_none=True)
        for name in ("prolog_bash_scripts", "epilog_bash_scripts", "config"):
            if not data.get(name):
                data.pop(name, None)
        if style == "snake":
            return data
        data["partitions"] = [{_PARTITION_FIELDS[k]: v for k, v in p.items()} for p in data["partitions"]]
        return {_SPEC_FIELDS[k]: v for k, v in data.items()}


# ---- normalization and checks ------------------------------------------------------------------


def _unwrap(data: Any) -> tuple[Any, str]:
    if not isinstance(data, dict) or "partitions" in data:
        return data, ""
    for chain in _WRAPPERS:
        inner, path = data, []
        for key in chain:
            if not isinstance(inner, dict) or key not in inner:
                break
            inner, path = inner[key], [*path, key]
        else:
            return inner, ".".join(path)
    return data, ""


def _prefixed(violation: Violation, prefix: str) -> Violation:
    if not prefix:
        return violation
    return Violation(f"{prefix}.{violation.path}" if violation.path else prefix, violation.rule)


def _normalize(data: Any, names: PartitionNames) -> tuple[dict[str, Any], list[Violation]]:
    if not isinstance(data, dict):
        return {}, [Violation("", f"a Slurm spec is an object; got {type(data).__name__}")]
    fields, written, problems = _fold_keys(data, _SPEC_FIELDS, "")
    result: dict[str, Any] = {}
    if "partitions" not in fields:
        problems.append(Violation("partitions", "is required: a list of {id, node_pool_ids} (at least one partition)"))
    else:
        result["partitions"] = _partitions(fields["partitions"], written["partitions"], names, problems)
    for name in ("default_partition_id", "login_node_pool_id", "controller_node_pool_id", "home_directory_storage"):
        if name in fields and fields[name] is not None:
            result[name] = _name(fields[name], written[name], problems)
    if fields.get("config") is not None:
        result["config"] = _config(fields["config"], written["config"], problems)
    for name in ("prolog_bash_scripts", "epilog_bash_scripts"):
        if fields.get(name) is not None:
            result[name] = _scripts(fields[name], written[name], problems)
    problems += list(_cross_field(result, written))
    return result, problems


def _fold_keys(data: dict, names: dict[str, str], at: str) -> tuple[dict[str, Any], dict[str, str], list[Violation]]:
    """Keys of one object mapped to snake_case; `written` keeps each field's path as the user spelled it."""
    by_spelling = {spelling: snake for snake, camel in names.items() for spelling in {snake, camel}}
    fields: dict[str, Any] = {}
    written: dict[str, str] = {}
    problems: list[Violation] = []
    for key, value in data.items():
        where = f"{at}.{key}" if at else str(key)
        snake = by_spelling.get(key) if isinstance(key, str) else None
        if snake is None:
            problems.append(
                Violation(
                    where,
                    f"is not a field of {'a partition' if names is _PARTITION_FIELDS else 'the Slurm spec'}"
                    f"{_close_field(key, by_spelling)}",
                )
            )
        elif snake in fields:
            problems.append(
                Violation(where, f"{written[snake].rsplit('.', 1)[-1]!r} and {key!r} are the same field spelled two ways; give it once")
            )
        else:
            fields[snake], written[snake] = value, where
    return fields, written, problems


def _close_field(key: Any, spellings: Mapping[str, str]) -> str:
    import difflib  # noqa: PLC0415 - difflib: the hint of an error message only

    if len(str(key)) > 64:  # difflib's cost grows with the text: no field name is this long
        return f"; fields are {', '.join(sorted(set(spellings.values())))}"
    close = difflib.get_close_matches(str(key), list(spellings), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else f"; fields are {', '.join(sorted(set(spellings.values())))}"


def _name(value: Any, where: str, problems: list[Violation]) -> str | None:
    if not isinstance(value, str) or not value.strip():
        problems.append(Violation(where, f"must be a non-empty string; got {_describe(value)}"))
        return None
    if value != value.strip() or any(ch.isspace() for ch in value):
        problems.append(Violation(where, f"cannot contain spaces; got {value!r}"))
    return value


def _partitions(value: Any, where: str, names: PartitionNames, problems: list[Violation]) -> list[dict[str, Any]]:
    if not isinstance(value, list) or not value:
        problems.append(Violation(where, f"must be a list of at least one partition {{id, node_pool_ids}}; got {_describe(value)}"))
        return []
    result = []
    for index, item in enumerate(value):
        at = f"{where}[{index}]"
        if not isinstance(item, dict):
            problems.append(Violation(at, f"a partition is an object {{id, node_pool_ids}}; got {_describe(item)}"))
            continue
        fields, written, found = _fold_keys(item, _PARTITION_FIELDS, at)
        problems += found
        partition: dict[str, Any] = {}
        for name in ("id", "node_pool_ids"):
            if name not in fields:
                problems.append(Violation(f"{at}.{name}", "is required"))
        if "id" in fields:
            partition["id"] = _partition_id(fields["id"], written["id"], names, problems)
        if "node_pool_ids" in fields:
            partition["node_pool_ids"] = _pool_list(fields["node_pool_ids"], written["node_pool_ids"], problems)
        result.append(partition)
    return result


def _partition_id(value: Any, where: str, names: PartitionNames, problems: list[Violation]) -> Any:
    import regex  # noqa: PLC0415 - regex: the model's pattern dialect, only where a value is checked against it

    if not isinstance(value, str) or not value:
        problems.append(Violation(where, f"must be a non-empty string; got {_describe(value)}"))
    elif len(value) > names.maximum or not regex.fullmatch(names.pattern, value):
        problems.append(
            Violation(
                where,
                f"{value!r} is not a valid partition name: {names.words}, at most {names.maximum} characters "
                f"({names.source} {names.pattern})",
            )
        )
    elif value.lower() == "default":
        problems.append(Violation(where, "'DEFAULT' is reserved in slurm.conf (PartitionName=DEFAULT sets defaults for all partitions)"))
    return value


def _pool_list(value: Any, where: str, problems: list[Violation]) -> list[Any]:
    if not isinstance(value, list) or not value:
        problems.append(Violation(where, f"must be a list of at least one node pool id; got {_describe(value)}"))
        return []
    for index, pool in enumerate(value):
        _name(pool, f"{where}[{index}]", problems)
    counts = Counter(p for p in value if isinstance(p, str))  # one pass: a list of 20,000 pools stays fast
    for dup in sorted(p for p, count in counts.items() if count > 1):
        problems.append(Violation(where, f"{dup!r} is listed more than once"))
    return value


def _config(value: Any, where: str, problems: list[Violation]) -> dict[str, str]:
    if not isinstance(value, dict):
        problems.append(Violation(where, f"must be an object of slurm.conf parameter -> value; got {_describe(value)}"))
        return {}
    config: dict[str, str] = {}
    written: dict[str, str] = {}
    suggested = 0
    for key, item in value.items():
        at = f"{where}.{key}"
        if not isinstance(key, str):
            problems.append(Violation(at, "a slurm.conf parameter name is a string"))
            continue
        # a "did you mean" costs a fuzzy match over ~500 names: only for as many keys as are shown
        refused = key_violation(key, at, suggest=suggested < SUGGESTIONS)
        suggested += refused is not None
        if refused:
            problems.append(refused)
            continue
        name = canonical_key(key) or key
        if name in config:
            problems.append(
                Violation(at, f"{written[name]!r} and {key!r} are the same slurm.conf parameter (names are case-insensitive); give it once")
            )
            continue
        text = _config_value(item, at, problems)
        if text is not None:
            config[name], written[name] = text, key
    problems += config_violations(config, where, spelled=written)
    return config


def _config_value(value: Any, where: str, problems: list[Violation]) -> str | None:
    # YAML turns `yes` into True and `00:10:00` into a number of seconds: values are strings, and
    # whole numbers are the one non-string accepted (YAML users write PriorityWeightAge: 1000).
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        problems.append(Violation(where, f"a slurm.conf value is a string (quote it in YAML); got {_describe(value)}"))
        return None
    return str(value)


def _scripts(value: Any, where: str, problems: list[Violation]) -> list[str]:
    if not isinstance(value, list):
        problems.append(Violation(where, f"must be a list of bash scripts (each the full text of a script); got {_describe(value)}"))
        return []
    for index, script in enumerate(value):
        if not isinstance(script, str) or not script.strip():
            problems.append(Violation(f"{where}[{index}]", f"must be the non-empty text of a bash script; got {_describe(script)}"))
        elif "\x00" in script:
            problems.append(Violation(f"{where}[{index}]", "contains a NUL character"))
    return value


def _cross_field(spec: dict[str, Any], written: dict[str, str]) -> Iterator[Violation]:
    partitions = spec.get("partitions") or []
    ids = [p.get("id") for p in partitions]
    where = written.get("partitions", "partitions")
    first: dict[str, int] = {}
    for index, pid in enumerate(ids):
        if isinstance(pid, str) and first.setdefault(pid, index) != index:
            yield Violation(f"{where}[{index}].id", f"{pid!r} is already the id of {where}[{first[pid]}]; partition ids must be unique")
    default = spec.get("default_partition_id")
    if isinstance(default, str) and ids and default not in first:
        yield Violation(
            written["default_partition_id"], f"{default!r} is not one of the partitions ({', '.join(map(repr, dict.fromkeys(ids)))})"
        )
    pools = {pool: f"{where}[{i}]" for i, p in enumerate(partitions) for pool in p.get("node_pool_ids", []) if isinstance(pool, str)}
    for name, role in (("login_node_pool_id", "login"), ("controller_node_pool_id", "controller")):
        pool = spec.get(name)
        if isinstance(pool, str) and pool in pools:
            yield Violation(written[name], f"{pool!r} is in partition {pools[pool]}; the {role} pool cannot be in a partition")
    login, controller = spec.get("login_node_pool_id"), spec.get("controller_node_pool_id")
    if login is not None and login == controller:
        yield Violation(
            written["controller_node_pool_id"], f"{controller!r} is also the login pool; the controller needs a pool of its own"
        )
    home = spec.get("home_directory_storage")
    if isinstance(home, str) and parse_home_storage(home) is None:
        yield Violation(written["home_directory_storage"], f"{home!r} is not a storage this can mount as /home; give {HOME_STORAGE_FORMS}")


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, (list, dict)) and not value:
        return f"an empty {'list' if isinstance(value, list) else 'object'}"
    return f"{type(value).__name__} {value!r}" if not isinstance(value, (list, dict)) else type(value).__name__
