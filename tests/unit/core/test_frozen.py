"""core/frozen.py: a record on `Frozen` (as `@dataclass(unsafe_hash=True)`, and as `@record`, whose
methods are Frozen's own) behaves as the same record declared `@dataclass(frozen=True)` — built from
the same arguments, equal, hashed and shown alike, assignment and deletion refused with the same
error, `replace`, pickle and copies working — while compiling fewer methods (none for `@record`)."""

from __future__ import annotations

import copy
import inspect
import dataclasses
import pickle
from dataclasses import FrozenInstanceError, dataclass, field

import pytest
from hypothesis import given, strategies as st

from pulumi_hyperpod.core.frozen import Entity, Frozen, Mutable, bulk_record, entity, mutable_record, record
from pulumi_hyperpod.plans.model import Plan, Refusal


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


@record
class Declared(Frozen):
    name: str
    count: int = 0
    extra: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    derived: int = field(init=False, default=-1)
    kind: str = field(kw_only=True, default="k")
    tags: tuple[str, ...] = field(default=(), hash=False)


@dataclass(frozen=True)
class DeclaredTwin:
    name: str
    count: int = 0
    extra: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    derived: int = field(init=False, default=-1)
    kind: str = field(kw_only=True, default="k")
    tags: tuple[str, ...] = field(default=(), hash=False)


calls = st.tuples(
    st.lists(st.one_of(st.text(max_size=3), st.integers()), max_size=4).map(tuple),
    st.dictionaries(st.sampled_from(["name", "count", "extra", "derived", "kind", "tags", "other"]), st.integers(), max_size=3),
)


@given(calls)
def test_a_record_is_built_compared_hashed_and_shown_as_its_frozen_dataclass_twin(call):
    args, kwargs = call
    made, twin = outcome(lambda: Declared(*args, **kwargs)), outcome(lambda: DeclaredTwin(*args, **kwargs))
    assert made[0] == twin[0]  # built, or refused with the same error type (a call's TypeError words differ)
    if made[0] != "ok":
        return
    record, other = made[1], twin[1]
    assert dataclasses.asdict(record) == dataclasses.asdict(other) and vars(record) == vars(other)
    assert list(vars(record)) == list(vars(other))  # set in the same order (pickles alike)
    assert repr(record).replace("Declared", "DeclaredTwin") == repr(other)
    assert hash(record) == hash(other)
    assert record == Declared(*args, **kwargs) and record != other
    assert (record == dataclasses.replace(record, extra={"x": 1})) == (other == dataclasses.replace(other, extra={"x": 1}))
    assert outcome(lambda: setattr(record, "name", 1))[0] == "FrozenInstanceError"


def test_a_record_runs_post_init_and_keeps_its_own_methods():
    seen = []

    @record
    class Checked(Frozen):
        value: int

        def __post_init__(self) -> None:
            seen.append(self.value)

        def __repr__(self) -> str:
            return "checked"

    assert repr(Checked(3)) == "checked" and seen == [3]
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'value'"):
        Checked()


@mutable_record
class Arguments(Mutable):
    name: str
    count: int = 1
    extra: dict[str, int] = field(default_factory=dict)
    kind: str = field(kw_only=True, default="k")


@mutable_record
class MoreArguments(Arguments):
    more: tuple[str, ...] | None = None


@dataclass
class ArgumentsTwin:
    name: str
    count: int = 1
    extra: dict[str, int] = field(default_factory=dict)
    kind: str = field(kw_only=True, default="k")


@dataclass
class MoreArgumentsTwin(ArgumentsTwin):
    more: tuple[str, ...] | None = None


@given(calls)
def test_a_mutable_record_behaves_as_its_dataclass_twin(call):
    args, kwargs = call
    kwargs = {k: v for k, v in kwargs.items() if k not in ("derived", "tags")} | ({"more": ("x",)} if "tags" in kwargs else {})
    made, twin = outcome(lambda: MoreArguments(*args, **kwargs)), outcome(lambda: MoreArgumentsTwin(*args, **kwargs))
    assert made[0] == twin[0]
    if made[0] != "ok":
        return
    record, other = made[1], twin[1]
    assert vars(record) == vars(other) and list(vars(record)) == list(vars(other))
    assert repr(record).replace("MoreArguments", "MoreArgumentsTwin") == repr(other)
    assert record == MoreArguments(*args, **kwargs) and record != other and record != Arguments("n")
    assert outcome(lambda: hash(record))[0] == outcome(lambda: hash(other))[0] == "TypeError"
    record.count = other.count = 7  # mutable, as a dataclass
    assert dataclasses.asdict(record) == dataclasses.asdict(other)
    assert dataclasses.replace(record, name="other").name == "other" and record.count == 7


def test_a_mutable_record_shows_the_signature_its_dataclass_twin_does():
    assert str(inspect.signature(MoreArguments)) == str(inspect.signature(MoreArgumentsTwin))
    assert str(inspect.signature(Arguments)) == str(inspect.signature(ArgumentsTwin))


@bulk_record
class Bulk(Frozen):
    name: str
    count: int = 0
    extra: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    tags: tuple[str, ...] = field(default=(), hash=False)


@dataclass(frozen=True)
class BulkTwin:
    name: str
    count: int = 0
    extra: dict[str, int] = field(default_factory=dict, compare=False, repr=False)
    tags: tuple[str, ...] = field(default=(), hash=False)


@given(calls, st.sampled_from(["name", "count", "other"]))
def test_a_bulk_record_behaves_as_its_frozen_dataclass_twin(call, attribute):
    args, kwargs = call
    kwargs = {k: v for k, v in kwargs.items() if k not in ("derived", "kind")}
    made, twin = outcome(lambda: Bulk(*args, **kwargs)), outcome(lambda: BulkTwin(*args, **kwargs))
    assert made[0] == twin[0]
    if made[0] != "ok":
        return
    record, other = made[1], twin[1]
    assert vars(record) == vars(other) and list(vars(record)) == list(vars(other))
    assert repr(record).replace("Bulk", "BulkTwin") == repr(other)
    assert outcome(lambda: hash(record)) == outcome(lambda: hash(other))  # a dict in a hashed field: both TypeError
    assert record == Bulk(*args, **kwargs) and record != other
    assert outcome(lambda: setattr(record, attribute, 1)) == outcome(lambda: setattr(other, attribute, 1))
    assert outcome(lambda: delattr(record, attribute)) == outcome(lambda: delattr(other, attribute))
    assert dataclasses.replace(record, count=5) == Bulk(**{**vars(record), "count": 5})
    assert pickle.loads(pickle.dumps(record)) == record == copy.deepcopy(record)


@entity
class Thing(Entity):
    name: str
    count: int = 0
    extra: dict[str, int] = field(default_factory=dict)


@dataclass(eq=False, repr=False)
class ThingTwin:
    name: str
    count: int = 0
    extra: dict[str, int] = field(default_factory=dict)


@given(calls)
def test_an_entity_is_built_as_its_dataclass_twin_and_is_itself_only(call):
    args, kwargs = call
    kwargs = {k: v for k, v in kwargs.items() if k in ("name", "count", "other")}
    made, twin = outcome(lambda: Thing(*args, **kwargs)), outcome(lambda: ThingTwin(*args, **kwargs))
    assert made[0] == twin[0]
    if made[0] != "ok":
        return
    thing, other = made[1], twin[1]
    assert vars(thing) == vars(other) and list(vars(thing)) == list(vars(other))
    assert thing == thing and thing != Thing(*args, **kwargs) and hash(thing) == object.__hash__(thing)
    assert repr(thing).startswith(f"<{__name__}.Thing object at ")
    thing.count = 9
    assert thing.count == 9 and Thing("n").extra is not Thing("n").extra
