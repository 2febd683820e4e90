"""The persistent world's clock (issue 12, item 18): it follows the wall clock, and runs at the scenario's
`speed` only while someone waits on it — an explicit advance, or a client polling. A one-hour-old demo
cluster shows an hour of events and an hour of billing, not two weeks; the seeds' long behaviours
(the 3-hour MinCount rollback) stay one `advance` away. The wall clock is injected: deterministic."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.aws.clock import EPOCH_SECONDS, PollTracker, WallClock, clock_from_state
from tests.support.sim_helpers import eks_request, events_of, group, groups_of, nodes_of

HOUR = 3600.0


class FakeWallClock:
    """Real time that moves only when the test says so."""

    def __init__(self, start: float = EPOCH_SECONDS + 7 * 86400) -> None:
        self.t = start

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds


@pytest.fixture
def wall() -> FakeWallClock:
    return FakeWallClock()


@pytest.fixture
def world(tmp_path, wall):
    return Simulator(tmp_path / "fake.sqlite", scenario={"speed": 600}, real_time=wall)


def _elapsed(sim: Simulator, since: float) -> float:
    return sim.now().timestamp() - since


def test_a_world_nobody_waits_on_follows_the_wall_clock(world, wall):
    client = world.client()
    created = world.now().timestamp()
    assert created == wall.t, "a new world starts at the wall clock's time"
    client.create_cluster(**eks_request("demo", [group("a", 4)]))
    wall.sleep(HOUR)
    assert _elapsed(world, created) == HOUR
    assert world.lead() == 0
    billing = world.billing("demo")
    assert billing["total_billed_seconds"] <= 4 * HOUR, "about an hour per node, not 600 hours"
    assert billing["total_billed_seconds"] > 4 * (HOUR - 600)
    latest = max(event["EventTime"].timestamp() for event in events_of(client, "demo"))
    assert latest <= wall.t, "no event is dated after the wall clock"


def test_a_polling_client_waits_at_speed(world, wall):
    client = world.client()
    client.create_cluster(**eks_request("poll", [group("a", 2)]))
    start = world.now().timestamp()
    for _ in range(10):  # a waiter: the same DescribeCluster every 0.2 real seconds
        client.describe_cluster(ClusterName="poll")
        wall.sleep(0.2)
    client.describe_cluster(ClusterName="poll")
    assert _elapsed(world, start) == pytest.approx(2.0 * 600), "2 real seconds of polling = 20 virtual minutes"
    assert {n["InstanceStatus"]["Status"] for n in nodes_of(client, "poll")} == {"Running"}
    assert world.lead() == pytest.approx(2.0 * 599)


def test_a_pause_longer_than_the_poll_window_is_not_waiting(world, wall):
    client = world.client()
    client.create_cluster(**eks_request("idle", [group("a", 1)]))
    start = world.now().timestamp()
    client.describe_cluster(ClusterName="idle")
    wall.sleep(300)  # a person reading the output, then asking again
    client.describe_cluster(ClusterName="idle")
    assert _elapsed(world, start) == 300 and world.lead() == 0


def test_different_reads_and_writes_are_not_polls(world, wall):
    client = world.client()
    client.create_cluster(**eks_request("one", [group("a", 1)]))
    client.create_cluster(**eks_request("two", [group("a", 1)]))
    start = world.now().timestamp()
    for name in ("one", "two", "one"):  # "one" again after 1 s: 1 s of polling at speed
        client.describe_cluster(ClusterName=name)
        wall.sleep(0.5)
    client.update_cluster(ClusterName="two", InstanceGroups=[group("a", 2)])
    wall.sleep(0.5)
    client.update_cluster(ClusterName="two", InstanceGroups=[group("a", 2)])
    assert _elapsed(world, start) == pytest.approx(2.0 + 1.0 * 599)


def test_the_pages_of_one_listing_count_the_wait_once(world, wall):
    client = world.client()
    client.create_cluster(**eks_request("pages", [group("a", 250)]))
    world.advance(1200)
    start = world.now().timestamp()
    assert len(nodes_of(client, "pages")) == 250  # 3 pages
    wall.sleep(1.0)
    assert len(nodes_of(client, "pages")) == 250  # the same 3 pages: one poll
    assert _elapsed(world, start) == pytest.approx(600)


def test_two_clients_poll_independently(world, wall):
    first, second = world.client(), world.client()
    first.create_cluster(**eks_request("two-clients", [group("a", 1)]))
    start = world.now().timestamp()
    first.describe_cluster(ClusterName="two-clients")
    wall.sleep(1.0)
    second.describe_cluster(ClusterName="two-clients")  # its first request: not a poll
    assert _elapsed(world, start) == 1.0


def test_the_three_hour_rollback_is_one_advance_away(tmp_path, wall):
    sim = Simulator(
        tmp_path / "rollback.sqlite", real_time=wall, scenario={"capacity": [{"instance_type": "ml.p5.48xlarge", "available": 2}]}
    )
    client = sim.client()
    client.create_cluster(**eks_request("mc", [group("gpu", 4, "ml.p5.48xlarge", MinInstanceCount=4)]))
    sim.advance(3 * HOUR + 60)
    assert groups_of(client, "mc")["gpu"]["TargetCount"] == 0, "rolled back to (0, 0) after 3 hours"
    assert any("rollback started" in event["Description"] for event in events_of(client, "mc"))
    assert sim.lead() == pytest.approx(3 * HOUR + 60)
    overview = sim.overview()
    assert overview["ahead_of_wall_clock_seconds"] == pytest.approx(3 * HOUR + 60) and overview["speed"] == 600


def test_a_frozen_world_moves_only_when_advanced(tmp_path, wall):
    sim = Simulator(tmp_path / "frozen.sqlite", scenario={"speed": 0}, real_time=wall)
    client = sim.client()
    start = sim.now().timestamp()
    for _ in range(5):
        client.list_clusters()
        wall.sleep(1.0)
    assert _elapsed(sim, start) == 0 and sim.lead() is None
    sim.advance(60)
    assert _elapsed(sim, start) == 60


def test_the_clock_survives_reopening(tmp_path, wall):
    path = tmp_path / "again.sqlite"
    Simulator(path, real_time=wall).advance(HOUR)
    wall.sleep(10)
    reopened = Simulator(path, real_time=wall)
    assert reopened.lead() == HOUR and reopened.now().timestamp() == wall.t + HOUR


def test_worlds_from_the_old_accelerated_clock_keep_their_time_and_then_follow_the_wall_clock():
    real = [1000.0]
    clock = clock_from_state({"kind": "anchored", "virtual_anchor": 500.0, "real_anchor": 900.0, "speed": 600}, real_time=lambda: real[0])
    assert isinstance(clock, WallClock) and clock.now() == 500.0 + 100 * 600
    real[0] += 10
    assert clock.now() == 500.0 + 100 * 600 + 10


def test_poll_tracker_counts_each_real_second_once():
    tracker = PollTracker(window=2)
    assert tracker.waited("a", 0.0) == 0
    assert tracker.waited("b", 0.5) == 0
    assert tracker.waited("a", 1.0) == 1.0
    assert tracker.waited("b", 1.5) == 0.5, "only the half second after a's poll"
    assert tracker.waited("a", 5.0) == 0, "4 s since the last identical read: not a poll"


@pytest.mark.parametrize("text", ["99999999999999999h", "366d", "8761h"])
def test_a_duration_past_a_year_is_refused_not_overflowed(text):
    from pulumi_hyperpod.sim.aws.clock import parse_duration

    with pytest.raises(ValueError, match="must be at most 365d"):
        parse_duration(text)
    assert parse_duration("365d") == 365 * 86400
