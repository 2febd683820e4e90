"""Foreign worlds (issue 36, item 7): a file the simulators did not make, put where they keep one of
theirs — the HyperPod world ($HYPERPOD_FAKE_STATE), the Google Cloud world ($HYPERPOD_GCP_FAKE_STATE)
or their clock (clock.sqlite beside the HyperPod world) — then every command that opens it. Used by
tests/unit/sim/test_worldfile.py and bench/reliability_report.py.

A trial is refused when the command exits 1 with one error line naming the variable, the path and
the rule; a file changed is one whose bytes, mode or SQLite side files (-wal, -shm, -journal) are not
what they were, whether or not the command opens it.
"""

from __future__ import annotations

import os
import sqlite3
import tempfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable

from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim import worldfile
from tests.support.paths import REPO

ROOT = REPO
AWS_SPEC = ROOT / "examples" / "specs" / "seed004-initial.json"
GCP_SPEC = ROOT / "examples" / "gcp-training-cluster" / "cluster.json"


def _sqlite(path: Path, *statements: str) -> None:
    with sqlite3.connect(path) as db:
        for statement in statements:
            db.execute(statement)
    db.close()
    os.chmod(path, 0o644)


def unrelated_database(path: Path) -> None:
    """Someone's own SQLite file: a table of theirs, rollback journal, mode 0644."""
    _sqlite(path, "CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT)", "INSERT INTO notes (text) VALUES ('keep me')")


def text_file(path: Path) -> None:
    path.write_text("my notes, not a database\n")
    os.chmod(path, 0o644)


def marked(kind: worldfile.Kind, version: int) -> Callable[[Path], None]:
    """A file carrying `kind`'s marker at `version` (one more than this code reads: a newer schema)."""
    return lambda path: _sqlite(path, f"PRAGMA application_id = {kind.application_id}", f"PRAGMA user_version = {version}")


# where the file goes: the variable the error names, and the file's name in the trial's folder
PLACES = {
    "aws": ("HYPERPOD_FAKE_STATE", "mine.db"),
    "gcp": ("HYPERPOD_GCP_FAKE_STATE", "mine.db"),
    "clock": ("HYPERPOD_FAKE_STATE", "clock.sqlite"),
}
_KIND = {"aws": worldfile.AWS_WORLD, "gcp": worldfile.GCP_WORLD, "clock": worldfile.CLOCK}
_OTHER = {"aws": worldfile.GCP_WORLD, "gcp": worldfile.CLOCK, "clock": worldfile.AWS_WORLD}
FILES: dict[str, Callable[[str], Callable[[Path], None]]] = {
    "unrelated-sqlite": lambda place: unrelated_database,
    "text": lambda place: text_file,
    "newer-schema": lambda place: marked(_KIND[place], _KIND[place].version + 1),
    "another-kind": lambda place: marked(_OTHER[place], _OTHER[place].version),
}
RULE = {
    "unrelated-sqlite": "not made by the simulator",
    "text": "not SQLite",
    "newer-schema": "newer schema",
    "another-kind": "not the",
}

# the commands, and the files each opens
COMMANDS: dict[str, tuple[tuple[str, ...], set[str]]] = {
    "list": (("list",), {"aws", "clock"}),
    "plan": (("plan", "-f", str(AWS_SPEC)), {"aws", "clock"}),
    "apply": (("apply", "-f", str(AWS_SPEC), "--yes", "--wait", "none"), {"aws", "clock"}),
    "gcp-plan": (("gcp", "plan", "-f", str(GCP_SPEC)), {"gcp", "clock"}),
    "gcp-list": (("gcp", "--project", "p", "--location", "us-central1", "list"), {"gcp", "clock"}),
    "reset": (("fake", "reset", "--yes"), {"aws", "gcp", "clock"}),
    "reset-gcp": (("fake", "reset", "--yes", "--cloud", "gcp"), {"gcp"}),
    "show": (("fake", "show"), {"aws", "clock"}),
    "serve": (("fake", "serve", "--port", "0", "--stop-after", "0.2", "--quiet"), {"aws", "gcp", "clock"}),
}


@dataclass
class Trial:
    place: str
    what: str
    command: str
    opens: bool  # the command uses the file: it must refuse
    refused: bool = False
    changed: bool = False
    output: str = ""


def _fingerprint(path: Path) -> tuple[bytes, int, list[str]]:
    return path.read_bytes(), os.stat(path).st_mode, sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name))


def run_trial(place: str, what: str, command: str, directory: Path) -> Trial:
    """`command` with the file `what` put at `place`, in an empty `directory`."""
    variable, name = PLACES[place]
    target = directory / name
    FILES[what](place)(target)
    env: dict[str, str | None] = {
        "HYPERPOD_FAKE_STATE": str(directory / "fake.sqlite"),
        "HYPERPOD_POLL_SECONDS": "0.05",
        "HYPERPOD_GCP_FAKE_STATE": None,
    }
    if place != "clock":
        env[variable] = str(target)
    before = _fingerprint(target)
    args, opens = COMMANDS[command]
    result = CliRunner().invoke(main, ["--backend", "fake", *args], env=env)
    trial = Trial(place, what, command, place in opens, output=result.output)
    trial.changed = _fingerprint(target) != before
    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    trial.refused = (
        result.exit_code == 1
        and "Traceback" not in result.output
        and len(errors) == 1
        and all(word in errors[0] for word in (variable, str(target), RULE[what]))
    )
    return trial


def all_trials() -> list[Trial]:
    trials = []
    for place in sorted(PLACES):
        for what in sorted(FILES):
            for command in sorted(COMMANDS):
                with tempfile.TemporaryDirectory() as folder:
                    (Path(folder) / "worlds").mkdir()
                    trials.append(run_trial(place, what, command, Path(folder) / "worlds"))
    return trials


def summary(trials: list[Trial]) -> dict[str, int]:
    """Tried: trials whose command opens the file; refused: of those, the ones refused in one line; files changed: any trial."""
    tried = [trial for trial in trials if trial.opens]
    return {
        "tried": len(tried),
        "refused": sum(trial.refused for trial in tried),
        "files changed": sum(trial.changed for trial in trials),
    }
