"""A command never writes over what it reads: every file it writes (`--out`, declared `OutputPath`)
is checked, before the command does anything, against every file it reads — each of its path options
(the spec, a saved plan, a snapshot, a policy, a Slurm spec, a lifecycle folder) and the simulators'
files, read by any command on `--backend fake`: both clouds' worlds, their clock and SQLite's files
beside them (sim/worldfile.py), whether or not they exist yet. One line names both:
`error: OUT: the plan cannot be saved (is the HyperPod simulator's world … ($HYPERPOD_FAKE_STATE): …)`.

`handle_errors` runs the check for every command, so a new output option is covered the day it is
declared (tests/unit/cli/test_outputs.py enumerates the commands' options and fails on an output that
is not an `OutputPath`). The writers pass the same inputs to `files.write_whole`, which checks again
at the rename (a world may be made while the command runs).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from pulumi_hyperpod.sim.worldfile import paths_in_use
from pulumi_hyperpod.core.files import Input, describe_input, unsafe_reason, why_unwritable


class OutputPath(click.Path):
    """A path option a command writes. `what` is what is saved there ("the plan"); `writes`: for a
    folder, the entries the command writes in it (files, or folders, ending in `/`, whose content it writes)."""

    def __init__(self, what: str, writes: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.what = what
        self.writes = writes


def command_inputs(ctx: click.Context) -> list[Any]:
    """Every file `ctx`'s command reads: its path parameters (not its outputs), then the simulators' files."""
    found: list[Any] = []
    for param in ctx.command.params:
        if not isinstance(param.type, click.Path) or isinstance(param.type, OutputPath):
            continue
        value = ctx.params.get(param.name or "")
        for each in value if isinstance(value, (tuple, list)) else (value,):
            if each:
                found.append(str(each))
    return found + simulator_files()


def simulator_files() -> list[Any]:
    """The simulators' files as the environment places them (there yet or not), each named for a refusal."""

    return [Input(path, label) for path, label in paths_in_use()]


def check_outputs(ctx: click.Context) -> None:
    """ValueError, one line naming the output and the input, when a file the command would write is
    one it reads (or is not a regular file or a new path: core/files.py); nothing is done before it."""
    given = [
        (param, str(value))
        for param in ctx.command.params
        if isinstance(param.type, OutputPath)
        if (value := ctx.params.get(param.name or ""))
    ]
    if not given:
        return

    inputs = command_inputs(ctx)
    for param, value in given:
        kind: OutputPath = param.type  # type: ignore[assignment]
        if not kind.writes:
            reason = why_unwritable(value, inputs)
            if reason is not None:
                raise ValueError(f"{value}: {kind.what} cannot be saved ({reason})")
            continue
        for entry in kind.writes:
            target = Path(value) / entry
            reason = _inside(target, inputs) if entry.endswith("/") else unsafe_reason(target, inputs)
            if reason is not None:
                raise ValueError(f"{value}: {kind.what} cannot be saved ({target}: {reason})")


def _inside(folder: Path, inputs: list[Any]) -> str | None:
    """Why writing the folder's content would touch an input: one is in it."""

    root = os.path.realpath(folder)
    for given in inputs:
        real = os.path.realpath(os.fspath(given))
        if real == root or real.startswith(root + os.sep):
            return f"holds {describe_input(given)}: refused, never overwritten (write to another folder)"
    return None
