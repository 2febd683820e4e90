"""A cloud's own sections of a plan sit in its `details` slot (HyperPod: aws/details.py), and the wire
keeps their members where they were: plans saved before the slot existed (tests/unit/plans/data/plan-*.json,
written by the model that had `Plan.slurm` and `Step.canary`) load, and write the same JSON back,
the members a plan does not have (null, false) aside."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pulumi_hyperpod.aws.details import READER, AwsPlanDetails, slurm_of
from pulumi_hyperpod.aws.planner.details import AwsStepDetails, is_canary
from pulumi_hyperpod.plans import Plan, plan_text

DATA = Path(__file__).parent / "data"


def saved(name: str) -> dict:
    return json.loads((DATA / name).read_text())


def without_empty_cloud_members(data: dict) -> dict:
    """What a plan written before wrote that is no member now: a null `slurm`, a false `canary`."""
    data = {k: v for k, v in data.items() if not (k == "slurm" and v is None)}
    data["steps"] = [{k: v for k, v in s.items() if not (k == "canary" and v is False)} for s in data["steps"]]
    return data


def test_a_hyperpod_plan_with_a_canary_and_a_slurm_section_saved_before_loads_and_writes_the_same_json():
    data = saved("plan-aws-canary-slurm.json")
    loaded = Plan.from_dict(data, READER)
    assert isinstance(loaded.details, AwsPlanDetails) and slurm_of(loaded) is not None
    assert [c.key for c in slurm_of(loaded).changes.changes] == ["PreemptMode"]
    assert [is_canary(s) for s in loaded.steps] == [True, False]
    assert loaded.steps[0].details == AwsStepDetails(canary=True)
    assert json.loads(loaded.to_json()) == without_empty_cloud_members(data)
    assert json.loads(loaded.to_json())["slurm"] == data["slurm"] and json.loads(loaded.to_json())["steps"][0]["canary"] is True


@pytest.mark.parametrize("name", ["plan-aws-scale-in.json", "plan-gcp-create.json"])
def test_plans_without_a_cloud_section_saved_before_load_with_or_without_the_reader(name):
    data = saved(name)
    for reader in (READER, None):
        loaded = Plan.from_dict(data, reader)
        assert loaded.details is None and all(s.details is None for s in loaded.steps)
        assert json.loads(loaded.to_json()) == without_empty_cloud_members(data)


def test_a_cloud_section_read_without_its_reader_is_refused_not_dropped():
    """Dropping a canary would let apply add every node at once; dropping the Slurm section would
    show "no changes"."""
    data = saved("plan-aws-canary-slurm.json")
    with pytest.raises(ValueError, match=r"member.s. slurm of a cloud's own section"):
        Plan.from_dict(data)
    del data["slurm"]
    with pytest.raises(ValueError, match=r"step 'BatchAddClusterNodes' has member.s. canary"):
        Plan.from_dict(data)


def test_the_rendering_shows_the_clouds_sections():
    loaded = Plan.from_dict(saved("plan-aws-canary-slurm.json"), READER)
    text = plan_text(loaded, width=200)
    assert "Slurm changes (per key: what it takes on HyperPod" in text and "PreemptMode" in text
