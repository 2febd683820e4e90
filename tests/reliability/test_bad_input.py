"""The bad-input corpus (tests/badinput/): every file is rejected with a message naming the field
and the rule, with zero API calls — through the CLI (plan and apply) and through the provider.
Policy files (`--policy`) and snapshots (`--observed`) have corpora of their own, held to the same
standard: exit 1, one line naming the file, the field and the rule."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from pulumi.runtime import rpc

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.provider import ClusterProvider, register_simulator, unregister_simulator
from pulumi_hyperpod.provider.resource import ClusterArgs, build_spec
from pulumi_hyperpod.aws.spec import SpecError, parse_document
from tests.support.paths import BADINPUT, SPECS

EXPECTED: dict[str, list[str]] = json.loads((BADINPUT / "expected.json").read_text())
FILES = sorted(EXPECTED)
SIDE = {kind: json.loads((BADINPUT / f"expected-{kind}.json").read_text()) for kind in ("policy", "snapshot")}
SEED_SPEC = SPECS / "seed004-initial.json"


def test_corpus_is_complete():
    on_disk = sorted(p.name for p in (BADINPUT / "corpus").iterdir())
    assert on_disk == FILES, "re-run tests/badinput/make_corpus.py"
    assert len(FILES) >= 200
    assert {Path(f).suffix for f in FILES} == {".json", ".yaml"}


def test_side_corpora_are_complete():
    for kind, expected in SIDE.items():
        assert sorted(p.name for p in (BADINPUT / f"corpus-{kind}").iterdir()) == sorted(expected), kind
        assert len(expected) >= 25


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    state = tmp_path_factory.mktemp("badinput") / "fake.sqlite"
    sim = Simulator(state)
    mp = pytest.MonkeyPatch()
    mp.setenv("HYPERPOD_FAKE_STATE", str(state))
    yield sim
    mp.undo()
    assert sim.calls == [], "a bad input reached the (simulated) service"


def mentions(text: str, path: str, rule: str) -> bool:
    return any(path in line and rule.lower() in line.lower() for line in text.splitlines())


@pytest.mark.parametrize("name", FILES)
def test_cli_rejects_with_field_and_rule(world, name):
    path, rule = EXPECTED[name]
    spec = str(BADINPUT / "corpus" / name)
    runner = CliRunner()
    for args in (["plan", "-f", spec], ["apply", "-f", spec, "--yes"], ["plan", "-f", spec, "--json"]):
        result = runner.invoke(main, ["--backend", "fake", *args])
        output = result.output + (result.stderr if result.stderr_bytes is not None else "")
        assert result.exit_code == 1, (args, result.exit_code, output)
        assert "Traceback" not in output, output
        assert result.exception is None or isinstance(result.exception, SystemExit), output
        assert mentions(output, path, rule), (path, rule, output)
    assert world.calls == []


@pytest.mark.parametrize("kind, name", [(kind, name) for kind in SIDE for name in sorted(SIDE[kind])])
def test_bad_policies_and_snapshots_are_one_line_naming_file_field_and_rule(world, kind, name):
    path, rule = SIDE[kind][name]
    file = BADINPUT / f"corpus-{kind}" / name
    option = "--policy" if kind == "policy" else "--observed"
    result = CliRunner().invoke(main, ["--backend", "fake", "plan", "-f", str(SEED_SPEC), option, str(file)])
    output = result.output
    assert result.exit_code == 1, (result.exit_code, output)
    assert "Traceback" not in output and (result.exception is None or isinstance(result.exception, SystemExit)), output
    assert any(str(file) in line and path in line and rule.lower() in line.lower() for line in output.splitlines()), output
    assert all(line.startswith(f"error: {file}: ") for line in output.splitlines()), output
    assert world.calls == []


# ---- files read by the one reader, and environment values (issue 24) -------------------------------
READ_ALIKE = {kind: json.loads((BADINPUT / f"expected-{kind}.json").read_text()) for kind in ("prices", "lifecycle", "plan", "fleetplan")}
ENV = json.loads((BADINPUT / "expected-env.json").read_text())
SNAPSHOT = BADINPUT / "base-snapshot.json"


def test_read_alike_corpora_are_complete():
    for kind, expected in READ_ALIKE.items():
        assert sorted(p.name for p in (BADINPUT / f"corpus-{kind}").iterdir()) == sorted(expected), kind
        assert len(expected) >= 6
    assert len(ENV) >= 12


def _invocation(kind: str, file: Path) -> tuple[list[str], dict[str, str]]:
    offline = ["plan", "-f", str(SEED_SPEC), "--observed", str(SNAPSHOT)]  # no API call: the file is the only input
    if kind == "prices":
        return offline, {"HYPERPOD_PRICES": str(file)}
    if kind == "lifecycle":
        return [*offline, "--lifecycle", str(file)], {}
    if kind == "fleetplan":  # refused before the fleet file's stacks are previewed
        return ["fleet", "apply", str(BADINPUT / "base-fleet.yaml"), "--plan", str(file), "--yes"], {}
    return ["apply", "--plan", str(file), "--yes"], {}


@pytest.mark.parametrize("kind, name", [(kind, name) for kind in READ_ALIKE for name in sorted(READ_ALIKE[kind])])
def test_price_files_lifecycle_parameters_and_saved_plans_are_one_line_naming_the_file(world, kind, name, monkeypatch):
    path, rule = READ_ALIKE[kind][name]
    file = BADINPUT / f"corpus-{kind}" / name
    args, env = _invocation(kind, file)
    for variable, value in env.items():
        monkeypatch.setenv(variable, value)
    from pulumi_hyperpod.aws.cost import prices

    prices._defaults.cache_clear()
    result = CliRunner().invoke(main, ["--backend", "fake", *args])
    output = result.output
    assert result.exit_code == 1, (result.exit_code, output)
    assert "Traceback" not in output and (result.exception is None or isinstance(result.exception, SystemExit)), output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, output
    assert str(file) in errors[0] and path in errors[0] and rule.lower() in errors[0].lower(), output
    assert world.calls == []


FLEETS = json.loads((BADINPUT / "expected-fleet.json").read_text())


def test_the_fleet_corpus_is_complete():
    assert sorted(p.name for p in (BADINPUT / "corpus-fleet").iterdir()) == sorted(FLEETS)


@pytest.mark.parametrize("name", sorted(FLEETS))
def test_bad_fleet_files_are_one_line_naming_the_file_field_and_rule(world, name):
    path, rule = FLEETS[name]
    file = BADINPUT / "corpus-fleet" / name
    for command in ("plan", "apply"):
        result = CliRunner().invoke(main, ["fleet", command, str(file), *(["--yes"] if command == "apply" else [])])
        output = result.output
        assert result.exit_code == 1, (result.exit_code, output)
        assert "Traceback" not in output and (result.exception is None or isinstance(result.exception, SystemExit)), output
        assert output.splitlines() == [line for line in output.splitlines() if line.startswith(f"error: {file}: {path}: ")], output
        assert len(output.splitlines()) == 1 and rule.lower() in output.lower(), output
    assert world.calls == []


@pytest.mark.parametrize("label", sorted(ENV))
def test_bad_environment_values_are_one_line_naming_the_variable(world, label, tmp_path, monkeypatch):
    import os

    import sqlite3

    from pulumi_hyperpod.sim.clock import SharedClock

    variable, value, rule = ENV[label]
    (tmp_path / "notes.txt").write_text("not a database\n")
    if "{fifo}" in value:
        os.mkfifo(tmp_path / "fifo.yaml")
    with sqlite3.connect(tmp_path / "someones.sqlite") as db:  # someone's own database: never a world
        db.execute("CREATE TABLE mine (x)")
    db.close()
    SharedClock(tmp_path / "clock.sqlite").now()  # the simulators' clock: not a world either
    foreign = {name: (tmp_path / name).read_bytes() for name in ("notes.txt", "someones.sqlite")}
    value = (
        value.replace("{dir}", str(tmp_path))
        .replace("{notes}", str(tmp_path / "notes.txt"))
        .replace("{fifo}", str(tmp_path / "fifo.yaml"))
        .replace("{sqlite}", str(tmp_path / "someones.sqlite"))
    )
    monkeypatch.setenv(variable, value)
    from pulumi_hyperpod.aws.cost import prices

    prices._defaults.cache_clear()
    args = (
        ["status", "leo-stg-hyperpod-cluster"]
        if variable != "HYPERPOD_PRICES"
        else ["plan", "-f", str(SEED_SPEC), "--observed", str(SNAPSHOT)]
    )
    if variable == "HYPERPOD_POLL_SECONDS":
        args = ["apply", "-f", str(SEED_SPEC), "--yes"]
    result = CliRunner().invoke(main, ["--backend", "fake", *args])
    output = result.output
    assert result.exit_code == 1 and "Traceback" not in output, output
    errors = [line for line in output.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and variable in errors[0] and rule in errors[0], output
    assert world.calls == []
    assert {name: (tmp_path / name).read_bytes() for name in foreign} == foreign


def _wire(props: dict) -> dict:
    async def encode():
        return await rpc.serialize_properties(props, {})

    loop = asyncio.new_event_loop()
    try:
        return rpc.deserialize_properties(loop.run_until_complete(encode()), True)
    finally:
        loop.close()


@pytest.fixture(scope="module")
def provider():
    sim = Simulator(seed=1)
    register_simulator("badinput-world", sim)
    yield ClusterProvider(simulator="badinput-world")
    unregister_simulator("badinput-world")
    assert sim.calls == []


@pytest.mark.parametrize("name", FILES)
def test_provider_rejects_with_field_and_rule(provider, name):
    path, rule = EXPECTED[name]
    file = BADINPUT / "corpus" / name
    try:
        data = parse_document(file.read_bytes().decode("utf-8"), file.suffix)
    except (SpecError, UnicodeDecodeError):
        # not a document at all: the program's spec_file= fails before the engine sees a property
        with pytest.raises(SpecError) as raised:
            build_spec(ClusterArgs(spec_file=str(file)))
        assert mentions(str(raised.value), path, rule), str(raised.value)
        return
    result = provider.check({}, _wire({"spec": data, "backend": "fake"}))
    failures = [(f.property, f.reason) for f in result.failures]
    assert failures, f"{name} passed check"
    if not isinstance(data, dict):  # `spec=None` is a missing spec, `spec=42` not an object
        assert failures[0][0] == "spec" and ("object" in failures[0][1] or "required" in failures[0][1]), failures
        return
    assert any(path in prop and rule.lower() in f"{prop}: {reason}".lower() for prop, reason in failures), failures
    assert all(prop == "spec" or prop.startswith("spec.") for prop, _ in failures), failures
