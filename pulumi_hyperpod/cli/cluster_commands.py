"""`hyperpod nodes | snapshot NAME`: reading one HyperPod cluster (`status` and `delete`, for every
cloud, are in plan_commands.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import (
    ClusterNotFound,
    cell,
    check_cluster_name,
    client_from,
    emit_json,
    handle_errors,
    region_of,
)

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState


def observe(client: Any, name: str) -> ClusterState | None:
    """`observe.observe`, imported when a command runs (a module attribute: tests replace it)."""
    from pulumi_hyperpod.aws.observe import observe as read  # noqa: PLC0415 - aws.observe (botocore's shapes): only a command that reads a cluster loads it (tests/cli_startup)

    return read(client, name)


def _observed(ctx: click.Context, name: str) -> tuple[Any, ClusterState]:
    """The client and the cluster NAME; exit 1 with "no cluster NAME in REGION" when there is none."""
    client = client_from(ctx)
    state = observe(client, check_cluster_name(name))
    if state is None:
        raise ClusterNotFound(name, region_of(client))
    return client, state


@click.command("nodes")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def nodes_command(ctx: click.Context, name: str, as_json: bool) -> None:
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
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

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
def snapshot_command(ctx: click.Context, name: str) -> None:
    """Print DescribeCluster + ListClusterNodes as JSON, for `plan --observed` in a pipeline."""
    click.echo(_observed(ctx, name)[1].to_json())


COMMANDS = (nodes_command, snapshot_command)
