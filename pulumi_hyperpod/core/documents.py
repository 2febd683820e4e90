"""Reading a file a user hands us (cluster spec, policy, snapshot) into plain data, safely.

- Size: a file larger than `MAX_BYTES[kind]` is refused before it is parsed (a 20 MB YAML once
  took minutes and gigabytes).
- Form: `.json`, `.yaml` or `.yml`; a directory, a missing/unreadable/empty/binary file is one
  clear error.
- YAML means YAML 1.2 (core schema), whatever a YAML 1.1 reader would make of it: `010`, `1:20`,
  `0b11`, `1_000`, `yes`/`no`/`on`/`off` are not numbers or booleans. A decimal with a leading zero
  (`010`) is refused outright: YAML 1.1 tools read it as octal 8, YAML 1.2 as 10, JSON not at all.
- Structure: a key twice in one mapping, nesting deeper than `MAX_DEPTH`, aliases that expand the
  document far beyond its written size ("billion laughs"), and self-referencing aliases are refused.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, ClassVar

import yaml

from pulumi_hyperpod.core.files import read_bounded
from pulumi_hyperpod.core.errors import InputError, SpecError, Violation

MiB = 1024 * 1024
# A spec of 100 groups is ~200 KB; a snapshot lists every node (~500 bytes each) of up to
# 100 groups, so it gets more room.
MAX_BYTES = {
    "cluster spec": 5 * MiB,
    "policy": 5 * MiB,
    "snapshot": 64 * MiB,
    "lifecycle parameters": 1 * MiB,  # provisioning_parameters.json: a few hundred bytes
    "saved plan": 64 * MiB,
}  # a plan of thousands of nodes, with the snapshot it was made from
SUFFIXES = (".json", ".yaml", ".yml")


def max_bytes(kind: str) -> int:
    """The size limit of a kind of file; every other spec (Slurm, GCP) is limited like a cluster spec."""
    return MAX_BYTES.get(kind, MAX_BYTES["cluster spec"])


MAX_DEPTH = 64  # a cluster spec is ~8 levels deep
_MIN_EXPANSION_ALLOWED = 100_000  # nodes an alias-using YAML may expand to, at least
_EXPANSION_FACTOR = 10  # … or this many times the nodes written


def read_document(path: str | Path, error: type[InputError] = SpecError) -> Any:
    """The parsed content of `path`; any problem raises `error` naming the file."""
    path = Path(path)
    source = str(path)
    try:
        data = parse_document(_read_text(path, error.kind), path.suffix, kind=error.kind)
    except InputError as problem:
        raise error(problem.violations, source=source) from None
    return data


def read_object_document(raw: bytes, source: str, error: type[InputError] = SpecError, suffix: str = ".json") -> Any:
    """The parsed content of bytes read from elsewhere (an S3 object, read with at most
    `max_bytes(error.kind) + 1` bytes): the same rules as a file; any problem raises `error` naming `source`."""
    try:
        return parse_document(_text(raw, error.kind), suffix, kind=error.kind)
    except InputError as problem:
        raise error(problem.violations, source=source) from None


def _text(raw: bytes, kind: str) -> str:
    def refuse(rule: str) -> InputError:
        return InputError([Violation("", rule)])

    limit = max_bytes(kind)
    if len(raw) > limit:
        raise refuse(f"larger than {_size(limit)}, the most a {kind} file may be")
    if b"\x00" in raw:
        raise refuse("cannot read it: it is binary, not JSON or YAML text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise refuse(f"cannot read it: not UTF-8 text (byte {problem.start})") from None


def _size(limit: int) -> str:
    return f"{limit // MiB} MiB" if limit >= MiB else f"{limit} bytes"


def _read_text(path: Path, kind: str) -> str:
    def refuse(rule: str) -> InputError:
        return InputError([Violation("", rule)])

    if path.is_dir():
        raise refuse(f"is a directory; give the {kind} file itself")
    if path.suffix.lower() not in SUFFIXES:
        raise refuse(f"a {kind} file is JSON or YAML: its name ends in .json, .yaml or .yml (got {path.suffix or 'no extension'!r})")
    limit = max_bytes(kind)
    try:
        raw = read_bounded(path, limit)
    except FileNotFoundError:
        raise refuse("no such file") from None
    except PermissionError:
        raise refuse("cannot read the file: permission denied") from None
    except OSError as problem:
        raise refuse(f"cannot read the file: {problem.strerror or problem}") from None
    if len(raw) > limit:
        raise refuse(f"the file is larger than {limit // MiB} MiB, the most a {kind} file may be")
    if b"\x00" in raw:
        raise refuse("cannot read the file: it is binary, not JSON or YAML text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise refuse(f"cannot read the file: not UTF-8 text (byte {problem.start})") from None


def parse_document(text: str, suffix: str = "", kind: str = "cluster spec") -> Any:
    """JSON (`.json`) or YAML 1.2 text to data. Raises SpecError (a subclass of InputError)."""
    if len(text) > max_bytes(kind):
        raise SpecError([Violation("", f"the document is larger than {max_bytes(kind) // MiB} MiB, the most a {kind} may be")])
    if not text.strip():
        raise SpecError([Violation("", "the file is empty")])
    if suffix.lower() == ".json":
        data = _parse_json(text)
    else:
        data = _parse_yaml(text)
    _check_depth(data)
    return data


class _DuplicateKey(Exception):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = {}
    for key, value in pairs:
        if key in data:
            raise _DuplicateKey(key)
        data[key] = value
    return data


def _parse_json(text: str) -> Any:
    def refuse(rule: str) -> InputError:
        return SpecError([Violation("", f"not valid JSON: {rule}")])

    try:
        return json.loads(text, object_pairs_hook=_no_duplicate_keys)
    except json.JSONDecodeError as error:
        raise refuse(f"{error.msg} at line {error.lineno} column {error.colno}") from None
    except _DuplicateKey as error:
        raise refuse(f"the key {error.args[0]!r} appears twice in one object") from None
    except RecursionError:
        raise refuse(f"nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as error:  # Python's guard on huge integers ("Exceeds the limit (4300 digits)")
        raise refuse(_number_rule(error)) from None


def _number_rule(error: ValueError) -> str:
    return f"a number too long to read ({str(error).split(':')[0]})"


def _parse_yaml(text: str) -> Any:
    def refuse(rule: str) -> InputError:
        return SpecError([Violation("", f"not valid YAML or JSON{rule}")])

    loader = _Yaml12Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        if "*" in text:  # every alias is written `*name`; without one there is nothing to expand
            _check_aliases(node)
        return loader.construct_document(node)
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise refuse(f"{where}: {getattr(error, 'problem', None) or error}") from None
    except RecursionError:
        raise refuse(f": nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as error:
        raise refuse(f": {_number_rule(error)}") from None
    finally:
        loader.dispose()


def _check_depth(data: Any) -> None:
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise SpecError([Violation("", f"nested too deeply (more than {MAX_DEPTH} levels)")])
            children = value.values() if isinstance(value, dict) else value
            stack.extend((child, depth + 1) for child in children)


def _check_aliases(root: yaml.Node) -> None:
    """Refuse aliases that point into their own node (a cycle), or that multiply the document's
    size (each alias is a reference: cheap to parse, exponential to walk)."""
    expanded: dict[int, int] = {}
    written: set[int] = set()
    on_path: set[int] = set()

    def size(node: yaml.Node, depth: int) -> int:
        key = id(node)
        if key in on_path:
            raise _refusal(node, "an alias refers to a node that contains it")
        if key in expanded:
            return expanded[key]
        if depth > MAX_DEPTH:
            raise _refusal(node, f"nested too deeply (more than {MAX_DEPTH} levels)")
        written.add(key)
        on_path.add(key)
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k, depth + 1) + size(v, depth + 1) for k, v in node.value)
        on_path.discard(key)
        expanded[key] = total
        return total

    total = size(root, 1)
    allowed = max(_MIN_EXPANSION_ALLOWED, _EXPANSION_FACTOR * len(written))
    if total > allowed:
        raise _refusal(root, f"aliases expand the document to {total} values ({len(written)} written); write the values out instead")


def _refusal(node: yaml.Node, rule: str) -> yaml.YAMLError:
    return yaml.constructor.ConstructorError(None, None, rule, node.start_mark)


# ---- YAML 1.2 core schema ------------------------------------------------------------------------
_Base: Any = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when present: ~10x faster

# The core schema's regular expressions (YAML 1.2.2, 10.3.2); PyYAML matches from the start, so
# they are anchored at both ends.
_INT = re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$")
_FLOAT = re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$")
_BOOL = re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$")
_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")


class _Yaml12Loader(_Base):  # type: ignore[misc]  # libyaml or pure Python, chosen at import
    """A safe loader (no Python tags) that reads plain scalars as YAML 1.2's core schema does,
    refuses a key given twice in one mapping, and keeps merge keys (`<<: *defaults`)."""

    yaml_implicit_resolvers: ClassVar[dict[str, Any]] = {}  # PyYAML reads its resolvers from the class

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[Any] = set()
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue  # `<<: *defaults`, flattened by the base class
                key = self.construct_object(key_node, deep=deep)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:  # an unhashable key: the base class reports it
                    continue
                if duplicate:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"the key {key!r} appears twice in one mapping", key_node.start_mark
                    )
        return super().construct_mapping(node, deep)

    def construct_yaml_int(self, node: yaml.ScalarNode) -> int:
        value = self.construct_scalar(node)
        digits = value.lstrip("+-")
        if value.startswith("0o"):
            return int(value[2:], 8)
        if value.startswith("0x"):
            return int(value[2:], 16)
        if len(digits) > 1 and digits.startswith("0"):
            octal = f"the octal number {int(value, 8)}" if set(digits) <= set("01234567") else "text"
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"the number {value} is ambiguous: YAML 1.1 reads it as {octal}, YAML 1.2 as "
                f"{int(value)}; write {int(value)} (or quote it for text)",
                node.start_mark,
            )
        return int(value)

    def construct_yaml_float(self, node: yaml.ScalarNode) -> float:
        value = self.construct_scalar(node).lower()
        if value.endswith(".inf"):
            return float("-inf") if value.startswith("-") else float("inf")
        if value == ".nan":
            return float("nan")
        return float(value)

    def construct_yaml_bool(self, node: yaml.ScalarNode) -> bool:
        return str(self.construct_scalar(node)).lower() == "true"


_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:bool", _BOOL, list("tTfF"))
_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:int", _INT, list("-+0123456789"))
_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT, list("-+.0123456789"))
_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:null", _NULL, ["~", "n", "N", ""])
_Yaml12Loader.add_implicit_resolver("tag:yaml.org,2002:merge", re.compile(r"^<<$"), ["<"])
_Yaml12Loader.add_constructor("tag:yaml.org,2002:int", _Yaml12Loader.construct_yaml_int)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:float", _Yaml12Loader.construct_yaml_float)
_Yaml12Loader.add_constructor("tag:yaml.org,2002:bool", _Yaml12Loader.construct_yaml_bool)
