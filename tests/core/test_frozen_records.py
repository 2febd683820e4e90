"""core/frozen.py: a record on `Frozen` + `@dataclass(unsafe_hash=True)` behaves as the same record
declared `@dataclass(frozen=True)` — equal, hashed and shown alike, assignment and deletion refused
with the same error, `replace`, pickle and copies working — while compiling two methods fewer."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass, field

import pytest
from hypothesis import given, strategies as st

from pulumi_hyperpod.core.frozen import Frozen
from pulumi_hyperpod.plan.model import Plan, Refusal


@dataclass(unsafe_hash=True)
class Record(Frozen):
    name: str
    count: int = 0
    tags: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Twin:
    name: str
    count: int = 0
    tags: tuple[str, ...] = field(default=())


def outcome(action):
    try:
        return ("ok", action())
    except Exception as error:  # noqa: BLE001 - the outcome compared is the error's type and words
        return (type(error).__name__, str(error))


@given(
    st.text(max_size=5), st.integers(), st.lists(st.text(max_size=3), max_size=3).map(tuple), st.sampled_from(["name", "count", "other"])
)
def test_a_frozen_record_behaves_as_its_frozen_dataclass_twin(name, count, tags, attribute):
    record, twin = Record(name, count, tags), Twin(name, count, tags)
    assert repr(record).replace("Record", "Twin") == repr(twin)
    assert hash(record) == hash((name, count, tags)) == hash(twin)
    assert record == Record(name, count, tags) and record != Record(name + "x", count, tags) and record != twin
    assert outcome(lambda: setattr(record, attribute, 1)) == outcome(lambda: setattr(twin, attribute, 1))
    assert outcome(lambda: delattr(record, attribute)) == outcome(lambda: delattr(twin, attribute))
    assert (record.name, record.count, record.tags) == (name, count, tags)  # nothing changed
    assert dataclasses.replace(record, count=count + 1) == Record(name, count + 1, tags)
    assert pickle.loads(pickle.dumps(record)) == record == copy.deepcopy(record) == copy.copy(record)
    assert dataclasses.asdict(record) == dataclasses.asdict(twin)


def test_the_plan_is_frozen_as_before():
    plan = Plan(cluster_name="c", action="none", refusals=(Refusal("rule", "why"),))
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'action'"):
        plan.action = "update"
    with pytest.raises(FrozenInstanceError, match="cannot delete field 'steps'"):
        del plan.steps
    assert plan.refuse(Refusal("more", "reason")).refusals[-1] == Refusal("more", "reason") and len(plan.refusals) == 1
    assert hash(plan) == hash(dataclasses.replace(plan))
