"""`hyperpod status | nodes | snapshot | delete NAME`: reading and removing one cluster."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import (
    ClusterNotFound,
    cell,
    check_cluster_name,
    client_from,
    emit_json,
    handle_errors,
    print_line,
    region_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState


def observe(client: object, name: str) -> ClusterState | None:
    """`observe.observe`, imported when a command runs (a module attribute: tests replace it)."""
    from pulumi_hyperpod.aws.observe import observe as read

    return read(client, name)


def _observed(ctx: click.Context, name: str) -> tuple[object, ClusterState]:
    """The client and the cluster NAME; exit 1 with "no cluster NAME in REGION" when there is none."""
    client = client_from(ctx)
    state = observe(client, check_cluster_name(name))
    if state is None:
        raise ClusterNotFound(name, region_of(client))
    return client, state


@click.command("status")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def status_command(ctx, name, as_json):
    """Cluster status and per-group counts."""
    _, state = _observed(ctx, name)
    if as_json:
        emit_json(
            {
                "name": state.name,
                "arn": state.arn,
                "status": state.status,
                "failure_message": state.failure_message,
                "node_provisioning_mode": state.node_provisioning_mode,
                "groups": [
                    {
                        "name": g.name,
                        "node_type": g.node_type,
                        "status": g.status,
                        "current": g.current_count,
                        "target": g.target_count,
                        "min": g.min_count,
                        "instance_types": list(g.instance_types),
                        "restricted": g.restricted,
                    }
                    for g in state.groups
                ],
                "nodes": len(state.nodes),
            }
        )
    else:
        from pulumi_hyperpod.cli.tables import status_table

        common.out.print(status_table(state))


@click.command("nodes")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def nodes_command(ctx, name, as_json):
    """Every node: instance id, logical id, group, type, status, launch time."""
    _, state = _observed(ctx, name)
    rows = [
        {
            "instance_id": n.instance_id,
            "logical_id": n.logical_id,
            "group": n.group,
            "instance_type": n.instance_type,
            "status": n.status,
            "launch_time": n.launch_time.isoformat() if n.launch_time else None,
            "message": n.message,
        }
        for n in state.nodes
    ]
    if as_json:
        emit_json(rows)
        return
    from rich.table import Table

    table = Table(title=cell(f"{name}: {len(rows)} nodes"), title_justify="left")
    for column in ("instance id", "logical id", "group", "type", "status", "launched"):
        table.add_column(column, no_wrap=column in ("instance id", "logical id", "launched"))
    for r in rows:
        table.add_row(*(cell(r[key]) for key in ("instance_id", "logical_id", "group", "instance_type", "status", "launch_time")))
    common.out.print(table)


@click.command("snapshot")
@click.argument("name")
@click.pass_context
@handle_errors
def snapshot_command(ctx, name):
    """Print DescribeCluster + ListClusterNodes as JSON, for `plan --observed` in a pipeline."""
    click.echo(_observed(ctx, name)[1].to_json())


@click.command("delete")
@click.argument("name")
@click.option("--yes", "-y", is_flag=True, help="Delete without asking.")
@click.option("--timeout", type=float, default=1800.0, show_default=True)
@click.pass_context
@handle_errors
def delete_command(ctx, name, yes, timeout):
    """Delete the cluster and wait until it is gone. Exit 1 when there is no such cluster."""
    from pulumi_hyperpod.aws.context import AwsContext
    from pulumi_hyperpod.core import cloud
    from pulumi_hyperpod.plans.policy import Policy
    from pulumi_hyperpod.cli.plan_commands import _run_with_progress, _show_plan

    common.check_timeout(timeout)
    client, state = _observed(ctx, name)
    # the plan as `hyperpod delete` has always shown it: without a cost section
    the_plan = cloud.deletion(cloud.get("aws"), client, name, Policy(), observed=state, context=AwsContext(cost=False)).plan
    _show_plan(the_plan, False)
    if the_plan.empty:
        return
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError("refusing to delete without confirmation: pass --yes")
        click.confirm(f"Delete cluster {name}?", abort=True)
    _run_with_progress(ctx, client, the_plan, None, "none", timeout, quiet=False)
    print_line(f"cluster {name} deleted")


COMMANDS = (status_command, nodes_command, snapshot_command, delete_command)
