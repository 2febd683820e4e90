"""Protected node ids: refused when they cannot be node ids, noted when they name no node of the
cluster a plan removes nodes from (a typo must not silently protect nothing)."""

from __future__ import annotations

import pydantic
import pytest

from pulumi_hyperpod import Policy
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.plans.policy import INSTANCE_ID, LOGICAL_ID
from pulumi_hyperpod.aws.servicemodel import shape

from tests.support.factories import node_id, observed_from, slurm_spec


def test_the_id_patterns_are_the_models():
    assert INSTANCE_ID.pattern == shape("ClusterNodeId").metadata["pattern"]
    assert LOGICAL_ID.pattern == shape("ClusterNodeLogicalId").metadata["pattern"]


@pytest.mark.parametrize(
    "bad", ["i-08557716aa7502a8", "I-0123456789ABCDEF0", "i-", "", " i-0123456789abcdef0", "[bold]x", "node\n2", "-leading-dash"]
)
def test_an_id_that_cannot_name_a_node_is_refused(bad):
    with pytest.raises(pydantic.ValidationError, match=r"is not an instance id|is neither an instance id"):
        Policy(protected_node_ids=frozenset({bad}))


@pytest.mark.parametrize("good", ["i-0123abcd", "i-0123456789abcdef0", "4f1c2d3e-aaaa-bbbb-cccc-0123456789ab"])
def test_instance_and_logical_ids_are_accepted(good):
    assert Policy(protected_node_ids=frozenset({good})).protected_node_ids == {good}


def test_a_scale_in_notes_protected_ids_that_match_no_node():
    observed = observed_from(slurm_spec(workers=4))
    real = node_id(2, 0)
    policy = Policy(protected_node_ids=frozenset({real, "i-0fffffffffffffff0"}))
    shrink = plan(slurm_spec(workers=2), observed, policy)
    assert real not in {victim.node_id for step in shrink.steps for victim in step.victims}
    assert [note for note in shrink.notes if "protect" in note] == [
        "protected node id(s) i-0fffffffffffffff0 match no node of cluster my-training-cluster: they protect nothing "
        "here (check them if they were meant for this cluster)"
    ]
    grow = plan(slurm_spec(workers=6), observed, policy)  # nothing is removed: nothing to warn about
    assert not [note for note in grow.notes if "protect" in note]
