"""`hyperpod fleet`: many Pulumi stacks of clusters, across accounts and regions (docs/fleet.md).

`fleet plan FLEET` previews every stack of the fleet file through Pulumi's Automation API and shows
one fleet plan (pulumi_hyperpod/fleet/). `fleet apply` is not built yet.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import EXIT_CHANGES, EXIT_ERROR, EXIT_REFUSED, HyperpodGroup, cell, emit_json, handle_errors, print_error


@click.group("fleet", cls=HyperpodGroup)  # usage errors exit 1
def fleet_group() -> None:
    """Plan many clusters' stacks, across accounts and regions, as one fleet."""


@fleet_group.command("plan")
@click.argument("fleet_file", metavar="FLEET", type=click.Path(dir_okay=False))
@click.option("--parallel", type=click.IntRange(min=1), default=4, show_default=True, help="Previews run at once.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable fleet plan (format hyperpod-fleet-plan/1).")
@click.option("--detailed-exitcode", "detailed_exitcode", is_flag=True, help=common.DETAILED_EXITCODE_HELP)
@handle_errors
def fleet_plan_command(fleet_file: str, parallel: int, as_json: bool, detailed_exitcode: bool) -> None:
    """Preview every stack of the fleet and show one fleet plan, with the fleet's quota preflight. Exit 1
    when a stack's preview fails, 2 when a guard or the fleet's quota refuses (with --detailed-exitcode,
    3 when it has changes)."""
    from pulumi_hyperpod.fleet.preview import preview_fleet  # noqa: PLC0415 - the Automation API: only this command loads it
    from pulumi_hyperpod.fleet.spec import check_projects, load_fleet  # noqa: PLC0415 - pydantic: only this command loads it
    from pulumi_hyperpod.fleet.summary import fleet_plan  # noqa: PLC0415 - with the command

    fleet, base = load_fleet(fleet_file)
    check_projects(fleet, base, fleet_file)
    document = fleet_plan(preview_fleet(fleet.stacks, base, parallel))
    if as_json:
        emit_json(document)
    else:
        _show(document)
    for line in document["refusals"]:
        print_error(line, label="refused")
    if document["errors"]:
        sys.exit(EXIT_ERROR)
    if document["refused"]:
        sys.exit(EXIT_REFUSED)
    if detailed_exitcode and not document["empty"]:
        sys.exit(EXIT_CHANGES)


def _show(document: dict[str, Any]) -> None:
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    table = Table(
        "stack", "account", "region", "cluster", "action", "steps", "victims", "cost/h", title=cell("fleet plan"), title_justify="left"
    )
    for row in document["stacks"]:
        where = (cell(row["stack"]), cell(row["account"] or "default"), cell(row["region"]))
        if row["error"]:
            table.add_row(*where, cell("-"), cell("error", "red"), cell(row["error"]), cell(""), cell(""))
        for cluster in row["clusters"]:
            steps = ", ".join(cluster["steps"]) or ("refused" if cluster["refusals"] else "no change")
            cost = cluster["cost_delta_per_hour"]
            table.add_row(
                *where,
                cell(cluster["cluster"]),
                cell(cluster["action"]),
                cell(steps),
                cell(len(cluster["victims"]) or ""),
                cell("" if cost is None else f"{cost:+,.2f} {cluster['currency'] or ''}".strip()),
            )
        if not row["error"] and not row["clusters"]:
            table.add_row(*where, cell("-"), cell("none"), cell("no cluster plan shown"), cell(""), cell(""))
    common.out.print(table)
    quotas = Table("account", "region", "instance type", "adds", "headroom", "stacks", title=cell("fleet quota"), title_justify="left")
    for draw in document["quotas"]:
        headroom = "?" if draw["headroom"] is None else f"{draw['headroom']:g}"
        quotas.add_row(
            cell(draw["account"]),
            cell(draw["region"]),
            cell(draw["instance_type"]),
            cell(draw["adds"]),
            cell(headroom, "red" if draw["over"] else ""),
            cell(", ".join(draw["stacks"])),
        )
    if document["quotas"]:
        common.out.print(quotas)


COMMANDS = (fleet_group,)
