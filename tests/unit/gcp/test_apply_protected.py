"""Google Cloud's apply checks the guard again on the cluster it reads right before each write: the
step's disruption, read from its kind's declaration (plans/steps.py), takes no protected node down —
a plan made before the node was protected (or one built by hand) is refused, nothing sent."""

from __future__ import annotations

import dataclasses

import pytest

from pulumi_hyperpod.gcp.apply import PlanInvalid, PlanRefused, apply
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.plans import Policy

from tests.support.gcp import NAME, a4, spec
from tests.support.gcp import renamed


@pytest.mark.parametrize("change", ["shrink", "pool-renamed", "delete-cluster"])
def test_a_plan_taking_a_protected_node_down_is_refused_at_apply(running, client, doc, change):
    if change == "shrink":
        a4(doc)["scaling_spec"] = {"min_node_count": 1, "max_node_count": 1}
    elif change == "pool-renamed":  # a new pool in the old one's place: every node of the old one goes
        renamed(doc)
    the_plan = plan(None if change == "delete-cluster" else spec(doc), running)  # made unprotected
    assert the_plan.steps and not the_plan.refused
    node = running.pool("a4").nodes[0][0]
    with pytest.raises(PlanRefused) as refused:
        apply(client, the_plan, policy=Policy(protected_node_ids={node}))
    assert node in refused.value.plan.refusals[0].reason
    assert observe(client, NAME) == running  # nothing was sent
    if change != "delete-cluster":  # a node the step does not take down may be protected
        apply(client, the_plan, policy=Policy(protected_node_ids={running.pool("login").nodes[0][0]}))


def test_a_step_of_another_kind_than_its_call_is_not_run(running, client, doc):
    a4(doc)["scaling_spec"] = {"min_node_count": 1, "max_node_count": 1}
    the_plan = plan(spec(doc), running)
    edited = dataclasses.replace(the_plan, steps=(dataclasses.replace(the_plan.steps[0], kind="tag"),))
    with pytest.raises(PlanInvalid, match="is of kind update-cluster, not tag"):
        apply(client, edited)
