"""CLI commands around the simulators and the metering/event views: `hyperpod fake reset|show`,
`hyperpod events NAME`, `hyperpod sinfo NAME`, `hyperpod cost NAME [--since ISO]`.

`COMMANDS` are the main `hyperpod` group's (app.COMMANDS names each, loaded when run); its
`--backend/--region/--profile` options arrive in `ctx.obj`. `events` and `cost` work against AWS too (events through the ListClusterEvents
paginator; cost from pulumi_hyperpod.aws.cost: metering on the simulator, estimated on AWS).
`sinfo` and `fake` are simulator-only. `hyperpod fake show|advance|reset|capacity|serve` act on both
simulators' persistent worlds (the Google Cloud one through sim_gcp_commands.py), which keep one clock.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import math
import sys
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator

import click

from pulumi_hyperpod.sim.serveio import IDLE_TIMEOUT, MAX_CONNECTIONS, READ_TIMEOUT
from pulumi_hyperpod.cli.common import (
    ClusterNotFound,
    F,
    cell,
    check_cluster_name,
    client_from,
    emit_json,
    handle_errors,
    make_console,
    print_line,
    region_of,
)
from pulumi_hyperpod.aws.client import DEFAULT_REGION, connect
from pulumi_hyperpod.core.timestamps import TimestampError, read_time
from pulumi_hyperpod.cli import sim_gcp_commands
from pulumi_hyperpod.sim import worldfile
from pulumi_hyperpod.sim.clock import delete_clock, parse_duration, parse_latency
from pulumi_hyperpod.sim.worldfile import check_all

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import Console

# The simulator, the cost reports, rich and botocore are imported in the commands that use them.


def _simulator() -> Any:
    from pulumi_hyperpod.sim.aws.simulator import Simulator  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    return Simulator


def _console(stderr: bool = False) -> Console:
    """A console per use, so it writes to whatever stdout/stderr (and COLUMNS) is current; wide
    when piped (a CI log), so rows are not wrapped at 80 columns."""
    return make_console(stderr=stderr)


def _options(ctx: click.Context) -> dict[str, Any]:
    options = dict(ctx.obj or {})
    options.setdefault("backend", "aws")
    options.setdefault("region", None)
    options.setdefault("profile", None)
    return options


def _client(ctx: click.Context) -> Any:

    return client_from(ctx) if ctx.obj else connect()


@contextlib.contextmanager
def _cluster_named(name: str, region: str) -> Iterator[None]:
    """A cluster that is not there is "no cluster NAME in REGION", as `status` and `delete` say."""
    from botocore.exceptions import ClientError  # noqa: PLC0415 - botocore: only a command that calls the service loads it (tests/cli_startup)

    from pulumi_hyperpod.sim.aws.errors import ResourceNotFound  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)
    from pulumi_hyperpod.aws.observe import is_not_found  # noqa: PLC0415 - aws.observe (botocore's shapes): only a command that reads a cluster loads it (tests/cli_startup)

    try:
        yield
    except ClientError as error:
        if is_not_found(error):
            raise ClusterNotFound(name, region) from None
        raise
    except ResourceNotFound:
        raise ClusterNotFound(name, region) from None


def _region(ctx: click.Context, client: Any = None) -> str:

    options = _options(ctx)
    if client is not None:
        return region_of(client)
    return options["region"] or (DEFAULT_REGION if options["backend"] == "fake" else "the current region")


def _when(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, dt.datetime):
        return value.astimezone(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S")
    return str(value)


def _parse_since(since: str | None) -> dt.datetime | None:
    if since is None:
        return None

    try:
        return read_time(since)
    except TimestampError as error:
        raise click.BadParameter(f"{error} (an ISO 8601 time, e.g. 2026-01-01T00:00:00Z)", param_hint="--since") from None


# -- hyperpod fake ---------------------------------------------------------------------------------
CLOUDS = ("all", "aws", "gcp")


@click.group("fake")
def fake() -> None:
    """Both simulators' persistent worlds (HyperPod's and Google Cloud's) and their one clock.

    HyperPod's world is $HYPERPOD_FAKE_STATE (default .hyperpod/fake.sqlite); Google Cloud's is
    gcp-fake.sqlite beside it; their clock is clock.sqlite there."""


def _cloud_option(help_text: str) -> Callable[[F], F]:
    return click.option("--cloud", type=click.Choice(CLOUDS), default="all", show_default=True, help=help_text)


@fake.command("reset")
@click.option("--yes", "-y", is_flag=True, help="Really delete the simulated worlds.")
@_cloud_option("Which world to delete: all (both worlds and their clock), aws (HyperPod's) or gcp (Google Cloud's).")
@handle_errors
def reset(yes: bool, cloud: str) -> None:
    """Delete the simulated worlds (clusters, nodes, events, billing, recorded calls) and their clock."""
    from pulumi_hyperpod.sim.aws.store import delete_world  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    aws, _gcp, clock_place = worldfile.places()
    which = {"aws": (worldfile.AWS_WORLD,), "gcp": (worldfile.GCP_WORLD,), "all": worldfile.KINDS}[cloud]
    worldfile.check_all(which)  # every file first: one the simulators did not make stops the reset before anything goes
    path, gcp_path, clock = _simulator().default_path(), sim_gcp_commands.world_path(), clock_place.path
    targets = {"aws": [path], "gcp": [gcp_path], "all": [path, gcp_path]}[cloud]
    if not yes:
        raise click.UsageError(f"this deletes the simulated world at {' and '.join(map(str, targets))}; pass --yes to confirm")
    console = _console()
    clock_deleted = cloud == "all" and delete_clock(clock)  # both worlds go: the next world starts a new clock
    if cloud in ("all", "aws"):
        if delete_world(path, aws.source):
            print_line(f"deleted the simulated world at {path}", console=console)
        else:
            print_line(f"no simulated world at {path}; nothing to delete", console=console)
    if cloud in ("all", "gcp"):
        if sim_gcp_commands.reset():
            print_line(f"deleted the Google Cloud simulated world at {gcp_path}", console=console)
        elif cloud == "gcp":
            print_line(f"no Google Cloud simulated world at {gcp_path}; nothing to delete", console=console)
    if clock_deleted:
        print_line(f"deleted the simulators' clock at {clock}", console=console)


@fake.command("show")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@_cloud_option("Which world to show: all, aws (HyperPod's) or gcp (Google Cloud's).")
@handle_errors
def show(as_json: bool, cloud: str) -> None:
    """Clusters, statuses and counts of the simulated worlds, and their virtual time."""
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    gcp = sim_gcp_commands.overview() if cloud in ("all", "gcp") else None
    if cloud == "gcp":
        return emit_json(gcp) if as_json else _show_gcp(gcp, _console())
    overview = _simulator().open_default().overview()
    if as_json:
        return emit_json({**overview, "gcp": gcp} if gcp is not None else overview)
    ahead = overview.get("ahead_of_wall_clock_seconds")
    clock = (
        f"follows the wall clock ({ahead / 3600:.2f} h ahead), {overview['speed']:g}x while waited on"
        if ahead is not None
        else "frozen (moves only with `hyperpod fake advance`)"
    )
    console = _console()
    print_line(f"world: {overview['path']}   virtual time: {_when(overview['virtual_time'])} UTC   clock: {clock}", console=console)
    # the account column only in a world of several accounts (docs/simulator.md, "Several accounts")
    accounts = len({cluster["account"] for cluster in overview["clusters"]}) > 1
    table = Table("cluster", *(["account"] if accounts else []), "region", "status", "mode", "orchestrator", "groups (current/target, min)")
    for cluster in overview["clusters"]:
        groups = ", ".join(
            f"{g['name']} {g['status']} {g['current']}/{g['target']}" + (f" min {g['min']}" if g["min"] else "") for g in cluster["groups"]
        )
        where = [cluster["account"]] if accounts else []
        table.add_row(
            *(
                cell(v)
                for v in (cluster["name"], *where, cluster["region"], cluster["status"], cluster["mode"], cluster["orchestrator"], groups)
            )
        )
    console.print(table if overview["clusters"] else cell("no clusters"))
    if gcp is not None:
        _show_gcp(gcp, console)


def _show_gcp(gcp: dict[str, Any] | None, console: Console) -> None:
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    if gcp is None:  # the Google Cloud world was not asked for
        return
    if gcp["virtual_time"] is None:
        print_line(f"Google Cloud world: {gcp['path']} (none yet)", console=console)
        return
    print_line(f"Google Cloud world: {gcp['path']}   virtual time: {gcp['virtual_time']}", console=console)
    table = Table("cluster", "state", "node pools (running, min-max)")
    for cluster in gcp["clusters"]:
        pools = ", ".join(f"{p['id']} {p['machine_type']} {p['running']} ({p['min']}-{p['max']})" for p in cluster["pools"])
        table.add_row(cell(cluster["name"]), cell(cluster["state"]), cell(pools))
    console.print(table if gcp["clusters"] else cell("no clusters"))


@fake.command("advance")
@click.argument("duration")
@handle_errors
def advance(duration: str) -> None:
    """Fast-forward the persistent worlds' one clock by DURATION (90s, 15m, 3h, 1h30m): everything due
    by then runs, on both clouds."""

    seconds = parse_duration(duration)
    sim = _simulator().open_default()
    now = sim.advance(seconds)  # moves the one clock: the Google Cloud world's time too
    sim_gcp_commands.catch_up()
    lead = sim.lead()
    ahead = f", {lead / 3600:.2f} h ahead of the wall clock" if lead is not None else ""
    print_line(f"advanced {seconds:g} s: virtual time {_when(now)} UTC{ahead}", console=_console())


def _seconds(name: str, default: float, help: str) -> Callable[[F], F]:
    return click.option(name, type=float, default=default, show_default=True, metavar="SECONDS", help=help)


@fake.command("serve")
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on. The endpoint checks no signature: keep it on the loopback address.",
)
@click.option("--port", type=click.IntRange(0, 65535), default=4566, show_default=True, help="Port (0: any free port).")
@click.option(
    "--stop-after",
    type=float,
    default=None,
    metavar="SECONDS",
    help="Stop by itself after this many seconds (default: run until interrupted).",
)
@click.option("--quiet", is_flag=True, help="Do not log each request on stderr.")
@_seconds("--idle-timeout", IDLE_TIMEOUT, "Close a connection that sends no request for this long.")
@_seconds(
    "--read-timeout",
    READ_TIMEOUT,
    "Answer 408 and close a connection whose request (line, headers, body) has not all arrived this long after its first byte.",
)
@click.option(
    "--max-connections",
    type=int,
    default=MAX_CONNECTIONS,
    show_default=True,
    help="Connections open at once; the next is answered 503 ServiceUnavailable and closed.",
)
@click.option(
    "--iam-policy",
    "iam_policy",
    default=None,
    metavar="FILE",
    help="Answer AWS requests this IAM policy (JSON) does not allow with AccessDenied, as AWS does (docs/iam.md).",
)
@click.option(
    "--latency",
    default="0ms",
    show_default=True,
    metavar="DURATION",
    help="Hold each answer back this long (150ms, 0.15s, 1s; at most 10s), as the real service's round-trips take: "
    "for rehearsing a fleet's waiting. Other connections are not held, and the simulated clock does not count it.",
)
@handle_errors
def serve(
    host: str,
    port: int,
    stop_after: float | None,
    quiet: bool,
    idle_timeout: float,
    read_timeout: float,
    max_connections: int,
    iam_policy: str | None,
    latency: str,
) -> None:
    """Answer SageMaker, Service Quotas, S3 and Google's training-cluster REST on HOST:PORT, over the
    persistent simulated worlds (the AWS CLI, boto3, `hyperpod --endpoint-url URL` all see one world).
    A request acts as the account its access key names: a 12-digit key id is that account, the scenario's
    `accounts` map other keys, any other key is the default account (docs/simulator.md, "Several accounts")."""
    from pulumi_hyperpod.sim.server import serve as run  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)
    from pulumi_hyperpod.sim.iam import load_policy as load_iam_policy  # noqa: PLC0415 - as the server: only `fake serve` loads it

    try:
        held = parse_latency(latency)
    except ValueError as error:
        raise ValueError(f"--latency {latency!r}: {error}") from None

    for option, seconds in (("--stop-after", stop_after), ("--idle-timeout", idle_timeout), ("--read-timeout", read_timeout)):
        if seconds is not None and not 0 < seconds < math.inf:
            raise ValueError(f"{option} must be a number of seconds more than 0 (got {seconds:g})")
    if max_connections < 1:
        raise ValueError(f"--max-connections must be at least 1 (got {max_connections})")
    policy = load_iam_policy(iam_policy) if iam_policy is not None else None  # a bad file: its one line before anything listens

    check_all()  # both worlds and the clock are the simulators' own, before the first request opens one

    if host not in ("127.0.0.1", "localhost", "::1"):
        print_line(
            f"warning: listening on {host}: anyone who reaches it can change the simulated world (no signature is checked)",
            console=_console(stderr=True),
        )

    def ready(server: Any) -> None:
        # one line on stdout, flushed, so a script can read the URL (with --port 0, the chosen port)
        click.echo(f"serving the simulated world {_simulator().default_path()} at {server.url}")
        sys.stdout.flush()

    run(
        host,
        port,
        stop_after=stop_after,
        quiet=quiet,
        ready=ready,
        idle_timeout=idle_timeout,
        read_timeout=read_timeout,
        max_connections=max_connections,
        policy=policy,
        latency=held,
    )


@fake.command("fail-node")
@click.argument("cluster")
@click.argument("node_id")
@click.option(
    "--retryable",
    is_flag=True,
    help="A failure the service recovers from by itself (Continuous mode, or NodeRecovery Automatic); default: the node stays in Failure.",
)
@handle_errors
def fail_node(cluster: str, node_id: str, retryable: bool) -> None:
    """Inject a failure: the node (instance or logical id) goes to Failure, as a failed health check would."""
    sim = _simulator().open_default()
    try:
        sim.fail_node(cluster, node_id, retryable=retryable)
    except ValueError as error:
        raise click.UsageError(str(error)) from None
    print_line(f"{node_id} of cluster {cluster}: Failure ({'retryable' if retryable else 'not retryable'})", console=_console())


@fake.command("alarm")
@click.argument("cluster")
@click.argument("alarm_name")
@handle_errors
def alarm(cluster: str, alarm_name: str) -> None:
    """A CloudWatch alarm goes into ALARM: a running software update that names it in its
    AutoRollbackConfiguration is rolled back."""
    rolled_back = _simulator().open_default().fire_alarm(cluster, alarm_name)
    print_line(
        f"alarm {alarm_name}: "
        + (
            "the software update of " + cluster + " was rolled back" if rolled_back else f"no running software update of {cluster} names it"
        ),
        console=_console(),
    )


@fake.command("capacity")
@click.argument("instance_type")
@click.argument("count")
@click.option("--zone", help="One availability zone (default: the pool every zone of the region shares).")
@handle_errors
def capacity(instance_type: str, count: str, zone: str | None) -> None:
    """A capacity shortage: the world has COUNT free INSTANCE_TYPE instances from now on (launches
    beyond them fail: all-or-nothing groups fail, Continuous mode retries); COUNT `unlimited` lifts it.
    A Google Cloud machine type (a4-highgpu-8g) sets the Google Cloud world's: an operation needing
    more nodes of it than COUNT fails with RESOURCE_EXHAUSTED."""
    from pulumi_hyperpod.aws.servicemodel import enum  # noqa: PLC0415 - the service model: only a command that checks a name or capacity loads it (tests/cli_startup)

    gcp = not instance_type.startswith("ml.") and sim_gcp_commands.is_machine_type(instance_type)
    if not gcp and instance_type not in enum("ClusterInstanceGroupSpecification", "InstanceType"):
        also = "" if instance_type.startswith("ml.") else ", nor a Google Cloud machine type the simulator knows"
        raise click.UsageError(f"INSTANCE_TYPE: {instance_type!r} is not a HyperPod instance type (ClusterInstanceType){also}")
    if gcp and zone:
        raise click.UsageError("--zone: a Google Cloud machine type's capacity is the world's, not a zone's")
    if count == "unlimited":
        available = None
    elif count.isdigit():
        available = int(count)
    else:
        raise click.UsageError(f"COUNT: {count!r} is not a whole number >= 0 or `unlimited`")
    if gcp:
        sim_gcp_commands.set_capacity(instance_type, available)
        print_line(f"{instance_type} (Google Cloud): " + ("unlimited" if available is None else f"{available} nodes"), console=_console())
        return
    _simulator().open_default().set_capacity(instance_type, zone, available)
    where = f"in {zone}" if zone else "in every zone"
    print_line(f"{instance_type} {where}: " + ("unlimited" if available is None else f"{available} free"), console=_console())


# -- hyperpod events -------------------------------------------------------------------------------
@click.command("events")
@click.argument("name")
@click.option("--group", "group", help="Only events of this instance group.")
@click.option("--node", "node", help="Only events of this instance id.")
@click.option("--resource-type", type=click.Choice(["Cluster", "InstanceGroup", "Instance"]))
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True, help="The most recent N events.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
@handle_errors
def events(
    ctx: click.Context, name: str, group: str | None, node: str | None, resource_type: str | None, limit: int, as_json: bool
) -> None:
    """Cluster events (Continuous-mode clusters), oldest first, via the ListClusterEvents paginator."""
    query: dict[str, Any] = {"ClusterName": check_cluster_name(name), "SortOrder": "Descending"}
    for key, value in (("InstanceGroupName", group), ("NodeId", node), ("ResourceType", resource_type)):
        if value:
            query[key] = value
    client = _client(ctx)
    paginator = client.get_paginator("list_cluster_events")
    with _cluster_named(name, _region(ctx, client)):
        items = [event for page in paginator.paginate(**query, PaginationConfig={"MaxItems": limit}) for event in page.get("Events", [])][
            ::-1
        ]
    if as_json:
        return emit_json(items)
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    table = Table("time (UTC)", "level", "resource", "group", "instance", "description")
    for column in table.columns[:5]:
        column.no_wrap = True
    colours = {"Error": "red", "Warn": "yellow"}
    for event in items:
        level = event.get("EventLevel", "")
        table.add_row(
            cell(_when(event["EventTime"])),
            cell(level, colours.get(level, "")),
            cell(event["ResourceType"]),
            cell(event.get("InstanceGroupName")),
            cell(event.get("InstanceId")),
            cell(event.get("Description")),
        )
    _console().print(table if items else cell(f"no events for {name}"))


# -- hyperpod sinfo --------------------------------------------------------------------------------
@click.command("sinfo")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--plain", is_flag=True, help="Print exactly like Slurm's sinfo.")
@click.pass_context
@handle_errors
def sinfo(ctx: click.Context, name: str, as_json: bool, plain: bool) -> None:
    """Slurm partitions and nodes as `sinfo` shows them (simulator only)."""
    options = _options(ctx)
    if options["backend"] != "fake":
        raise click.UsageError("sinfo is simulator-only (use --backend fake); on AWS, run sinfo on the cluster's controller or login node")
    sim = _simulator().open_default()
    with _cluster_named(name, _region(ctx)):
        rows = sim.sinfo_rows(check_cluster_name(name), options["region"])
        roles = sim.slurm_roles(name, options["region"])
        if as_json:
            return emit_json(rows)
        if plain:
            return click.echo(sim.sinfo(name, options["region"]), nl=False)
    # sinfo lists neither the controller nor the login nodes: a caption says where they are
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    caption = "; ".join(f"{r['role'].lower()}: {r['group']} ({', '.join(r['hosts']) or 'no node running'})" for r in roles)
    table = Table(
        "PARTITION", "AVAIL", "TIMELIMIT", "NODES", "STATE", "NODELIST", caption=cell(caption) if caption else None, caption_justify="left"
    )
    for row in rows:
        table.add_row(
            *(
                cell(v)
                for v in (
                    row["partition"] + ("*" if row["default"] else ""),
                    row["avail"],
                    row["timelimit"],
                    row["nodes"],
                    row["state"],
                    ",".join(row["nodelist"]),
                )
            )
        )
    _console().print(table)


# -- hyperpod cost ---------------------------------------------------------------------------------
@click.command("cost")
@click.argument("name")
@click.option("--since", help="Only usage after this ISO 8601 time.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.pass_context
@handle_errors
def cost(ctx: click.Context, name: str, since: str | None, as_json: bool) -> None:
    """Instance-hours and money per instance group and per instance.

    Simulator: its instance-level metering (billing starts with the lifecycle script, stops at
    termination; failed launches are free). AWS: ESTIMATED from each node's LaunchTime and the
    cluster's termination events. Prices: the shipped list-price table (pulumi_hyperpod/data/
    prices.yaml) with $HYPERPOD_PRICES layered on; a type without a price says "price unknown".
    """
    from pulumi_hyperpod.aws.cost import cost_report  # noqa: PLC0415 - the cost report (botocore, rich): loaded when the cost command runs (tests/cli_startup)

    options = _options(ctx)
    start = _parse_since(since)
    source = _simulator().open_default() if options["backend"] == "fake" else _client(ctx)
    with _cluster_named(name, _region(ctx, None if options["backend"] == "fake" else source)):
        report = cost_report(source, check_cluster_name(name), since=start, region=options["region"])
    if as_json:
        return emit_json(report.to_dict())
    table = report.render()
    # Title and caption carry user text (the --region, the $HYPERPOD_PRICES path): never markup.
    table.title = cell(table.title) if isinstance(table.title, str) else table.title
    table.caption = cell(table.caption) if isinstance(table.caption, str) else table.caption
    _console().print(table)


from pulumi_hyperpod.cli.workload_commands import workload_group

fake.add_command(workload_group)

COMMANDS = [fake, events, sinfo, cost]
