"""What every command shares: the backend options, output, and turning errors into exit codes.

Two rules every command follows through the helpers here:
- Text a user or the service wrote (file names, cluster and group names, tags, error messages) is
  never read as rich markup: print it with `print_error` / `print_line`, put it in tables as
  `cell(...)`, or pass `rich.text.Text` objects. `[/x]` then prints as `[/x]`.
- Exit codes: 0 ok, 1 error (bad input, usage errors included), 2 only "refused by a guard";
  3 only from `plan --detailed-exitcode`: "the plan has changes" (Terraform's 2, which is taken here).
  `handle_errors` turns errors raised by a command into one line each and exit 1; `HyperpodGroup`
  makes click's own usage errors (bad option, `-f DIRECTORY`) exit 1 instead of click's 2.
"""

from __future__ import annotations

import functools
import json
import math
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar

import click

from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.core.errors import InputError, Violation
from pulumi_hyperpod.core.terminal import shown
import os
from pulumi_hyperpod.plans import Policy

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console
    from rich.text import Text

    from pulumi_hyperpod.plans import Policy

# Heavy modules (rich, botocore, pydantic, the service model, the spec and plan packages) are
# imported in the functions that use them, so that a command (or its --help) pays only for what it
# runs; tests/cli_startup checks which modules `hyperpod --help` and friends load.

EXIT_OK, EXIT_ERROR, EXIT_REFUSED = 0, 1, 2
F = TypeVar("F", bound=Callable[..., Any])
EXIT_CHANGES = 3  # `plan --detailed-exitcode`: the plan would change something (and no guard refused it)
DETAILED_EXITCODE_HELP = "Exit 3 when the plan has changes, 0 when there are none (for CI); errors still exit 1 and a refused plan 2."


def exit_for_plan(the_plan: Any, detailed: bool) -> None:
    """End `plan`: exit 2 when a guard refused it, 3 with `--detailed-exitcode` when it changes
    something, else return (exit 0). Both clouds' plan commands end here."""
    if the_plan.refused:
        sys.exit(EXIT_REFUSED)
    if detailed and not the_plan.empty:
        sys.exit(EXIT_CHANGES)


# Width of a table printed to a pipe or a file (a CI log): rich would wrap at 80 columns, splitting
# every long event description or ARN over several lines. Tables only take the width they need.
PIPED_WIDTH = 400
# The narrowest layout: $COLUMNS=0 (or a terminal that reports 0 columns) made rich print nothing at
# all, plans and errors alike, and 20 columns printed tables of blank cells. Below this width the
# lines wrap on the terminal instead, but every word is printed.
MIN_WIDTH = 60


@functools.cache
def _console_class() -> type[Console]:

    from rich.console import Console, ConsoleDimensions, RenderHook  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)
    from rich.segment import Segment  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    class _Escaped:
        """A renderable printed with the control characters of its text escaped (`shown`), its
        styles and the console's own control codes kept."""

        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def __rich_console__(self, console: Console, options: Any) -> Iterable[Segment]:
            for segment in console.render(self.inner, options):
                yield segment if segment.control or not segment.text else Segment(shown(segment.text), segment.style)

    class _Escaping(RenderHook):
        """What any cell, title or message carries is escaped before it is laid out (rich's public
        render hook: every renderable a print or log is given passes here)."""

        def process_renderables(self, renderables: list[Any]) -> list[Any]:
            return [_Escaped(renderable) for renderable in renderables]

    class _Console(Console):
        """A rich Console that, when not writing to a terminal and no $COLUMNS is set, lays out
        `PIPED_WIDTH` columns instead of 80; decided at each print, so redirected streams count."""

        fixed_width = False  # a width the caller gave; otherwise $COLUMNS is read at each print, not once

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            self.push_render_hook(_Escaping())

        @property
        def size(self) -> ConsoleDimensions:
            size = super().size
            columns = os.environ.get("COLUMNS", "").strip()
            if not self.fixed_width and columns.isdigit():  # the shared consoles outlive a change of $COLUMNS
                return ConsoleDimensions(max(int(columns), MIN_WIDTH), max(size.height, 1))
            if not self.fixed_width and not self.is_terminal and not columns:
                return ConsoleDimensions(PIPED_WIDTH, size.height)
            if size.width < MIN_WIDTH:
                return ConsoleDimensions(MIN_WIDTH, max(size.height, 1))
            return size

        @size.setter
        def size(self, new_size: tuple[int, int]) -> None:
            Console.size.fset(self, new_size)  # type: ignore[attr-defined]  # rich types `size` as an overloaded property

    return _Console


def make_console(stderr: bool = False, **options: Any) -> Console:
    console = _console_class()(stderr=stderr, **options)
    console.fixed_width = options.get("width") is not None  # type: ignore[attr-defined]  # _console_class's own attribute
    return console


# The shared consoles `common.out` and `common.err`, made on first use (module __getattr__ below).
# A console without a file writes to whatever sys.stdout/sys.stderr is current at each print.
_SHARED_CONSOLES = {
    "out": {"soft_wrap": False},
    "err": {"stderr": True, "soft_wrap": True},  # never split a field path or a message across lines
}


def _shared_console(name: str) -> Console:
    console = globals().get(name)
    if console is None:
        console = globals()[name] = make_console(**_SHARED_CONSOLES[name])
    return console


def __getattr__(name: str) -> Any:
    if name in _SHARED_CONSOLES:
        return _shared_console(name)
    if name == "ArgumentError":
        return _argument_error()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---- printing user and service text --------------------------------------------------------------
def cell(value: Any, style: str = "") -> Text:
    """A table cell (or title) showing `value` exactly: never parsed as markup."""
    from rich.text import Text  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    return Text("-" if value is None or value == "" else str(value), style=style)


def print_line(message: str, *, console: Console | None = None, style: str = "") -> None:
    """One line of plain text (no markup, no highlighting)."""
    from rich.text import Text  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    (console or _shared_console("out")).print(Text(message, style=style), highlight=False)


def print_error(message: str, label: str = "error") -> None:
    """`label: message` on stderr, the label in red; the message printed exactly as given."""
    from rich.text import Text  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    _shared_console("err").print(Text.assemble((f"{label}:", "red"), " ", shown(message, one_line=True)), highlight=False)


# ---- backend, JSON, names --------------------------------------------------------------------------
def client_from(ctx: click.Context, service: str = "sagemaker") -> Any:
    options = ctx.obj
    return connect(
        backend=options["backend"],
        region=options["region"],
        profile=options["profile"],
        service=service,
        endpoint_url=options.get("endpoint_url"),
    )


def region_of(client: Any) -> str:
    return getattr(getattr(client, "meta", None), "region_name", None) or "the current region"


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, sort_keys=True, default=str))


@functools.cache
def _argument_error() -> type:
    """`ArgumentError`, an InputError (whose module loads the service model: made on first use)."""

    class ArgumentError(InputError):
        """A command-line argument that breaks the model's rules (one line, exit 1)."""

        kind = "argument"

    ArgumentError.__module__ = __name__
    return ArgumentError


def check_cluster_name(name: str) -> str:
    """A NAME argument checked against the model (DescribeCluster's ClusterName: a name or an ARN)
    before any call: `error: NAME: 'a[/b]' does not match the pattern …`."""
    from pulumi_hyperpod.aws import servicemodel  # noqa: PLC0415 - the service model: only a command that checks a name loads it (tests/cli_startup)

    if not name.strip():  # the model's min is 0, but no cluster has an empty name
        raise _argument_error()([Violation("", "is empty; give the cluster's name or ARN")], source="NAME")
    problems = servicemodel.violations(servicemodel.input_shape("DescribeCluster").members["ClusterName"], name)
    if problems:
        raise _argument_error()(problems[:1], source="NAME")
    return name


class ClusterNotFound(LookupError):
    """The named cluster does not exist in the region (exit 1)."""

    def __init__(self, name: str, region: str):
        super().__init__(f"no cluster {name} in {region}")


def check_timeout(timeout: float) -> float:
    """`--timeout`, checked before any call: a finite number of seconds above 0 (else ValueError,
    which `handle_errors` prints as one line, exit 1)."""
    if not (timeout > 0 and math.isfinite(timeout)):
        raise ValueError(f"--timeout must be a number of seconds more than 0 (got {timeout:g})")
    return timeout


# ---- policy files ----------------------------------------------------------------------------------
def load_policy(path: str | None, protect: tuple[str, ...] = (), *, replace: tuple[str, ...] = (), reboot: tuple[str, ...] = ()) -> Policy:
    """The policy from `path` (YAML/JSON) plus `--protect`, `--replace` and `--reboot` ids; any problem
    is a PolicyError naming the file and the field, one line each."""
    from pulumi_hyperpod.aws.spec import PolicyError, read_document  # noqa: PLC0415 - the AWS spec's models: only a command given a spec or policy loads them (tests/cli_startup)

    source = path or ("--protect" if protect else "--replace" if replace else "--reboot")
    data: Any = read_document(path, PolicyError) if path else {}
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise PolicyError(
            [Violation("", f"a policy file is an object with the keys {', '.join(Policy.model_fields)}; got {type(data).__name__}")],
            source=source,
        )
    for key, ids in (("protected_node_ids", protect), ("replace_node_ids", replace), ("reboot_node_ids", reboot)):
        if not ids:
            continue
        given = data.get(key) or []
        if not isinstance(given, list):
            raise PolicyError([Violation(key, f"must be a list of node ids, got {type(given).__name__}")], source=source)
        data = {**data, key: sorted({str(x) for x in given} | set(ids))}
    return _validated_policy(data, source)


def _validated_policy(data: dict[str, Any], source: str) -> Policy:

    if not data:  # no file, or an empty one: the defaults, which need no validating model
        return Policy()
    import pydantic  # noqa: PLC0415 - pydantic: only a policy file loads it (tests/cli_startup)

    from pulumi_hyperpod.aws.spec import PolicyError  # noqa: PLC0415 - the AWS spec's models: only a command given a spec or policy loads them (tests/cli_startup)

    # Strict: `allow_replacement: "yes"` is a string, not True (YAML 1.2, see docs/specs.md).
    # Through JSON, so a list is a valid frozenset in strict mode.
    if any(isinstance(v, float) and not math.isfinite(v) for v in data.values()):
        bad = next(k for k, v in data.items() if isinstance(v, float) and not math.isfinite(v))
        raise PolicyError([Violation(str(bad), f"must be a finite number, got {data[bad]}")], source=source)
    try:
        return Policy.model_validate_json(json.dumps(data, default=str), strict=True)
    except pydantic.ValidationError as error:
        raise PolicyError([_policy_violation(problem) for problem in error.errors()], source=source) from None


def _policy_violation(problem: Mapping[str, Any]) -> Violation:

    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in problem["loc"]).lstrip(".")
    if problem["type"] == "extra_forbidden":
        return Violation(path, f"is not a known field (allowed: {', '.join(Policy.model_fields)})")
    if problem["type"] == "value_error":  # a validator's own sentence names the value already
        return Violation(path, str(problem["ctx"]["error"]))
    message = problem["msg"]
    rule = message[0].lower() + message[1:] if message else problem["type"]
    got = repr(problem.get("input"))
    return Violation(path, f"{rule}; got {got if len(got) <= 60 else got[:57] + '...'}")


# ---- errors and exit codes --------------------------------------------------------------------------
def handle_errors(command: F) -> F:
    """Errors a user can act on become one clear line each (core/messages.py says how: the label,
    the lines, the exit code 1, 2 for a guard's refusal, 130 for an interrupted apply), never a
    traceback. The files the command writes are checked against those it reads first (outputs.py)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            ctx = click.get_current_context(silent=True)
            if ctx is not None:
                from pulumi_hyperpod.cli.outputs import check_outputs  # noqa: PLC0415 - the output checks (core.files, the simulator's world files): run by a command, never by --help (tests/cli_startup)

                check_outputs(ctx)
            return command(*args, **kwargs)
        except BaseException as error:  # anything `render` does not word (a bug, SystemExit, click's own) is raised again
            from pulumi_hyperpod.core.messages import render  # noqa: PLC0415 - the error renderer: only a failing command loads it (tests/cli_startup)

            rendered = render(error)
            if rendered is None:
                raise
            for line in rendered.lines:
                print_error(line, label=rendered.label)
            sys.exit(rendered.exit_code)

    return wrapper  # type: ignore[return-value]


def _exit_one(error: click.UsageError) -> click.UsageError:
    """Exit 1; and the message, which often quotes what the user typed, with its control characters
    escaped (click prints it as it is)."""
    error.exit_code = EXIT_ERROR  # type: ignore[misc]  # click reads the instance's (ClickException.show, main)
    error.message = shown(error.message, one_line=True)  # type: ignore[misc]
    return error


class HyperpodGroup(click.Group):
    """The `hyperpod` group: click's usage errors (unknown option, `-f DIRECTORY`, a missing
    argument) exit 1 like every other error; 2 is reserved for "refused by a guard"."""

    def make_context(self, *args: Any, **kwargs: Any) -> click.Context:
        try:
            return super().make_context(*args, **kwargs)
        except click.UsageError as error:
            raise _exit_one(error) from None

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            raise _exit_one(error) from None
