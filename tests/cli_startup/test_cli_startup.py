"""What a `hyperpod` process loads (issue 16): a command imports its own module and what it runs,
`--help` lists every command without importing any; and the listing says what the commands say.

Module loading is checked in fresh interpreters by `sys.modules`, never by timing (robust on a
loaded machine); the figures are in bench/cli_bench.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest

from pulumi_hyperpod.cli import app
from tests.support.paths import REPO

SPEC = REPO / "examples" / "specs" / "seed000-create-cluster.json"
COMMAND_MODULES = {f"pulumi_hyperpod.cli.{module}" for module, _attribute, _summary in app.COMMANDS.values()}

# Run `hyperpod ARGS` in this interpreter, then report (on stderr's last line) the exit code and
# the modules loaded: stdout stays the command's own output.
DRIVER = """
import json, sys
from pulumi_hyperpod.cli import main
try:
    main(sys.argv[1:], prog_name="hyperpod")
    code = 0
except SystemExit as done:
    code = done.code
sys.stdout.flush()
print(json.dumps({"code": code, "modules": sorted(sys.modules)}), file=sys.stderr)
"""

# Nothing of these is needed to show help: the service model and botocore, rich, pydantic, YAML,
# deep comparison, the pipeline and its stages, the simulator, the GCP and Slurm packages.
HEAVY = (
    "botocore",
    "boto3",
    "rich",
    "pydantic",
    "yaml",
    "deepdiff",
    "regex",
    "pulumi_hyperpod.aws.servicemodel",
    "pulumi_hyperpod.aws.spec",
    "pulumi_hyperpod.aws.pipeline",
    "pulumi_hyperpod.aws.saved",  # saved plans: only `plan --out` and `apply --plan` read or write one
    "pulumi_hyperpod.aws.observe",
    "pulumi_hyperpod.aws.apply",
    "pulumi_hyperpod.aws.cost",
    "pulumi_hyperpod.aws.preflight",
    "pulumi_hyperpod.sim.aws",
    "pulumi_hyperpod.gcp",
    "pulumi_hyperpod.slurm",
    "pulumi_hyperpod.aws.planner.rules",
    "pulumi_hyperpod.plans.render",
)


def hyperpod(*args: str, world: Path | None = None) -> tuple[int, str, set[str]]:
    """(exit code, stdout, modules loaded) of `hyperpod ARGS` in a fresh interpreter."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH")))), "COLUMNS": "100"}
    if world is not None:
        env["HYPERPOD_FAKE_STATE"] = str(world)
    proc = subprocess.run(
        [sys.executable, "-c", DRIVER, *args],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        cwd=world.parent if world else REPO,
        timeout=120,
    )
    report = json.loads(proc.stderr.strip().splitlines()[-1])
    return report["code"], proc.stdout, set(report["modules"])


def loaded(modules: set[str], prefixes: tuple[str, ...] | set[str]) -> list[str]:
    """Which of `prefixes` (packages: a name or anything under it) were imported."""
    return sorted(p for p in prefixes if any(m == p or m.startswith(p + ".") for m in modules))


def test_the_top_level_help_lists_every_command_and_imports_none():
    code, output, modules = hyperpod("--help")
    assert code == 0
    rows = output.split("Commands:\n", 1)[1].splitlines()
    assert [row.split()[0] for row in rows if row.startswith("  ") and not row.startswith("   ")] == sorted(app.COMMANDS)
    assert loaded(modules, COMMAND_MODULES) == []
    assert loaded(modules, HEAVY) == []


def test_the_version_imports_no_command():
    code, output, modules = hyperpod("--version")
    assert code == 0 and "version" in output
    assert loaded(modules, COMMAND_MODULES) == [] and loaded(modules, HEAVY) == []


# a group made of commands of another module: `hyperpod gcp plan` is `hyperpod plan` (one implementation)
BUILT_OF = {"gcp": ["pulumi_hyperpod.cli.plan_commands"]}


@pytest.mark.parametrize("name", sorted(app.COMMANDS))
def test_a_commands_help_imports_its_module_only(name):
    code, output, modules = hyperpod(name, "--help")
    assert code == 0
    assert output.startswith(f"Usage: hyperpod {name} ")
    assert loaded(modules, COMMAND_MODULES) == sorted([f"pulumi_hyperpod.cli.{app.COMMANDS[name][0]}", *BUILT_OF.get(name, [])])
    assert loaded(modules, HEAVY) == []


def test_plan_runs_with_its_own_module_only(tmp_path):
    """A real plan (an empty simulated world: a create) loads what it runs, and no other command,
    no apply executor or progress bars, no Google Cloud client."""
    code, output, modules = hyperpod("--backend", "fake", "plan", "-f", str(SPEC), world=tmp_path / "fake.sqlite")
    assert code == 0, output
    assert "CreateCluster" in output
    assert loaded(modules, COMMAND_MODULES) == ["pulumi_hyperpod.cli.plan_commands"]
    assert "pulumi_hyperpod.aws.stages" in modules and "rich.console" in modules  # it did run: the check can fail
    assert (
        loaded(
            modules,
            (
                "pulumi_hyperpod.aws.apply",
                "rich.progress",
                "rich.live",
                "deepdiff",
                "pulumi_hyperpod.gcp.client",
                "pulumi_hyperpod.gcp.spec",
                "pulumi_hyperpod.slurm",
            ),
        )
        == []
    )


def test_an_unknown_command_is_a_one_line_usage_error_exit_1():
    code, _output, modules = hyperpod("planx")
    assert code == 1
    assert loaded(modules, COMMAND_MODULES) == []


# ---- the listing says what the commands say -----------------------------------------------------
def test_the_table_names_every_exported_command_and_each_loads():
    import importlib

    exported = {}
    for module in sorted({module for module, _attribute, _summary in app.COMMANDS.values()}):
        for command in importlib.import_module(f"pulumi_hyperpod.cli.{module}").COMMANDS:
            exported[command.name] = module
    assert exported == {name: module for name, (module, _attribute, _summary) in app.COMMANDS.items()}
    for name in app.COMMANDS:
        command = app.load_command(name)
        assert isinstance(command, click.Command) and command.name == name and not command.hidden


@pytest.mark.parametrize("name", sorted(app.COMMANDS))
def test_each_summary_is_shortened_as_the_commands_own_help_at_every_width(name):
    real = app.load_command(name)
    stand_in = click.Command(name, help=app.COMMANDS[name][2])
    for limit in range(8, 200):
        assert stand_in.get_short_help_str(limit) == real.get_short_help_str(limit), limit


@pytest.mark.parametrize("width", [40, 60, 80, 100, 160])
def test_the_lazy_help_is_the_eager_help(width):
    """`hyperpod --help` from the summaries is, byte for byte, the help of a group holding the
    real commands (a fresh lazy group: in this process other tests may have loaded some)."""
    lazy = app.LazyGroup(
        name="hyperpod", params=app.main.params, callback=app.main.callback, help=app.main.help, context_settings=app.main.context_settings
    )
    eager = click.Group(
        name="hyperpod",
        params=app.main.params,
        callback=app.main.callback,
        help=app.main.help,
        context_settings=app.main.context_settings,
        commands={name: app.load_command(name) for name in app.COMMANDS},
    )

    def help_of(group: click.Group) -> str:
        with click.Context(group, info_name="hyperpod", terminal_width=width, max_content_width=width) as ctx:
            return group.get_help(ctx)

    assert not lazy.commands
    assert help_of(lazy) == help_of(eager)
    assert not lazy.commands  # listing loaded nothing


def test_the_wait_choices_are_the_wait_policies():
    from pulumi_hyperpod.aws.apply.waiters import WAIT_POLICIES
    from pulumi_hyperpod.cli.plan_commands import WAIT_CHOICES

    assert WAIT_CHOICES == tuple(WAIT_POLICIES)


def test_a_command_added_eagerly_wins_over_the_lazy_one():
    group = app.LazyGroup(name="hyperpod")
    replacement = click.Command("status", help="Replaced.")
    group.add_command(replacement)
    with click.Context(group) as ctx:
        assert group.get_command(ctx, "status") is replacement
        assert group.get_command(ctx, "nodes") is app.load_command("nodes")
        assert group.get_command(ctx, "no-such-command") is None


# ---- errors: the same lines and exit codes as before the imports moved ---------------------------
def _raising(error: BaseException):
    from pulumi_hyperpod.cli.common import handle_errors

    @handle_errors
    def command():
        raise error

    return command


def _client_error():
    from botocore.exceptions import ClientError

    return ClientError({"Error": {"Code": "ValidationException", "Message": "bad [/x] name"}}, "DescribeCluster")


def _input_error():
    from pulumi_hyperpod.core.errors import Violation
    from pulumi_hyperpod.aws.spec import SpecError

    return SpecError([Violation("InstanceGroups[0].InstanceCount", "must be at least 0")], source="spec.json")


@pytest.mark.parametrize(
    "make, line",
    [
        (_input_error, "error: spec.json: InstanceGroups[0].InstanceCount: must be at least 0"),
        (
            lambda: __import__("botocore.exceptions").exceptions.NoCredentialsError(),
            "error: no AWS credentials found: set AWS_PROFILE or use --profile; to try without AWS, use --backend fake",
        ),
        (_client_error, "error: DescribeCluster: ValidationException: bad [/x] name"),
        (
            lambda: __import__("botocore.exceptions").exceptions.EndpointConnectionError(endpoint_url="https://x"),
            'error: Could not connect to the endpoint URL: "https://x"',
        ),
        (lambda: FileNotFoundError(2, "No such file or directory"), "error: [Errno 2] No such file or directory"),
        (lambda: LookupError("no cluster c in us-west-2"), "error: no cluster c in us-west-2"),
    ],
)
def test_handled_errors_print_one_line_and_exit_1(make, line, capsys):
    with pytest.raises(SystemExit) as exit_:
        _raising(make())()
    assert exit_.value.code == 1
    assert capsys.readouterr().err.splitlines() == line.splitlines()


@pytest.mark.parametrize("error", [RuntimeError("a bug"), click.UsageError("bad option"), KeyboardInterrupt()])
def test_other_errors_pass_through_unchanged(error):
    with pytest.raises(type(error)) as raised:
        _raising(error)()
    assert raised.value is error


# ---- exit: no collector pass over everything, and nothing lost ---------------------------------
def test_the_garbage_collector_is_frozen_only_when_the_process_ends(tmp_path):
    """The atexit hook runs after the command, before the interpreter's teardown; the hooks
    registered before it (as this one) still run after it."""
    code = (
        "import atexit, gc, sys\n"
        "atexit.register(lambda: print('frozen at exit:', gc.get_freeze_count() > 0, file=sys.stderr))\n"
        "from pulumi_hyperpod.cli import main\n"
        "try:\n    main(['--version'])\nexcept SystemExit:\n    pass\n"
        "print('frozen before exit:', gc.get_freeze_count() > 0, file=sys.stderr)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)}
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.splitlines()[-2:] == ["frozen before exit: False", "frozen at exit: True"]


def test_what_one_process_applies_the_next_one_sees(tmp_path):
    world = tmp_path / "fake.sqlite"
    code, output, _ = hyperpod("--backend", "fake", "apply", "-f", str(SPEC), "--yes", "--wait", "none", world=world)
    assert code == 0, output
    code, output, _ = hyperpod("--backend", "fake", "status", "my-training-cluster", "--json", world=world)
    assert code == 0, output
    assert json.loads(output)["name"] == "my-training-cluster"
