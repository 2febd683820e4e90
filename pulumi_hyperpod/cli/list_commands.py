"""`hyperpod list` (HyperPod clusters in a region) and the table `hyperpod gcp list` shares with it.

One row per cluster: name, status, orchestrator, instance groups (node pools), nodes running of the
target, and age. HyperPod: every page of ListClusters (botocore's paginator), then DescribeCluster
for each (the summary carries neither the orchestrator nor the counts). Google Cloud: every page of
the modelDevelopmentClusters list, which carries both.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable

import click

from pulumi_hyperpod.cli.common import EXIT_ERROR, cell, client_from, emit_json, handle_errors, make_console, print_error, region_of
from pulumi_hyperpod.core.timestamps import TimestampError, read_time

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.fleet.spec import FleetStack

COLUMNS = ("name", "status", "orchestrator", "groups", "nodes", "age")


def age_text(seconds: float | None) -> str:
    """`3d4h`, `2h13m`, `5m`, `40s`: the two largest units."""
    if seconds is None:
        return "-"
    seconds = max(0, int(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days}d{hours}h"
    if hours:
        return f"{hours}h{minutes}m"
    return f"{minutes}m" if minutes else f"{secs}s"


def _age(created: dt.datetime | None, now: dt.datetime) -> float | None:
    return None if created is None else max(0.0, (now - created).total_seconds())


def aws_row(summary: dict[str, Any], described: dict[str, Any] | None, now: dt.datetime) -> dict[str, Any]:
    """A ListClusters summary (and its DescribeCluster, None when it went in between) as a row."""
    from pulumi_hyperpod.aws.spec.grouplists import group_entries  # noqa: PLC0415 - aws.spec: only a command that lists a cluster's groups loads it (tests/cli_startup); restricted groups count as groups

    groups = group_entries(described)
    # a cluster described without an Orchestrator was created without one: a Slurm cluster
    orchestrator = (next(iter(described.get("Orchestrator") or {}), None) or "Slurm") if described else None
    created = summary.get("CreationTime")
    return {
        "name": summary["ClusterName"],
        "arn": summary["ClusterArn"],
        "status": (described or {}).get("ClusterStatus") or summary["ClusterStatus"],
        "orchestrator": orchestrator,
        "groups": len(groups),
        "nodes_current": sum(g.get("CurrentCount", 0) for g in groups),
        "nodes_target": sum(g.get("TargetCount", g.get("CurrentCount", 0)) for g in groups),
        "created": created.isoformat() if created else None,
        "age_seconds": _age(created, now),
    }


def aws_rows(
    client: Any, name_contains: str | None = None, now: dt.datetime | None = None, page_size: int | None = None
) -> list[dict[str, Any]]:
    """Every HyperPod cluster of the client's region, oldest first (`page_size` clusters a ListClusters page)."""
    from botocore.exceptions import ClientError  # noqa: PLC0415 - botocore: only a command that calls the service loads it (tests/cli_startup)

    from pulumi_hyperpod.aws.observe import is_not_found  # noqa: PLC0415 - aws.observe (botocore's shapes): only a command that reads a cluster loads it (tests/cli_startup)

    now = now or dt.datetime.now(dt.timezone.utc)
    query = {"SortBy": "CREATION_TIME", "SortOrder": "Ascending", **({"NameContains": name_contains} if name_contains else {})}
    rows = []
    paging = {"PaginationConfig": {"PageSize": page_size}} if page_size else {}
    for page in client.get_paginator("list_clusters").paginate(**query, **paging):
        for summary in page.get("ClusterSummaries", []):
            try:
                described = client.describe_cluster(ClusterName=summary["ClusterArn"])
            except ClientError as error:  # a cluster deleted between the list and the describe
                if not is_not_found(error):
                    raise
                described = None
            rows.append(aws_row(summary, described, now))
    return rows


def gcp_row(resource: dict[str, Any], now: dt.datetime) -> dict[str, Any]:
    """A modelDevelopmentClusters resource (the REST form) as a row."""
    from pulumi_hyperpod.gcp.observe import GcpClusterState  # noqa: PLC0415 - the GCP packages (pydantic): only a GCP command loads them (tests/cli_startup)

    state = GcpClusterState.from_api(resource)
    created = _parse_time(resource.get("createTime") or resource.get("create_time"))
    return {
        "name": state.name,
        "status": state.state,
        "orchestrator": "Slurm" if state.body.get("orchestrator_spec", {}).get("slurm_spec") is not None else None,
        "groups": len(state.pools),
        "nodes_current": sum(1 for pool in state.pools for node in pool.nodes if node[2] == "RUNNING"),
        "nodes_target": sum(pool.target for pool in state.pools),
        "created": created.isoformat() if created else None,
        "age_seconds": _age(created, now),
        "node_count": state.node_count,
        "state": state.state,  # the keys `gcp list --json` had first
    }


def _parse_time(value: Any) -> dt.datetime | None:

    if not isinstance(value, str):
        return None
    try:
        return read_time(value)
    except TimestampError:  # a service's time that is none is shown as none
        return None


def print_rows(rows: Iterable[dict[str, Any]], title: str, empty: str, leading: tuple[str, ...] = ()) -> None:
    """The rows as a table; `leading`: keys of the rows shown first (a fleet's account and region)."""
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    rows = list(rows)
    table = Table(*leading, *COLUMNS, title=cell(title), title_justify="left")
    for row in rows:
        table.add_row(
            *(cell(row[key]) for key in leading),
            cell(row["name"]),
            cell(row["status"]),
            cell(row["orchestrator"]),
            cell(row["groups"]),
            cell(f"{row['nodes_current']}/{row['nodes_target']}"),
            cell(age_text(row["age_seconds"])),
        )
    make_console().print(table if rows else cell(empty))


@click.command("list")
@click.option("--name-contains", default=None, help="Only clusters whose name contains this text.")
@click.option(
    "--fleet",
    "fleet_file",
    default=None,
    metavar="FLEET",
    type=click.Path(dir_okay=False),
    help="Every account × region the fleet file's stacks name, each read as its stacks act (docs/fleet.md).",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output (every cluster, with its ARN).")
@click.pass_context
@handle_errors
def list_command(ctx: click.Context, name_contains: str | None, fleet_file: str | None, as_json: bool) -> None:
    """The clusters in the region: name, status, orchestrator, groups, nodes running/target, age.
    With --fleet, those of every account and region of a fleet file (exit 1 if one cannot be read).
    Google Cloud training clusters: `hyperpod gcp --project P --location L list`."""
    if fleet_file is not None:
        return list_fleet_command(ctx, fleet_file, name_contains, as_json)
    client = client_from(ctx)
    rows = aws_rows(client, name_contains)
    if as_json:
        return emit_json(rows)
    print_rows(rows, f"HyperPod clusters in {region_of(client)}", f"no clusters in {region_of(client)}")


FLEET_READS_AT_ONCE = 8  # regions read at once: each read waits on the service, not on this machine


def list_fleet_command(ctx: click.Context, fleet_file: str, name_contains: str | None, as_json: bool) -> None:
    """`list --fleet`: each account × region of the fleet, read concurrently; a region that cannot be
    read is one error line naming it (exit 1), and the others are still listed."""
    from pulumi_hyperpod.core.messages import render  # noqa: PLC0415 - the error renderer: only a fleet listing words errors it keeps
    from pulumi_hyperpod.fleet.listing import failures, fleet_rows, list_fleet, places  # noqa: PLC0415 - pydantic: only --fleet loads it
    from pulumi_hyperpod.fleet.spec import load_fleet  # noqa: PLC0415 - pydantic: only --fleet loads it

    fleet, _ = load_fleet(fleet_file)
    found = places(fleet.stacks)

    def list_one(account: str, region: str) -> list[dict[str, Any]]:
        return aws_rows(_stack_client(ctx, found[(account, region)]), name_contains)

    def word(error: Exception) -> str:
        rendered = render(error)
        return " ".join(rendered.lines) if rendered is not None else f"{type(error).__name__}: {error}"

    listings = list_fleet(list(found), list_one, FLEET_READS_AT_ONCE, word)
    rows = fleet_rows(listings)
    if as_json:
        emit_json(rows)
    else:
        print_rows(rows, f"HyperPod clusters of the fleet {fleet_file}", f"no clusters in the fleet {fleet_file}", ("account", "region"))
    for line in failures(listings):
        print_error(line)
    if any(listing.error for listing in listings):
        sys.exit(EXIT_ERROR)


def _stack_client(ctx: click.Context, stack: FleetStack) -> Any:
    """A client acting as the stack acts (fleet/preview.py's stack_env): its region; its credentials
    (on the simulator, its account's 12 digits as the key id), profile and endpoint from its
    environment, else the command line's (never its --region: each stack names its own). With
    --backend fake the local world answers every account."""
    from pathlib import Path  # noqa: PLC0415 - with the fleet listing

    from pulumi_hyperpod.aws.client import connect  # noqa: PLC0415 - botocore: only a command that calls the service loads it (tests/cli_startup)
    from pulumi_hyperpod.core import backends  # noqa: PLC0415 - with the fleet listing
    from pulumi_hyperpod.fleet.preview import stack_access_key, stack_env  # noqa: PLC0415 - with the fleet listing

    options = ctx.obj
    env = stack_env(stack, Path(os.devnull))  # the plan directory it names is a preview's: unused here
    simulated = backends.is_simulated("aws", options["backend"])
    return connect(
        backend=options["backend"],
        region=stack.region,
        profile=env.get("AWS_PROFILE") or options["profile"],
        endpoint_url=None if simulated else env.get("AWS_ENDPOINT_URL") or options.get("endpoint_url"),
        access_key=stack_access_key(env),
    )


COMMANDS = (list_command,)
