"""What `hyperpod plan | apply | delete` do the same way for every cloud: HyperPod's commands
(plan_commands.py, cluster_commands.py) and Google Cloud's (`hyperpod gcp …`, gcp_commands.py)
both show a plan, check where it is saved, save and load it (core/planfile.py) and word a failed
apply through these. Each cloud's command keeps its own flags and what only it does."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.cloud import Prepared
    from pulumi_hyperpod.core.contract import ApplyError
    from pulumi_hyperpod.plans.model import Plan


def show_plan(the_plan: "Plan", as_json: bool) -> None:
    """The plan on stdout: its JSON form, or its tables (user text never read as markup)."""
    if as_json:
        click.echo(the_plan.to_json())
    else:
        from pulumi_hyperpod.plans import plan_renderable
        from pulumi_hyperpod.cli.common import out

        out.print(plan_renderable(the_plan))


def save_plan(prepared: "Prepared[Any, Any, Any]", out_file: str, *, target: Any, inputs: Any = ()) -> None:
    """The one plan file (`hyperpod-plan/3`), written by the cloud the plan is for."""
    from pulumi_hyperpod.core import planfile

    planfile.save(prepared, out_file, target=target, inputs=inputs)


def load_plan(plan_file: str, *, cloud: str, target: Any) -> "Prepared[Any, Any, Any]":
    """A saved plan, made again from its saved inputs by its cloud (SavedPlanError when it is not)."""
    from pulumi_hyperpod.core import planfile

    return planfile.load(plan_file, cloud=cloud, target=target)


def apply_failed(error: "ApplyError") -> str:
    """A call failed for good: what was done, and what to do."""
    return f"{error} (calls made: {', '.join(error.done) or 'none'}); re-run the same command: it plans again from what is there now"
