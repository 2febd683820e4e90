"""The Policy dataclass validates, refuses and serializes exactly as the pydantic model it replaced
(tests/support/policy_oracle.py, the old model copied): same values, same errors (loc, msg, type),
same dumps, for generated policies, valid and not. The defaults skip the model: see
tests/unit/provider/test_policy_defaults_lean.py for a fresh process."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import pickle
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pydantic
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.plans.policy import DEFAULTS, Policy, validator
from tests.support import policy_oracle

Oracle = policy_oracle.Policy
PROPERTY = dict(deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])

IDS = st.sampled_from(
    ["i-0123456789abcdef0", "i-0123abcd", "worker-1", "ip-10-1-2-3", "i-xyz", "I-0123ABCD", "bad id", "-a", "a", "", "i-0fffffffffffffff0"]
)
ID_SETS = st.one_of(
    st.lists(IDS, max_size=3),
    st.frozensets(IDS, max_size=3),
    st.sets(IDS, max_size=3),
    st.tuples(IDS, IDS),
    st.lists(st.integers(0, 3), min_size=1, max_size=2),
    st.just("i-0123abcd"),
    st.none(),
)
NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(-0.5, 1.5),
    st.integers(-3, 120),
    st.booleans(),
    st.sampled_from(["0.5", "1", "", "abc", 1 + 0j, 0.9 + 0j, Fraction(1), Decimal("0.9")]),  # 1 + 0j == 1.0, yet no float
    st.none(),
)
FLAGS = st.one_of(st.booleans(), st.integers(-1, 2), st.sampled_from(["true", "yes", "False", "0"]), st.floats(0, 1), st.none())
DEPLOYMENTS = st.one_of(
    st.none(),
    st.sampled_from(
        [
            {},
            {"WaitIntervalInSeconds": 60},
            {"WaitIntervalInSeconds": -1},
            {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 2}}},
            {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "SOMETHING", "Value": 2}}},
            {"Bogus": 1},
        ]
    ),
    st.just("not a config"),
    st.lists(st.integers(), max_size=1),
)


def _literal(*valid: str) -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from([*valid, valid[0].upper(), "evict", ""]), st.integers(0, 1), st.none())


FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "protected_node_ids": ID_SETS,
    "max_scale_in_fraction": NUMBERS,
    "allow_controller_scale_in": FLAGS,
    "allow_login_scale_in": FLAGS,
    "allow_replacement": FLAGS,
    "max_nodes_per_delete_call": NUMBERS,
    "max_hourly_cost_increase": NUMBERS,
    "quota_warning_margin": NUMBERS,
    "scale_in_order": _literal("workload", "state", "oldest", "newest"),
    "remove_first": ID_SETS,
    "drain": _literal("none", "cordon", "drain"),
    "drain_timeout": st.one_of(NUMBERS, st.sampled_from([7 * 86400, 7 * 86400 + 1, 0.001])),
    "drain_deadline": _literal("stop", "delete"),
    "software_deployment": DEPLOYMENTS,
    "max_unavailable_fraction": NUMBERS,
    "allow_login_disruption": FLAGS,
    "allow_controller_disruption": FLAGS,
    "failed_nodes": _literal("delete", "replace", "leave"),
    "canary_nodes": NUMBERS,
    "replace_node_ids": ID_SETS,
    "reboot_node_ids": ID_SETS,
    # not fields: refused as extra inputs
    "bogus": st.integers(),
    "drainTimeout": st.integers(),
    "self": st.integers(),  # a keyword like any other (pydantic's `self` is positional-only)
}
# mostly the defaults (with their own types, or another type of the same value), a few values changed
DEFAULTISH = {name: st.sampled_from([value, *([[], set()] if isinstance(value, frozenset) else [])]) for name, value in DEFAULTS.items()}
# one id both removed first and protected: the model's own rule across fields
CONFLICTS = st.builds(
    lambda ids, more: {"remove_first": ids, "protected_node_ids": ids, **more},
    st.lists(IDS, min_size=1, max_size=2),
    st.fixed_dictionaries({}, optional=DEFAULTISH),
)
POLICIES = st.one_of(
    st.fixed_dictionaries({}, optional=FIELDS),
    CONFLICTS,
    st.fixed_dictionaries({}, optional=DEFAULTISH),
    st.builds(
        lambda base, more: {**base, **more}, st.fixed_dictionaries({}, optional=DEFAULTISH), st.fixed_dictionaries({}, optional=FIELDS)
    ),
)


def _typed(value: Any) -> Any:
    """A value with its type (1 and 1.0 differ in a dump), NaN equal to itself."""
    if isinstance(value, float) and math.isnan(value):
        return (float, "nan")
    return (type(value), value)


def outcome(make: Any) -> tuple[Any, ...]:
    """What a construction gives: the values and every serialized form, or the errors."""
    try:
        policy = make()
    except pydantic.ValidationError as error:
        return ("refused", error.title, [(problem["loc"], problem["msg"], problem["type"]) for problem in error.errors()])
    return (
        "made",
        {name: _typed(getattr(policy, name)) for name in DEFAULTS},
        policy.model_dump(mode="json", exclude_defaults=True),
        policy.model_dump(mode="json"),
        policy.model_dump(exclude_defaults=True),
        policy.model_dump_json(),
        repr(policy),
        str(policy),
    )


def _same_as_oracle(make_new: Any, make_old: Any) -> tuple[Any, ...]:
    new, old = outcome(make_new), outcome(make_old)
    assert new == old
    return new


@settings(max_examples=400, **PROPERTY)
@given(POLICIES)
def test_a_policy_is_made_or_refused_as_the_pydantic_model_did(data):
    _same_as_oracle(lambda: Policy(**data), lambda: Oracle(**data))
    _same_as_oracle(lambda: Policy.model_validate(data), lambda: Oracle.model_validate(data))


def _jsonable(value: Any) -> Any:
    return sorted(value, key=str) if isinstance(value, (set, frozenset)) else str(value)


@settings(max_examples=200, **PROPERTY)
@given(POLICIES)
def test_a_policy_file_is_read_strictly_as_the_pydantic_model_did(data):
    text = json.dumps(data, default=_jsonable)  # the CLI's path: JSON, strict (cli/common.py)
    _same_as_oracle(lambda: Policy.model_validate_json(text, strict=True), lambda: Oracle.model_validate_json(text, strict=True))


@pytest.mark.parametrize("value", [None, [], "policy", 3, ["allow_replacement"], {"allow_replacement": True}.items()])
def test_what_is_not_an_object_is_refused_as_before(value):
    assert _same_as_oracle(lambda: Policy.model_validate(value), lambda: Oracle.model_validate(value))[0] == "refused"


def test_the_defaults_are_the_models_and_dump_as_they_did():
    made = _same_as_oracle(Policy, Oracle)
    assert made[2] == {} and Policy() == Policy.model_validate({}) == Policy(drain="none", remove_first=frozenset())
    assert Policy.model_validate(Policy()) == Policy()


def test_a_dump_of_the_defaults_is_the_callers_own():
    dumped = Policy().model_dump(mode="json")
    dumped["protected_node_ids"].append("i-0123abcd")
    assert Policy().model_dump(mode="json")["protected_node_ids"] == []


def test_the_model_is_built_from_the_dataclass_with_the_old_fields_and_schema():
    assert list(Policy.model_fields) == list(Oracle.model_fields) == list(DEFAULTS)
    for name, old in Oracle.model_fields.items():
        new = Policy.model_fields[name]
        assert (new.annotation, new.default, new.description, new.metadata) == (old.annotation, old.default, old.description, old.metadata)
    assert validator().model_json_schema() == Oracle.model_json_schema()
    assert validator() is validator()  # built once


def test_a_list_of_ids_is_stored_as_a_frozenset_and_a_bad_value_is_a_validation_error():
    policy = Policy(protected_node_ids=["i-0123456789abcdef0"], max_nodes_per_delete_call=10)
    assert policy.protected_node_ids == frozenset({"i-0123456789abcdef0"}) and isinstance(policy.protected_node_ids, frozenset)
    with pytest.raises(pydantic.ValidationError, match="max_scale_in_fraction"):
        Policy(max_scale_in_fraction=2)
    with pytest.raises(pydantic.ValidationError, match="Extra inputs are not permitted"):
        Policy(drain_time=3)
    with pytest.raises(dataclasses.FrozenInstanceError):
        policy.drain = "drain"  # type: ignore[misc]


@pytest.mark.parametrize("base", [{}, {"replace_node_ids": ["i-0123abcd", "worker-1"], "drain": "cordon"}])
def test_a_copy_with_an_update_is_what_the_model_copy_was(base):
    update = {"replace_node_ids": frozenset({"worker-1"}), "reboot_node_ids": frozenset()}
    new, old = Policy(**base).model_copy(update=update), Oracle(**base).model_copy(update=update)
    assert outcome(lambda: new) == outcome(lambda: old)
    assert Policy(**base).model_copy() == Policy(**base) and Policy(**base).model_copy(deep=True) == Policy(**base)


@pytest.mark.parametrize("base", [{}, {"protected_node_ids": ["worker-1"], "software_deployment": {"WaitIntervalInSeconds": 60}}])
def test_a_policy_survives_pickling_and_copying(base):
    policy = Policy(**base)
    assert pickle.loads(pickle.dumps(policy)) == policy == copy.deepcopy(policy) == copy.copy(policy)
