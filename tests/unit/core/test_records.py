"""The records users keep and compare are plain stdlib dataclasses: frozen ones refuse assignment,
compare and hash by value, show their fields, and survive pickle and copy — the plan and policy a
program holds, the observed state, and the provider's settings a stack's state holds pickled."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from dataclasses import FrozenInstanceError

import pytest

from pulumi_hyperpod.aws.observe.state import ClusterState, GroupState, NodeState
from pulumi_hyperpod.plans.basis import Basis, GroupBasis, NodeBasis
from pulumi_hyperpod.plans.model import Plan, Refusal
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.provider.settings import Defaults, Location


def _records():
    node = NodeState("workers", "i-1", "l-1", "ml.c5.large", "Running", None)
    group = GroupState("workers", 1, 1, 0, "InService", "ml.c5.large", ("ml.c5.large",), "Compute", ("workers",))
    basis = Basis("arn:c", "InService", (GroupBasis("workers", 1, 0, 1, "InService"),), (NodeBasis("i-1", "workers", "Running"),))
    made = [
        Plan(cluster_name="c", action="none", refusals=(Refusal("rule", "why"),)),
        Refusal("rule", "why"),
        node,
        basis,
        Defaults(backend="fake", region="us-east-2", profile="training"),
        Location("fake", "us-east-2"),
        Policy(),
    ]
    return [*made, group]


RECORDS = _records()


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_record_is_a_frozen_dataclass_equal_hashed_and_shown_by_value(record):
    cls = type(record)
    assert dataclasses.is_dataclass(cls) and cls.__dataclass_params__.frozen
    twin = dataclasses.replace(record)
    assert twin == record and hash(twin) == hash(record) and twin is not record
    name = dataclasses.fields(cls)[0].name
    with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{name}'"):
        setattr(record, name, None)
    if cls is not Policy:  # Policy shows itself as pydantic does (`name=value` pairs)
        assert repr(record).startswith(f"{cls.__qualname__}({name}=")


@pytest.mark.parametrize("record", RECORDS, ids=lambda r: type(r).__name__)
def test_a_record_survives_pickle_and_copies(record):
    assert pickle.loads(pickle.dumps(record)) == record == copy.deepcopy(record) == copy.copy(record)


def test_the_plan_is_frozen_as_before():
    plan = Plan(cluster_name="c", action="none", refusals=(Refusal("rule", "why"),))
    with pytest.raises(FrozenInstanceError, match="cannot assign to field 'action'"):
        plan.action = "update"
    with pytest.raises(FrozenInstanceError, match="cannot delete field 'steps'"):
        del plan.steps
    assert plan.refuse(Refusal("more", "reason")).refusals[-1] == Refusal("more", "reason") and len(plan.refusals) == 1
    assert hash(plan) == hash(dataclasses.replace(plan))


def test_a_cluster_state_is_a_frozen_dataclass():
    assert dataclasses.is_dataclass(ClusterState) and ClusterState.__dataclass_params__.frozen
