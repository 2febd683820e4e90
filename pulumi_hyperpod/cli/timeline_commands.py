"""`hyperpod timeline NAME --out FILE.svg|png | --json`: target, current and usable nodes per group over time.

Read from the cluster (simulated or real): DescribeCluster, every ListClusterEvents page (oldest
first), and DescribeClusterEvent for the instance-group events (their EventDetails carry the
TargetCount). Drawn by pulumi_hyperpod.aws.timeline; `--json` prints the same series (with the notes
drawn under each panel) to stdout, alone or beside the picture.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import click

from pulumi_hyperpod.cli.outputs import OutputPath, command_inputs
from pulumi_hyperpod.cli.common import ClusterNotFound, check_cluster_name, client_from, emit_json, handle_errors, print_line, region_of


def read_events(client: Any, name: str, max_events: int) -> list[dict[str, Any]]:
    """The cluster's events oldest first (at most `max_events`, the oldest kept), instance-group
    events with their EventDetails."""
    paginator = client.get_paginator("list_cluster_events")
    events = [
        event
        for page in paginator.paginate(ClusterName=name, SortOrder="Ascending", PaginationConfig={"MaxItems": max_events})
        for event in page.get("Events", [])
    ]
    for event in events:
        if event.get("ResourceType") == "InstanceGroup":
            # DescribeClusterEvent's EventDetails is the whole event; its own EventDetails the metadata
            detail = client.describe_cluster_event(ClusterName=name, EventId=event["EventId"]).get("EventDetails") or {}
            event["EventDetails"] = detail.get("EventDetails") or {}
    return events


def read_panels(
    client: Any, name: str, group: str | None = None, max_events: int = 10000, now: dt.datetime | None = None
) -> tuple[dict[str, Any], list[Any]]:
    """(DescribeCluster, one timeline.Panel per group) of cluster `name`."""
    from botocore.exceptions import ClientError  # noqa: PLC0415 - botocore: only a command that calls the service loads it (tests/cli_startup)

    from pulumi_hyperpod.aws.observe import is_not_found  # noqa: PLC0415 - aws.observe (botocore's shapes): only a command that reads a cluster loads it (tests/cli_startup)
    from pulumi_hyperpod.aws.timeline import panels_from_events  # noqa: PLC0415 - the timeline's series and SVG: loaded when the timeline command runs (tests/cli_startup)

    try:
        described = client.describe_cluster(ClusterName=name)
        events = read_events(client, name, max_events)
    except ClientError as error:
        if is_not_found(error):
            raise ClusterNotFound(name, region_of(client)) from None
        raise
    from pulumi_hyperpod.aws.spec.grouplists import group_entries  # noqa: PLC0415 - aws.spec: only a command that lists a cluster's groups loads it (tests/cli_startup)

    if group is not None and group not in {g["InstanceGroupName"] for g in group_entries(described)}:
        raise LookupError(f"cluster {name} has no instance group {group}")
    if not events:
        raise LookupError(
            f"cluster {name} has no events to draw: the service keeps events for clusters in NodeProvisioningMode Continuous only"
        )
    moment = now or dt.datetime.now(dt.timezone.utc)
    moment = max(moment, max(event["EventTime"] for event in events))  # a simulated world may run ahead
    return described, panels_from_events(described, events, moment, group)


def _world_now(ctx: click.Context) -> dt.datetime | None:
    """The simulated world's own time with --backend fake (it runs ahead of the wall clock); else None:
    now is the wall clock."""
    if (ctx.obj or {}).get("backend") != "fake":
        return None
    from pulumi_hyperpod.sim.aws.simulator import Simulator  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    now: dt.datetime | None = Simulator.open_default().now()
    return now


@click.command("timeline")
@click.argument("name")
@click.option(
    "--out",
    "out_file",
    default=None,
    type=OutputPath("the picture"),
    metavar="FILE.svg|FILE.png",
    help="Where to draw it; PNG needs the optional cairosvg package.",
)
@click.option("--group", default=None, help="Only this instance group.")
@click.option(
    "--max-events", type=click.IntRange(min=1), default=10000, show_default=True, help="Read at most this many events (the oldest)."
)
@click.option(
    "--json", "as_json", is_flag=True, help="Print the series (and their notes) as JSON on stdout; with --out, as well as drawing."
)
@click.pass_context
@handle_errors
def timeline_command(ctx: click.Context, name: str, out_file: str | None, group: str | None, max_events: int, as_json: bool) -> None:
    """Draw target, current and usable nodes per instance group over time, from the cluster's events
    and DescribeCluster's counts now."""
    from pulumi_hyperpod.aws.timeline import render_svg  # noqa: PLC0415 - the timeline's series and SVG: loaded when the timeline command runs (tests/cli_startup)
    from pulumi_hyperpod.aws.timeline.files import picture_format, write_picture  # noqa: PLC0415 - the timeline's series and SVG: loaded when the timeline command runs (tests/cli_startup)

    if out_file is None and not as_json:
        raise click.UsageError("timeline needs --out FILE.svg|FILE.png, --json, or both")
    check_cluster_name(name)
    if out_file is not None:
        picture_format(out_file)  # a wrong --out is said before any call
    described, panels = read_panels(client_from(ctx), name, group, max_events, now=_world_now(ctx))
    if out_file is not None:
        created = described.get("CreationTime")
        since = f"since {created.astimezone(dt.timezone.utc):%Y-%m-%d %H:%M} UTC" if created else ""
        subtitle = f"{described.get('ClusterStatus', '')} {since}; from the cluster's events and DescribeCluster"
        write_picture(out_file, render_svg(f"{name}: nodes per instance group", panels, subtitle), inputs=command_inputs(ctx))
    if as_json:
        return emit_json([panel.to_dict() for panel in panels])
    print_line(f"wrote {out_file}: {len(panels)} group(s)")


COMMANDS = (timeline_command,)
