"""`hyperpod health-check NAME [--group G] [--nodes ID …]`: deep health checks on demand, followed to the end."""

from __future__ import annotations

import sys

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import (
    EXIT_ERROR,
    ClusterNotFound,
    check_cluster_name,
    client_from,
    emit_json,
    handle_errors,
    print_line,
    region_of,
)
from pulumi_hyperpod.aws.client import default_poll_seconds

CHECKS = ("InstanceStress", "InstanceConnectivity", "MultiNodeTrainingValidation")  # the model's DeepHealthCheckType


@click.command("health-check")
@click.argument("name")
@click.option("--group", "group", help="Only this instance group (default: every group).")
@click.option("--nodes", "nodes", multiple=True, metavar="INSTANCE_ID", help="Only these nodes (repeatable).")
@click.option(
    "--check",
    "checks",
    multiple=True,
    type=click.Choice(CHECKS),
    help="A deep health check to run (repeatable; default: InstanceStress and InstanceConnectivity).",
)
@click.option("--timeout", type=float, default=7200.0, show_default=True, help="Seconds to follow the check at most.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable result.")
@click.pass_context
@handle_errors
def health_check_command(
    ctx: click.Context, name: str, group: str | None, nodes: tuple[str, ...], checks: tuple[str, ...], timeout: float, as_json: bool
) -> None:
    """Run deep health checks (StartClusterHealthCheck) and follow the operation to its end. Exit 1 when a node fails."""
    from pulumi_hyperpod.aws.apply.health import HealthCheckError, configurations, run_health_check  # noqa: PLC0415 - the health checks (botocore): loaded when health-check runs (tests/cli_startup)
    from pulumi_hyperpod.aws.observe import observe  # noqa: PLC0415 - aws.observe (botocore's shapes): only a command that reads a cluster loads it (tests/cli_startup)

    common.check_timeout(timeout)
    client = client_from(ctx)
    state = observe(client, check_cluster_name(name))
    if state is None:
        raise ClusterNotFound(name, region_of(client))
    try:
        configs = configurations(state, group, tuple(nodes), tuple(checks))
    except HealthCheckError as error:
        common.print_error(str(error))
        sys.exit(EXIT_ERROR)
    poll = default_poll_seconds(ctx.obj["backend"]) or 30.0
    result = run_health_check(
        client,
        state,
        configs,
        timeout=timeout,
        poll_seconds=poll,
        progress=None if as_json else (lambda message: print_line(f"• {message}", console=common.err)),
    )
    if as_json:
        emit_json(
            {
                "operation_id": result.operation_id,
                "status": result.status,
                "nodes": result.nodes,
                "messages": result.messages,
                "failed": result.failed,
            }
        )
    else:
        for node_id, status in result.nodes.items():
            detail = f" ({result.messages[node_id]})" if node_id in result.messages and status != "Running" else ""
            print_line(f"{node_id}: {'passed' if status == 'Running' else status}{detail}")
        print_line(
            f"operation {result.operation_id or '(not listed)'}: {result.status}; "
            f"{len(result.nodes) - len(result.failed)} passed, {len(result.failed)} failed"
        )
    if result.failed or result.status == "InProgress":
        sys.exit(EXIT_ERROR)


COMMANDS = (health_check_command,)
