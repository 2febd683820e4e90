"""One clock for both simulators (sim/clock.py) and `hyperpod fake` over both worlds: the default
persistent worlds of a directory — HyperPod's fake.sqlite and Google Cloud's gcp-fake.sqlite beside
it — read and move one `clock.sqlite`, so `hyperpod fake advance 2h` moves both clouds' time, a
request to either moves the other's, and `fake show|reset|capacity` cover both."""

from __future__ import annotations

import datetime as dt
import json
import sqlite3

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.cli.app import main
from pulumi_hyperpod.sim.clock import FORMAT, ClockFileError, ManualClock, SharedClock, WallClock
from pulumi_hyperpod.gcp.client import connect
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.gcp.world import timestamp
from tests.support.sim_helpers import seed000_request

HOUR = 3600.0


def run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(main, ["--backend", "fake", *args], catch_exceptions=False)
    assert result.exit_code == code, f"exit {result.exit_code}:\n{result.output}"
    return result.output


@pytest.fixture
def worlds(tmp_path, monkeypatch):
    """The default worlds of tmp_path/.hyperpod, the HyperPod one frozen (speed 0: only `advance` and
    the Google Cloud world's per-request tick move the clock), so every time below is exact."""
    directory = tmp_path / ".hyperpod"
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text("speed: 0\n")
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(directory / "fake.sqlite"))
    monkeypatch.setenv("HYPERPOD_FAKE_SCENARIO", str(scenario))
    monkeypatch.delenv("HYPERPOD_GCP_FAKE_STATE", raising=False)
    monkeypatch.setenv("COLUMNS", "240")
    monkeypatch.chdir(tmp_path)
    return directory


def _times() -> tuple[float, float]:
    """(HyperPod world's now, Google Cloud world's now), read without moving either."""
    aws = Simulator.open_default().now().timestamp()
    with GcpSimulator.open_default().world() as world:
        return aws, world.now


def _gcp_cluster(doc_name: str = "llmtrain") -> None:
    from pulumi_hyperpod.gcp.apply import apply
    from pulumi_hyperpod.gcp.planner import plan
    from pulumi_hyperpod.gcp.spec import ClusterSpec
    from tests.support.gcp import EXAMPLE

    doc = json.loads(EXAMPLE.read_text())
    apply(connect("fake", poll_seconds=0), plan(ClusterSpec.from_document(doc), None))


def test_advance_moves_both_clouds_time_together(worlds):
    Simulator.open_default().client().create_cluster(**seed000_request(workers=1))
    _gcp_cluster()
    aws, gcp = _times()
    assert aws == pytest.approx(gcp, abs=1e-3), "the two worlds read one clock"
    assert (worlds / "clock.sqlite").is_file()

    said = run("fake", "advance", "2h")
    assert "advanced 7200 s" in said
    assert _times() == pytest.approx((aws + 2 * HOUR, gcp + 2 * HOUR), abs=1e-3)

    # a Google Cloud request moves the clock by its tick: HyperPod's time moves with it
    connect("fake", poll_seconds=0).find_cluster("projects/my-project/locations/us-central1/modelDevelopmentClusters/llmtrain")
    assert _times() == pytest.approx((aws + 2 * HOUR + 60, gcp + 2 * HOUR + 60), abs=1e-3)


def test_show_lists_both_worlds_and_one_time(worlds):
    Simulator.open_default().client().create_cluster(**seed000_request(workers=1))
    assert json.loads(run("fake", "show", "--json"))["gcp"] == {
        "path": str(worlds / "gcp-fake.sqlite"),
        "virtual_time": None,
        "clusters": [],
    }, "looking does not make a Google Cloud world"
    assert not (worlds / "gcp-fake.sqlite").exists()
    _gcp_cluster()
    run("fake", "advance", "1h")
    shown = json.loads(run("fake", "show", "--json"))
    assert [c["name"] for c in shown["clusters"]] == ["my-training-cluster"]
    [gcp] = shown["gcp"]["clusters"]
    assert gcp["state"] == "RUNNING" and {p["id"]: p["running"] for p in gcp["pools"]} == {"login": 1, "a4": 2}
    aws_time = dt.datetime.fromisoformat(shown["virtual_time"]).timestamp()
    assert shown["gcp"]["virtual_time"][:19] == timestamp(aws_time)[:19]
    table = run("fake", "show")
    assert "my-training-cluster" in table and "llmtrain" in table and "a4 a4-highgpu-8g 2 (2-2)" in table
    only = json.loads(run("fake", "show", "--json", "--cloud", "gcp"))
    assert [c["state"] for c in only["clusters"]] == ["RUNNING"] and "speed" not in only


def test_reset_deletes_both_worlds_and_the_clock_or_one_world(worlds):
    Simulator.open_default().client().create_cluster(**seed000_request(workers=1))
    _gcp_cluster()
    assert "pass --yes" in run("fake", "reset", code=1)
    said = run("fake", "reset", "--yes", "--cloud", "gcp")
    assert said.startswith("deleted the Google Cloud simulated world")
    assert not (worlds / "gcp-fake.sqlite").exists() and (worlds / "fake.sqlite").exists() and (worlds / "clock.sqlite").exists()
    _gcp_cluster()
    said = run("fake", "reset", "--yes")
    assert "deleted the simulated world" in said and "Google Cloud" in said and "clock" in said
    assert sorted(p.name for p in worlds.iterdir()) == []


def test_capacity_of_a_google_cloud_machine_type_is_the_google_cloud_worlds(worlds):
    assert run("fake", "capacity", "a4-highgpu-8g", "1").strip() == "a4-highgpu-8g (Google Cloud): 1 nodes"
    with GcpSimulator.open_default().world() as world:
        assert world.data["capacity"] == {"a4-highgpu-8g": 1}
    assert "a zone's" in run("fake", "capacity", "a4-highgpu-8g", "1", "--zone", "us-central1-a", code=1)
    assert "nor a Google Cloud machine type" in run("fake", "capacity", "b9-giant", "1", code=1)
    run("fake", "capacity", "a4-highgpu-8g", "unlimited")
    with GcpSimulator.open_default().world() as world:
        assert world.data["capacity"] == {}


def test_an_existing_world_keeps_its_time_when_the_clock_is_made(worlds):
    """A world made before the one clock (its clock in its own file) starts the clock at its time."""
    own = Simulator(worlds / "fake.sqlite", scenario={"speed": 0})
    own.advance(5 * HOUR)
    before = own.now()
    assert not (worlds / "clock.sqlite").exists()
    assert Simulator.open_default().now() == before
    with GcpSimulator.open_default().world() as world:
        assert world.now == pytest.approx(before.timestamp(), abs=1e-3)


def test_a_clock_file_that_is_not_one_is_a_one_line_error(worlds):
    worlds.mkdir(parents=True)
    (worlds / "clock.sqlite").write_text("not a clock\n")
    said = run("fake", "show", code=1)
    assert len(said.strip().splitlines()) == 1 and "clock.sqlite (clock.sqlite beside $HYPERPOD_FAKE_STATE)" in said
    assert "is not a simulator database (not SQLite): refused, left as it is" in said
    assert "not a simulator database" in run("fake", "reset", "--yes", code=1)
    assert (worlds / "clock.sqlite").read_text() == "not a clock\n", "reset leaves a file it did not make"
    assert (worlds / "clock.sqlite").read_text() == "not a clock\n"


def test_shared_clocks_of_one_file_agree_and_both_moves_count(tmp_path):
    wall = [1_000_000.0]
    first = SharedClock(tmp_path / "clock.sqlite", real_time=lambda: wall[0]).adopt(ManualClock(500.0).state())
    second = SharedClock(tmp_path / "clock.sqlite", real_time=lambda: wall[0])
    first.advance(10)
    second.advance(5)
    assert first.now() == second.now() == 515.0 and first.lead is None and first.speed is None
    second.adopt(ManualClock(400.0).state())  # a world behind the clock does not move it back
    assert first.now() == 515.0
    second.adopt(ManualClock(900.0).state())  # one ahead of it moves it up
    assert first.now() == 900.0
    with sqlite3.connect(tmp_path / "clock.sqlite") as db:
        assert json.loads(db.execute("SELECT state FROM clock").fetchone()[0]) == {"format": FORMAT, "kind": "manual", "now": 900.0}


def test_a_wall_clock_follows_real_time_and_fast_forwards_at_its_speed(tmp_path):
    wall = [1_000_000.0]
    clock = SharedClock(tmp_path / "clock.sqlite", real_time=lambda: wall[0]).adopt(WallClock(0.0, 600.0).state())
    wall[0] += 10
    assert clock.now() == 1_000_010.0 and clock.speed == 600.0
    clock.fast_forward(2)  # two real seconds waited: 1,198 more virtual ones than the wall clock gave
    assert clock.lead == 1198.0


def test_a_deleted_clock_file_is_made_again(tmp_path):
    clock = SharedClock(tmp_path / "clock.sqlite").adopt(ManualClock(100.0).state())
    clock.advance(50)
    (tmp_path / "clock.sqlite").unlink()
    for side in tmp_path.glob("clock.sqlite-*"):
        side.unlink()
    assert clock.now() == 100.0, "made again from the first world's clock"


def test_a_row_of_another_format_is_refused(tmp_path):
    path = tmp_path / "clock.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE clock (id INTEGER PRIMARY KEY, state TEXT NOT NULL)")
        db.execute("INSERT INTO clock VALUES (1, ?)", (json.dumps({"kind": "manual", "now": 1.0}),))
    with pytest.raises(ClockFileError, match="not hyperpod-fake-clock/1"):
        SharedClock(path).now()


def test_advance_finishes_what_became_due_in_the_google_cloud_world(worlds):
    from pulumi_hyperpod.gcp.spec import ClusterSpec
    from tests.support.gcp import EXAMPLE

    spec = ClusterSpec.from_document(json.loads(EXAMPLE.read_text()))
    body = spec.body()
    parent, _, cluster_id = spec.name.rpartition("/modelDevelopmentClusters/")
    connect("fake", poll_seconds=0).create_cluster(parent, cluster_id, body)  # not waited on: PROVISIONING
    assert [c["state"] for c in json.loads(run("fake", "show", "--json", "--cloud", "gcp"))["clusters"]] == ["PROVISIONING"]
    run("fake", "advance", "15m")
    assert [c["state"] for c in json.loads(run("fake", "show", "--json", "--cloud", "gcp"))["clusters"]] == ["RUNNING"]


# ---- a plan states the simulator's clock when it is not this machine's (issue 39, item 8) ----------
WALL = dt.datetime(2026, 12, 5, 22, 0, tzinfo=dt.timezone.utc).timestamp()


@pytest.mark.parametrize(
    "gap, running, said",
    [
        (9 * HOUR + 21 * 60 + 30, True, "simulator clock: 2026-12-06 07:21 UTC (9 h 21 min ahead of this machine)"),
        (59.0, True, None),  # following the wall clock: nothing to say
        (-2 * 86400 - 3 * HOUR, True, "simulator clock: 2026-12-03 19:00 UTC (2 d 3 h behind this machine)"),
        (0.0, False, "simulator clock: 2026-12-05 22:00 UTC (stopped, it moves only when advanced; this machine's time)"),
        (45 * 60, False, "simulator clock: 2026-12-05 22:45 UTC (stopped, it moves only when advanced; 45 min ahead of this machine)"),
    ],
)
def test_the_clock_note_says_the_world_time_and_how_far_from_the_wall_clock(gap, running, said):
    from pulumi_hyperpod.sim.clock import clock_note

    assert clock_note(WALL + gap, WALL, running) == said


def test_a_plan_against_a_simulator_ahead_of_the_wall_clock_says_its_time_once(tmp_path):
    """The issue: a 25-minute-old cluster billed 9.4 hours, events dated the next morning, and the plan
    never said the simulator's clock had run ahead. The wall clock here is injected: it stands still."""
    from pulumi_hyperpod.aws.client import connect as aws_connect
    from pulumi_hyperpod.aws.pipeline import prepare
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.plans import plan_text

    sim = Simulator(tmp_path / "fake.sqlite", real_time=lambda: WALL)
    client = aws_connect(backend="fake", simulator=sim)
    request = seed000_request("c", workers=2, login=False)
    client.create_cluster(**request)
    spec = ClusterSpec.from_dict(request)
    assert "simulator clock" not in " ".join(prepare(client, spec, skip_preflight="offline").plan.notes)  # on time: nothing said

    sim.advance(9 * HOUR + 21 * 60)
    the_plan = prepare(client, spec, skip_preflight="offline").plan
    said = "simulator clock: 2026-12-06 07:21 UTC (9 h 21 min ahead of this machine)"
    assert [note for note in the_plan.notes if note.startswith("simulator clock")] == [said]
    assert plan_text(the_plan).count(said) == 1
    assert json.loads(the_plan.to_json())["notes"].count(said) == 1


def test_an_in_memory_world_says_nothing_of_its_clock():
    """Its clock is the test's own (it moves only with advance): no note in the plans tests make on it."""
    from pulumi_hyperpod.aws.client import connect as aws_connect
    from pulumi_hyperpod.aws.pipeline import prepare
    from pulumi_hyperpod.aws.spec import ClusterSpec

    sim = Simulator()
    client = aws_connect(backend="fake", simulator=sim)
    request = seed000_request("c", workers=2, login=False)
    client.create_cluster(**request)
    sim.advance(9 * HOUR)
    notes = prepare(client, ClusterSpec.from_dict(request), skip_preflight="offline").plan.notes
    assert not any(note.startswith("simulator clock") for note in notes)
