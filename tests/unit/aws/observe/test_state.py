"""ClusterState.from_api builds each NodeState of a listing by the summary's rules (ids, status,
launch time in UTC), for any summary the service (or a snapshot) can give."""

from __future__ import annotations

import dataclasses
import datetime as dt

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.aws.observe.state import ClusterState, NodeState, _utc

ZONES = st.sampled_from([None, dt.timezone.utc, dt.timezone(dt.timedelta(hours=-7)), dt.timezone(dt.timedelta(hours=5, minutes=30))])
MOMENTS = st.datetimes(min_value=dt.datetime(2000, 1, 1), max_value=dt.datetime(2100, 1, 1))
LAUNCH_TIMES = st.one_of(
    st.none(),
    st.builds(lambda moment, zone: moment.replace(tzinfo=zone), MOMENTS, ZONES),  # aware (the client's) or naive
    st.builds(lambda moment: moment.isoformat() + "Z", MOMENTS),  # a snapshot's text
    st.floats(min_value=0, max_value=4e9, allow_nan=False),  # epoch seconds
)
TEXT = st.one_of(st.none(), st.just(""), st.text(max_size=8))


@st.composite
def summaries(draw) -> dict:
    summary = {"InstanceGroupName": draw(st.text(min_size=1, max_size=8))}
    for key in ("InstanceId", "NodeLogicalId", "InstanceType"):
        value = draw(TEXT)
        if value is not None:
            summary[key] = value
    launch = draw(LAUNCH_TIMES)
    if launch is not None:
        summary["LaunchTime"] = launch
    status = draw(st.one_of(st.none(), st.fixed_dictionaries({}, optional={"Status": st.text(max_size=8), "Message": TEXT})))
    if status is not None:
        summary["InstanceStatus"] = status
    return summary


def by_init(s: dict) -> NodeState:
    """The node as NodeState's own __init__ builds it from the summary (the rules of _node)."""
    status = s.get("InstanceStatus") or {}
    return NodeState(
        group=s["InstanceGroupName"],
        instance_id=s.get("InstanceId") or None,
        logical_id=s.get("NodeLogicalId") or None,
        instance_type=s.get("InstanceType"),
        status=status.get("Status", "Pending"),
        launch_time=_utc(s.get("LaunchTime")) if s.get("InstanceId") else None,
        message=status.get("Message"),
    )


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(summaries(), max_size=6))
def test_from_api_builds_the_nodes_the_dataclass_init_builds(listing):
    state = ClusterState.from_api(
        {"ClusterArn": "arn:aws:sagemaker:us-west-2:111122223333:cluster/abc", "ClusterStatus": "InService"}, listing
    )
    expected = tuple(by_init(s) for s in listing)
    assert state.nodes == expected
    for node, want in zip(state.nodes, expected, strict=True):
        assert type(node) is NodeState and dataclasses.astuple(node) == dataclasses.astuple(want) and hash(node) == hash(want)
        if node.launch_time is not None:  # the same instant, told in UTC
            assert node.launch_time.utcoffset() == dt.timedelta(0) and node.launch_time == want.launch_time
        assert dataclasses.replace(node, status="Failure").status == "Failure"  # still frozen, still a dataclass
    assert [n.key for n in state.nodes] == [n.key for n in expected]
