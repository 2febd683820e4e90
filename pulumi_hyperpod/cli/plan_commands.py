"""`hyperpod plan` and `hyperpod apply`: spec → observe → plan → preflight → (save | apply)."""

from __future__ import annotations

import sys
from pathlib import Path

import click
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..apply import ApplyError, PlanRefused, WAIT_POLICIES, apply as run_apply
from ..client import default_poll_seconds
from ..observe import ClusterState, load_snapshot, observe
from ..plan import Plan, plan as make_plan, plan_renderable
from ..preflight import preflight, skipped
from ..spec import ClusterSpec
from .tables import status_table
from .common import EXIT_ERROR, EXIT_REFUSED, client_from, emit_json, err, handle_errors, load_policy, out


def _spec_option(command):
    return click.option("-f", "--file", "spec_file", required=True, type=click.Path(dir_okay=False),
                        help="Cluster spec: JSON or YAML, the AWS CLI --cli-input-json form or snake_case.")(command)


def _policy_options(command):
    command = click.option("--policy", "policy_file", type=click.Path(exists=True, dir_okay=False), help="Policy file (YAML/JSON).")(command)
    return click.option("--protect", multiple=True, metavar="NODE_ID", help="Never remove this node (repeatable).")(command)


def _preflight_option(command):
    return click.option("--no-preflight", is_flag=True,
                        help="Skip the preflight checks (service quotas, lifecycle consistency of a scale-out).")(command)


def _checked(ctx: click.Context, the_plan: Plan, spec: ClusterSpec, observed: ClusterState | None, policy, client,
             no_preflight: bool) -> Plan:
    """The plan with its preflight section: read from the account, unless asked not to."""
    if no_preflight:
        return skipped(the_plan, "--no-preflight: service quotas and node build configurations were not read")
    return preflight(the_plan, spec, observed, sagemaker=client, quotas=client_from(ctx, "service-quotas"), policy=policy)


def _show_plan(the_plan: Plan, as_json: bool) -> None:
    if as_json:
        click.echo(the_plan.to_json())
    else:
        out.print(plan_renderable(the_plan))


def _snapshot(path: str, cluster_name: str | None = None) -> ClusterState:
    return load_snapshot(path, cluster_name)  # checked: shapes, consistency, the spec's cluster (observe/snapshot.py)


@click.command("plan")
@_spec_option
@click.option("--observed", "snapshot", type=click.Path(exists=True, dir_okay=False),
              help="Plan against a saved snapshot (hyperpod snapshot) instead of the live cluster: no API call.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable plan (format hyperpod-plan/1).")
@click.option("--out", "out_file", type=click.Path(dir_okay=False), help="Also save the plan as JSON.")
@_policy_options
@_preflight_option
@click.pass_context
@handle_errors
def plan_command(ctx, spec_file, snapshot, as_json, out_file, policy_file, protect, no_preflight):
    """Show what apply would do, with the preflight checks. Exit 2 when a guard refuses the plan."""
    spec = ClusterSpec.from_file(spec_file)
    policy = load_policy(policy_file, protect)
    if snapshot:
        the_plan = skipped(make_plan(spec, _snapshot(snapshot, spec.name), policy),
                           "planned offline from a snapshot (--observed): no API call, so service quotas and node "
                           "build configurations were not read")
    else:
        client = client_from(ctx)
        observed = observe(client, spec.name)
        the_plan = _checked(ctx, make_plan(spec, observed, policy), spec, observed, policy, client, no_preflight)
    _show_plan(the_plan, as_json)
    if out_file:
        Path(out_file).write_text(the_plan.to_json(), encoding="utf-8")
    if the_plan.refused:
        sys.exit(EXIT_REFUSED)


@click.command("apply")
@_spec_option
@click.option("--yes", "-y", is_flag=True, help="Apply without asking.")
@click.option("--wait", "wait_policy", type=click.Choice(list(WAIT_POLICIES)), default="InService", show_default=True,
              help="What to wait for after the calls.")
@click.option("--timeout", type=float, default=1800.0, show_default=True, help="Seconds to wait at most.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan and the result as JSON.")
@_policy_options
@_preflight_option
@click.pass_context
@handle_errors
def apply_command(ctx, spec_file, yes, wait_policy, timeout, as_json, policy_file, protect, no_preflight):
    """Plan, check (preflight), confirm, and apply the spec; then wait as --wait says."""
    spec = ClusterSpec.from_file(spec_file)
    policy = load_policy(policy_file, protect)
    client = client_from(ctx)
    observed = observe(client, spec.name)
    the_plan = _checked(ctx, make_plan(spec, observed, policy), spec, observed, policy, client, no_preflight)
    if not as_json:
        _show_plan(the_plan, False)
    if the_plan.refused:
        if as_json:
            emit_json({"plan": the_plan.to_dict(), "result": None})
        err.print("[red]refused:[/red] nothing was changed.", markup=True)
        sys.exit(EXIT_REFUSED)
    if the_plan.empty:
        if as_json:
            emit_json({"plan": the_plan.to_dict(), "result": {"outcome": "done", "calls": []}})
        return
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError("refusing to apply without confirmation: pass --yes (no terminal to ask on)")
        click.confirm("Apply this plan?", abort=True)
    result = _run_with_progress(ctx, client, the_plan, policy, wait_policy, timeout, quiet=as_json)
    if as_json:
        emit_json({"plan": the_plan.to_dict(), "result": {"outcome": result.outcome, "calls": result.calls,
                                                          "failures": result.failures, "messages": result.messages}})
    else:
        for failure in result.failures:
            err.print(f"[red]failed:[/red] {failure}", markup=True, highlight=False)
        out.print(f"outcome: {result.outcome}; calls: {', '.join(result.calls) or 'none'}")
        if result.state is not None:
            out.print(status_table(result.state))
    if result.failures or result.outcome in ("unreachable", "timeout"):
        sys.exit(EXIT_ERROR)


def _run_with_progress(ctx, client, the_plan, policy, wait_policy, timeout, quiet: bool):
    poll = default_poll_seconds(ctx.obj["backend"])
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True, disable=quiet) as bar:
        task = bar.add_task("applying", total=None)

        def on_progress(event) -> None:
            current, target = event.nodes
            bar.update(task, description=str(event)[:100], completed=current, total=target or None)
            # step and retry messages are printed once; polls only move the bar
            if event.phase in ("call", "retry") and not event.groups and not quiet:
                bar.console.print(f"• {event.message}", highlight=False)

        try:
            return run_apply(client, the_plan, policy=policy, wait=wait_policy, timeout=timeout, poll_seconds=poll, progress=on_progress)
        except PlanRefused as error:
            err.print(f"[red]refused:[/red] {error}", markup=True)
            sys.exit(EXIT_REFUSED)
        except ApplyError as error:
            err.print(f"[red]error:[/red] {error} (calls made: {', '.join(error.done) or 'none'}); "
                      "re-run the same command: it plans again from what is there now", markup=True, highlight=False)
            sys.exit(EXIT_ERROR)


COMMANDS = (plan_command, apply_command)
