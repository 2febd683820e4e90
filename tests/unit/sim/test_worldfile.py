"""Issue 36, item 7: the simulators' files are their own. A file under $HYPERPOD_FAKE_STATE,
$HYPERPOD_GCP_FAKE_STATE or the shared clock's path (clock.sqlite beside the HyperPod world) that the
simulator did not make — an unrelated SQLite database, a text file, a world of another kind, a world
of a newer schema — is refused with one line naming the variable, the path and the rule, before
anything is written: its bytes, its mode and its directory (no -wal / -shm / -journal) are as they
were, through list, plan, apply, reset and serve."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim import worldfile
from tests.support.foreign_world_trials import AWS_SPEC, COMMANDS, FILES, GCP_SPEC, PLACES, run_trial, unrelated_database


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("what", sorted(FILES))
@pytest.mark.parametrize("place", sorted(PLACES))
def test_a_file_the_simulator_did_not_make_is_refused_and_left_as_it_was(tmp_path, place, what, command):
    trial = run_trial(place, what, command, tmp_path)

    assert not trial.changed, trial.output
    assert trial.refused or not trial.opens, trial.output


def place_file(tmp_path: Path, monkeypatch, place: str, make) -> Path:
    """The file `make` writes, at `place` under tmp/worlds; the specs in tmp, the working directory."""
    variable, name = PLACES[place]
    directory = tmp_path / "worlds"
    directory.mkdir()
    target = directory / name
    make(target)
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(directory / "fake.sqlite"))
    if place != "clock":
        monkeypatch.setenv(variable, str(target))
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.05")
    monkeypatch.chdir(tmp_path)
    shutil.copy(AWS_SPEC, tmp_path / "spec.json")
    shutil.copy(GCP_SPEC, tmp_path / "gcp.json")
    return target


def test_reset_deletes_nothing_when_one_file_is_foreign(tmp_path, monkeypatch):
    """The clock is foreign: the HyperPod world beside it, the simulator's own, stays too."""
    target = place_file(tmp_path, monkeypatch, "clock", unrelated_database)
    CliRunner().invoke(main, ["--backend", "fake", "fake", "show", "--cloud", "gcp"])
    world = target.with_name("fake.sqlite")
    with sqlite3.connect(world) as db:  # a world of the simulator's own, made by hand here
        db.execute(f"PRAGMA application_id = {worldfile.AWS_WORLD.application_id}")
        db.execute(f"PRAGMA user_version = {worldfile.AWS_WORLD.version}")
    db.close()

    result = CliRunner().invoke(main, ["--backend", "fake", "fake", "reset", "--yes"])

    assert result.exit_code == 1 and "clock.sqlite" in result.output, result.output
    assert world.exists() and target.exists()


def test_an_empty_file_becomes_a_new_world(tmp_path, monkeypatch):
    """A 0-byte file holds nothing to lose (`mktemp`): the world is made in it, marked as the simulator's."""
    target = place_file(tmp_path, monkeypatch, "aws", lambda path: path.touch())

    result = CliRunner().invoke(main, ["--backend", "fake", "list"])

    assert result.exit_code == 0, result.output
    assert worldfile.kind_of(target) == worldfile.AWS_WORLD
    assert CliRunner().invoke(main, ["--backend", "fake", "fake", "reset", "--yes", "--cloud", "aws"]).exit_code == 0
    assert not target.exists()


def test_the_simulators_own_files_carry_the_marker(tmp_path, monkeypatch):
    place_file(tmp_path, monkeypatch, "gcp", lambda path: None)
    directory = tmp_path / "worlds"

    assert CliRunner().invoke(main, ["--backend", "fake", "apply", "-f", "spec.json", "--yes", "--wait", "none"]).exit_code == 0
    assert CliRunner().invoke(main, ["--backend", "fake", "gcp", "plan", "-f", "gcp.json"]).exit_code == 0

    assert worldfile.kind_of(directory / "fake.sqlite") == worldfile.AWS_WORLD
    assert worldfile.kind_of(directory / "mine.db") == worldfile.GCP_WORLD
    assert worldfile.kind_of(directory / "clock.sqlite") == worldfile.CLOCK
    assert oct(os.stat(directory / "fake.sqlite").st_mode & 0o777) == "0o600"


def test_a_world_made_before_the_marker_is_adopted(tmp_path):
    """A world of an earlier version (the simulator's tables, no marker) is recognised by its tables
    and marked; an unrelated database with a table more is not."""
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.sim.aws.store import SCHEMA

    old = tmp_path / "old.sqlite"
    Simulator(old).advance(60)
    with sqlite3.connect(old) as db:  # as an earlier version left it: no marker, in WAL mode
        db.execute("PRAGMA application_id = 0")
        db.execute("PRAGMA user_version = 0")
        db.execute("DROP TABLE IF EXISTS s3_objects")  # came with the marker: no earlier world has it
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    assert worldfile.kind_of(old) is None

    assert Simulator(old).overview()["clusters"] == []
    assert worldfile.kind_of(old) == worldfile.AWS_WORLD

    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.executescript(SCHEMA)
        db.execute("CREATE TABLE mine (x)")
    db.close()
    with pytest.raises(worldfile.ForeignFile, match="not made by the simulator"):
        Simulator(other)


def test_an_empty_file_whose_pages_are_in_its_wal_is_not_empty(tmp_path):
    """A 0-byte database file with its content in `-wal` beside it is someone's database, not a new world."""
    path = tmp_path / "mine.db"
    path.touch()
    (tmp_path / "mine.db-wal").write_bytes(b"\x37\x7f\x06\x82" + b"\0" * 60)

    assert "its content is in its -wal file" in (worldfile.problem(path, worldfile.AWS_WORLD) or "")
    with pytest.raises(worldfile.ForeignFile):
        worldfile.prepare(path, worldfile.AWS_WORLD, "$HYPERPOD_FAKE_STATE")
    assert path.read_bytes() == b""


@pytest.mark.parametrize(
    "env, said",
    [
        ({"HYPERPOD_FAKE_STATE": "{dir}/clock.sqlite"}, "is where the simulators' clock goes"),
        ({"HYPERPOD_FAKE_STATE": "{dir}/gcp-fake.sqlite"}, "is where the Google Cloud simulator's world goes"),
        ({"HYPERPOD_FAKE_STATE": "{dir}/w.sqlite", "HYPERPOD_GCP_FAKE_STATE": "{dir}/w.sqlite"}, "is where the Google Cloud"),
        ({"HYPERPOD_FAKE_STATE": "{dir}/w.sqlite", "HYPERPOD_GCP_FAKE_STATE": "{dir}/clock.sqlite"}, "is where the simulators' clock goes"),
    ],
)
def test_two_of_the_simulators_files_at_one_path_are_refused_before_either_is_made(tmp_path, monkeypatch, env, said):
    for variable, value in env.items():
        monkeypatch.setenv(variable, value.replace("{dir}", str(tmp_path)))

    for args in (["list"], ["gcp", "--project", "p", "--location", "us-central1", "list"], ["fake", "reset", "--yes"]):
        result = CliRunner().invoke(main, ["--backend", "fake", *args])
        assert result.exit_code == 1 and said in result.output and len(result.output.strip().splitlines()) == 1, result.output
    assert list(tmp_path.iterdir()) == []


def test_a_google_cloud_world_and_a_clock_made_before_the_marker_are_adopted_too(tmp_path):
    from pulumi_hyperpod.sim.clock import ManualClock, SharedClock
    from pulumi_hyperpod.sim.gcp import GcpSimulator

    gcp, clock = tmp_path / "gcp-fake.sqlite", tmp_path / "clock.sqlite"
    with GcpSimulator(gcp).world():
        pass
    SharedClock(clock).adopt(ManualClock(500.0).state())
    for path in (gcp, clock):  # as an earlier version left them: no marker
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA application_id = 0")
            db.execute("PRAGMA user_version = 0")
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        db.close()
        assert worldfile.kind_of(path) is None

    with GcpSimulator(gcp).world() as world:
        assert world.data["clusters"] == {}
    assert SharedClock(clock).now() == 500.0
    assert (worldfile.kind_of(gcp), worldfile.kind_of(clock)) == (worldfile.GCP_WORLD, worldfile.CLOCK)
