"""The service's own rules, on botocore's `ParamValidator`: `violations()` (what `servicemodel.violations`
runs). Separate from `servicemodel` so that declaring a cluster, which needs neither botocore nor the
model, does not load the validator (and botocore with it).
"""

from __future__ import annotations

import difflib
import re
from functools import lru_cache
from typing import Any

import regex
from botocore.validate import ParamValidator, ValidationErrors, range_check

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.aws.memberkeys import fold
from pulumi_hyperpod.core.terminal import shown
from pulumi_hyperpod.core.timestamps import TimestampError, read_time


def _join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _describe(value: Any) -> str:
    text = repr(value[:80] if isinstance(value, str) else value)
    return text if len(text) <= 60 else text[:57] + "..."


def violations(target, params: Any, path: str = "", *, check_required: bool = True, allow_unknown: bool = False) -> list[Violation]:
    """Every way `params` breaks the model's rules for the shape `target` (botocore's Shape: a name is
    looked up by `servicemodel.violations`, which reads the model; these rules read only the shape).

    botocore's own `ParamValidator` walks the value (types, required and unknown members, tagged
    unions, `min`); `_ServiceRules` adds what only the service checks (`max`, enums, patterns).
    Each field stops at its first broken rule, so an over-long string is never matched against a
    pattern (a 10 MB ClusterName is refused on its length, in microseconds). `allow_unknown` is for
    responses, which a newer service version may give members this model does not know.
    """
    report = _Report(check_required, allow_unknown)
    _ServiceRules()._validate(params, target, report, path)
    return report.violations


@lru_cache(maxsize=512)
def _compiled(pattern: str) -> Any:
    """A pattern of the model, as `regex` reads it: the model is written for an engine with
    `\\p{L}`-style classes, which the standard library's `re` does not know."""
    return regex.compile(pattern)


# A pattern is only ever run on a string no longer than this when the model gives no `max`
# (one output member, PrivateDnsHostname): a backtracking engine's cost grows with the input.
_PATTERN_LENGTH_LIMIT = 4096


class _Report(ValidationErrors):
    """botocore's error collector, keeping our wording: one Violation (path, rule) per problem."""

    def __init__(self, check_required: bool, allow_unknown: bool = False):
        super().__init__()
        self.check_required = check_required
        self.allow_unknown = allow_unknown  # responses: a newer service (or AWS CLI) adds members
        self.violations: list[Violation] = []
        self.unit = "characters"  # what a length counts; set by the validator before botocore checks a size

    def report(self, name, reason, **details):
        path = name.removeprefix(".")
        rule = self._rule(path, reason, details)
        if rule is not None:
            self.violations.append(Violation(*rule) if isinstance(rule, tuple) else Violation(path, rule))

    def add(self, path: str, rule: str) -> None:
        self.violations.append(Violation(path, rule))

    def _rule(self, path: str, reason: str, details: dict):
        if reason == "missing required field":
            return (_join(path, details["required_name"]), "is required") if self.check_required else None
        if reason == "unknown field":
            if self.allow_unknown:
                return None
            return _unknown_rule(path, details["unknown_param"], details["valid_names"], details.get("user_params"))
        if reason == "invalid type":
            return _type_rule(details["param"], details["valid_types"])
        if reason == "invalid range":
            return f"must be at least {details['min_allowed']}; got {details['param']}"
        if reason == "invalid length":
            return f"must have at least {details['min_allowed']} {self.unit}; has {details['param']}"
        if reason in ("more than one input", "empty input"):
            return f"give exactly one of {', '.join(details['members'])}"
        return f"must be JSON data ({reason})"


def _unknown_rule(path: str, key: Any, allowed: list[str], params: Any):
    # the key is the user's own text: escaped here, so every reader of the path (CLI, provider
    # check failures the Pulumi CLI prints) shows `\x1b` rather than sending it to a terminal
    return (_join(path, shown(str(key), one_line=True)), f"is not a known field (allowed: {', '.join(allowed)})")


def _spellings(shape, params: dict) -> dict[str, list[str]]:
    """Members that `params` names more than once, each with the keys as written."""
    members = {fold(name): name for name in shape.members}
    found: dict[str, list[str]] = {}
    for key in params:
        if isinstance(key, str) and fold(key) in members:
            found.setdefault(members[fold(key)], []).append(key)
    return {name: keys for name, keys in found.items() if len(keys) > 1}


_TYPE_WORDS = {
    "int": "a whole number",
    "str": "a string",
    "bool": "true or false",
    "dict": "an object",
    "list": "a list",
    "datetime": "a timestamp",
}


def _type_rule(value: Any, valid_types: list[str]) -> str:
    names = [re.sub(r"^<class '(?:\w+\.)*(\w+)'>$", r"\1", t) for t in valid_types]
    wanted = next((_TYPE_WORDS[n] for n in names if n in _TYPE_WORDS), " or ".join(names))
    got = _describe(value) if isinstance(value, (bool, int, float)) else type(value).__name__
    return f"must be {wanted}, got {got}"


class _ServiceRules(ParamValidator):
    """botocore's ParamValidator plus the checks the service makes and botocore leaves to it."""

    def _validate(self, params, shape, errors, name):
        if params is None:  # JSON null / an empty YAML value: not set (required members: see below)
            return
        super()._validate(params, shape, errors, name)

    def _validate_structure(self, params, shape, errors, name):
        if isinstance(params, dict):
            params = self._one_spelling_each(params, shape, errors, name)
            if shape.is_tagged_union and params and all(value is None for value in params.values()):
                # botocore counts the keys of a union; a key set to null sets nothing
                errors.add(_path(name), f"must set exactly one of {', '.join(shape.members)}; {', '.join(map(str, params))} is null")
                return
            if errors.check_required:
                for member in shape.required_members:
                    if member in params and params[member] is None:
                        errors.report(name, "missing required field", required_name=member)
        super()._validate_structure(params, shape, errors, name)

    @staticmethod
    def _one_spelling_each(params: dict, shape, errors, name) -> dict:
        """A member given twice (`InstanceGroups` and `instance_groups`, which `spec.keys` keeps as
        written) is one problem naming both keys; the first spelling is validated on."""
        conflicts = _spellings(shape, params)
        if not conflicts:
            return params
        params = dict(params)
        for member, keys in conflicts.items():
            shown = " and as ".join(repr(key) for key in keys)
            errors.add(_join(_path(name), member), f"is given twice, as {shown}; keep one of the two keys")
            first = params[keys[0]]
            for key in keys:
                del params[key]
            params[member] = first
        return params

    def _validate_string(self, param, shape, errors, name):
        errors.unit = "characters"
        if not self._passes(super()._validate_string, param, shape, errors, name):
            return
        if self._too_big(len(param), shape, errors, name, "characters"):
            return
        if shape.enum and param not in shape.enum:
            errors.add(_path(name), _enum_rule(shape.enum, param))
            return
        pattern = shape.metadata.get("pattern")
        if pattern:  # an empty string too: most patterns need one character (VpcConfig Subnets [""])
            if "max" not in shape.metadata and len(param) > _PATTERN_LENGTH_LIMIT:
                errors.add(_path(name), f"must have at most {_PATTERN_LENGTH_LIMIT} characters; has {len(param)}")
            elif _compiled(pattern).fullmatch(param) is None:
                errors.add(_path(name), f"{_describe(param)} does not match the pattern {pattern}")

    def _validate_timestamp(self, param, shape, errors, name):
        # botocore's check lets dateutil's RuntimeError and the platform's OverflowError through
        # (`1e20`); the one reader (core/timestamps.py) range-checks into one rule
        try:
            read_time(param)
        except TimestampError as error:
            errors.add(_path(name), str(error))

    def _validate_integer(self, param, shape, errors, name):
        self._number(super()._validate_integer, "int", param, shape, errors, name)

    _validate_long = _validate_integer

    def _validate_double(self, param, shape, errors, name):
        self._number(super()._validate_double, "float", param, shape, errors, name)

    _validate_float = _validate_double

    def _number(self, check, python_type: str, param, shape, errors, name):
        if isinstance(param, bool):  # a bool is an int to Python, never to the service
            errors.report(name, "invalid type", param=param, valid_types=[f"<class '{python_type}'>"])
            return
        if self._passes(check, param, shape, errors, name):
            self._too_big(param, shape, errors, name, None)

    def _validate_list(self, param, shape, errors, name):
        # botocore skips the items of a list of unconstrained scalars (type only); the service checks
        # their max/enum/pattern too, so every item is validated here.
        if not self._container_fits(param, (list, tuple), "list", "items", shape, errors, name):
            return  # a list over its limit is one problem, not one per item
        for index, item in enumerate(param):
            if item is None:  # null as a member means "not set"; as an item it is a hole in the list
                errors.add(f"{_path(name)}[{index}]", "is null; remove the item or give a value")
                continue
            self._validate(item, shape.member, errors, f"{name}[{index}]")

    def _validate_map(self, param, shape, errors, name):
        if not self._container_fits(param, dict, "dict", "entries", shape, errors, name):
            return
        for key, value in param.items():
            where = f"{name}[{key!r}]"
            self._validate(key, shape.key, errors, where)
            self._validate(value, shape.value, errors, where)

    def _container_fits(self, param, types, python_type: str, unit: str, shape, errors, name) -> bool:
        """The right type and within its size limits (each one problem, reported); then its
        members are checked."""
        if not isinstance(param, types):
            errors.report(name, "invalid type", param=param, valid_types=[f"<class '{python_type}'>"])
            return False
        errors.unit = unit
        before = len(errors.violations)
        range_check(name, len(param), shape, "invalid length", errors)
        return len(errors.violations) == before and not self._too_big(len(param), shape, errors, name, unit)

    @staticmethod
    def _passes(check, param, shape, errors, name) -> bool:
        before = len(errors.violations)
        check(param, shape, errors, name)
        return len(errors.violations) == before

    @staticmethod
    def _too_big(size, shape, errors, name, unit: str | None) -> bool:
        maximum = shape.metadata.get("max")
        if maximum is None or size <= maximum:
            return False
        if unit is None:
            errors.add(_path(name), f"must be at most {maximum}; got {size}")
        else:
            errors.add(_path(name), f"must have at most {maximum} {unit}; has {size}")
        return True


def _path(name: str) -> str:
    return name.removeprefix(".")


def _enum_rule(allowed: list[str], value: str) -> str:
    if len(allowed) <= 12:
        return f"must be one of {', '.join(allowed)}; got {_describe(value)}"
    close = difflib.get_close_matches(value, allowed, n=3)
    hint = f" (did you mean {' or '.join(close)}?)" if close else ""
    return f"{_describe(value)} is not one of the {len(allowed)} values the service accepts{hint}"
