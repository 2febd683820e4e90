"""Property over the model (issue 23): for each leaf member of an instance group, setting it after
creation, changing it and leaving it out give a plan naming the member or a refusal naming it (a
member the table keeps when left out gives no change at all); once applied, the next plan is empty.

Values come from botocore's shapes (tests/support/model_values.py); the cluster is the simulator's,
behind a real botocore client, and every plan is the planner's own, applied by `apply`. A derandomized
test draws by a seed from its id, so the examples drawn move when the file does: the cases found so
far are explicit examples (`Drawn`), run every time whatever is drawn.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod import ClusterSpec, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.spec import SpecError
from pulumi_hyperpod.aws.members import filled, rows
from pulumi_hyperpod.aws.planner.members import get, is_default, put, same
from tests.support.model_values import values

from tests.support.factories import LIFECYCLE, ROLE

EKS = "arn:aws:eks:us-west-2:111122223333:cluster/ml"
# Rows with rules of their own, tested where those rules are (counts: the planner's tests; the Slurm
# role and partitions exist only on Slurm clusters: test_plan_members.py; types: test_plan.py)
OWN_TESTS = {
    "InstanceGroupName",
    "InstanceCount",
    "MinInstanceCount",
    "InstanceType",
    "InstanceRequirements.InstanceTypes",
    "SlurmConfig.NodeType",
    "SlurmConfig.PartitionNames",
}
LEAVES = [m for m in rows("group") if m.path not in OWN_TESTS]
SETTINGS = settings(
    max_examples=12 if os.environ.get("HYPERPOD_LONG") else 2,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
)


@dataclass(frozen=True, slots=True)
class Drawn:
    """An explicit example: what one member's test draws, by draw label. The other members' tests reject
    it with assume, which Hypothesis runs as a skipped example (it replays its own part of a failure
    that way when pytest supplies the other arguments: HypothesisWorks/hypothesis issue 2125)."""

    path: str
    draws: dict[str, Any]

    def draw(self, strategy, label: str) -> Any:
        return copy.deepcopy(self.draws[label])


def admit(data, member, *conditions: bool) -> None:
    """Drawn values the test takes: an explicit example must fit the test it names (one it rejects
    would pass by doing nothing), a drawn one is dropped when it does not."""
    if isinstance(data, Drawn):
        assume(data.path == member.path)
        assert all(conditions), f"the example for {member.path} does not fit the test: {data.draws}"
    assume(all(conditions))


NEXT = "2027-03-01T00:00:00+00:00"
# An empty structure given vs left out, an empty list or map, a nested member removed: DescribeCluster
# reports each as given, so each is a change (aws/planner/members.py _without_filled)
EMPTY_SCHEDULE = {"PatchingStrategy": "WhenIdle", "PatchSchedule": {}}
WHEN_IDLE = {"PatchingStrategy": "WhenIdle"}
ROLLING = {"PatchingStrategy": "WhenIdle", "DeploymentConfig": {"WaitIntervalInSeconds": 60}}
SET_EXAMPLES = [
    Drawn("AutoPatchConfig", {"value": EMPTY_SCHEDULE}),
    Drawn("KubernetesConfig.Taints", {"value": []}),
    Drawn("KubernetesConfig.Labels", {"value": {}}),
    Drawn("InstanceStorageConfigs", {"value": []}),
    Drawn("NetworkInterface", {"value": {}}),
]
CHANGED_EXAMPLES = [
    Drawn("AutoPatchConfig", {"before": EMPTY_SCHEDULE, "after": WHEN_IDLE}),  # the regression
    Drawn("AutoPatchConfig", {"before": WHEN_IDLE, "after": EMPTY_SCHEDULE}),
    Drawn("AutoPatchConfig", {"before": ROLLING, "after": WHEN_IDLE}),
    Drawn("AutoPatchConfig", {"before": {**ROLLING, "DeploymentConfig": {}}, "after": ROLLING}),
    Drawn("AutoPatchConfig", {"before": {**WHEN_IDLE, "PatchSchedule": {"NextPatchDate": NEXT}}, "after": EMPTY_SCHEDULE}),
    Drawn("AutoPatchConfig", {"before": {**WHEN_IDLE, "PatchSchedule": {"NextPatchDate": NEXT}}, "after": WHEN_IDLE}),
    Drawn("KubernetesConfig.Taints", {"before": [], "after": [{"Key": "gpu", "Effect": "NoSchedule", "Value": "yes"}]}),
    Drawn("KubernetesConfig.Labels", {"before": {}, "after": {"team": "ml"}}),
]
LEFT_OUT_EXAMPLES = SET_EXAMPLES  # the same empty values, given at creation and then left out


def examples(cases):
    """The cases as @example decorators, each run on every member's test (the others skip it)."""

    def decorate(test):
        for case in reversed(cases):
            test = example(data=case)(test)
        return test

    return decorate


def spec(member=None, value=None, *, leave_out: str | None = None) -> ClusterSpec:
    group = {
        "InstanceGroupName": "gpu",
        "InstanceType": "ml.c5.xlarge",
        "InstanceCount": 1,
        "LifeCycleConfig": dict(LIFECYCLE),
        "ExecutionRole": ROLE,
    }
    group.pop(leave_out or "", None)
    if member is not None:
        target = group
        for part in member.parts[:-1]:
            target = target.setdefault(part, {})
        target[member.parts[-1]] = value
    return ClusterSpec.from_dict(
        {
            "ClusterName": "property",
            "Orchestrator": {"Eks": {"ClusterArn": EKS}},
            "NodeProvisioningMode": "Continuous",
            "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]},
            "InstanceGroups": [group],
        }
    )


# What the service sets when a request leaves the member out (sim/aws/operations.py): giving that
# value after creation is no change.
SERVICE_FILLS = {"ThreadsPerCore": 1}


def buildable(member, *values) -> bool:
    """Each value makes a valid spec: the model's shapes allow combinations its sentences refuse
    (docs/rules.md: DrainFirst without a batch size, a root volume with a size…)."""
    try:
        for value in values:
            spec(member, value)
    except SpecError:
        return False
    return True


def shape_of(member):
    return servicemodel.member_shape("ClusterInstanceGroupSpecification", *member.parts)


def cluster(start: ClusterSpec):
    client = connect(backend="fake", simulator=Simulator(seed=3), region="us-west-2")
    client.create_cluster(**start.to_api("CreateCluster"))
    return client


def kept(member, before, after):
    """`after` as the entry the planner sends from a cluster made of `before`: each member the service
    fills in and the request takes (the table's FILLED: NextPatchDate), left out of `after`, is kept."""
    entry = copy.deepcopy(after)
    for member_filled in filled(member.scope):
        request = tuple(member_filled.request.split(".")) if member_filled.request else ()
        relative = request[len(member.parts) :]
        if request[: len(member.parts)] == member.parts and relative and get(entry, relative) is None and get(before, relative) is not None:
            put(entry, relative, get(before, relative))
    return entry


def named(the_plan, member) -> bool:
    texts = [r for s in the_plan.steps for r in s.reasons] + [r.reason for r in the_plan.refusals]
    return any(f": {member.path}" in text for text in texts)


def converges(client, wanted: ClusterSpec, member) -> None:
    first = plan(wanted, observe(client, "property"))
    if first.refused:
        assert all(r.rule == "immutable-group-field" for r in first.refusals) and member.change == "new group name"
        return
    # a software member moves through an UpdateClusterSoftware rollout, which converges when it ends
    apply(client, first, wait="InService" if member.change == "UpdateClusterSoftware" else "none", timeout=60)
    again = plan(wanted, observe(client, "property"))
    assert again.empty, (member.path, [r for s in again.steps for r in s.reasons])


def named_then_converges(start: ClusterSpec, wanted: ClusterSpec, member) -> None:
    """From a cluster made of `start`, the plan to `wanted` names the member (or refuses it), and
    applying it converges."""
    client = cluster(start)
    first = plan(wanted, observe(client, "property"))
    assert named(first, member), (member.path, first.steps, first.refusals)
    converges(client, wanted, member)


@pytest.mark.parametrize("member", LEAVES, ids=lambda m: m.path)
@SETTINGS
@given(data=st.data())
@examples(SET_EXAMPLES)
def test_a_member_set_after_creation_is_named_then_converges(member, data):
    value = data.draw(values(shape_of(member)), label="value")
    # the service's own default (OnDemand) is not a change, nor what it sets when the member is left out
    admit(data, member, not is_default(member.path, value), SERVICE_FILLS.get(member.path) != value, buildable(member, value))
    named_then_converges(spec(), spec(member, value), member)


@pytest.mark.parametrize("member", LEAVES, ids=lambda m: m.path)
@SETTINGS
@given(data=st.data())
@examples(CHANGED_EXAMPLES)
def test_a_member_changed_is_named_then_converges(member, data):
    before = data.draw(values(shape_of(member)), label="before")
    after = data.draw(values(shape_of(member)).filter(lambda v: not same(v, before, True)), label="after")
    admit(data, member, not is_default(member.path, before), not is_default(member.path, after), buildable(member, before, after))
    if same(kept(member, before, after), before, True):
        # `after` differs only by leaving out what the service fills in (the table's FILLED, kept in
        # every entry): the cluster keeps it, so there is nothing to change
        client = cluster(spec(member, before))
        again = plan(spec(member, after), observe(client, "property"))
        assert again.empty, (member.path, [r for s in again.steps for r in s.reasons])
        return
    named_then_converges(spec(member, before), spec(member, after), member)


@pytest.mark.parametrize("member", LEAVES, ids=lambda m: m.path)
@SETTINGS
@given(data=st.data())
@examples(LEFT_OUT_EXAMPLES)
def test_a_member_left_out_is_named_as_removed_or_kept_as_the_table_says(member, data):
    value = data.draw(values(shape_of(member)), label="value")
    admit(data, member, not is_default(member.path, value), buildable(member, value))
    client = cluster(spec(member, value))
    if member.path in servicemodel.shape("ClusterInstanceGroupSpecification").required_members:
        with pytest.raises(SpecError, match=rf"InstanceGroups\[0\]\.{member.path}: is required"):
            spec(leave_out=member.path)  # the refusal names it, before any plan
        return
    first = plan(spec(leave_out=member.path), observe(client, "property"))
    if member.omitted == "kept":
        assert first.empty, (member.path, [r for s in first.steps for r in s.reasons])
        return
    assert any(r.startswith(f"gpu: {member.path} removed") for s in first.steps for r in s.reasons), member.path
    converges(client, spec(leave_out=member.path), member)
