"""`hyperpod gcp …`: Google Cloud training clusters (seed 002).

`hyperpod gcp plan | apply | status | delete` are `hyperpod plan | apply | status | delete`
(plan_commands.py) with the cloud set to Google Cloud and this group's options (the backend, the
project and location of a bare name, the cluster id) given once before the command: one
implementation, two spellings. `snapshot` and `list` are Google Cloud's own. The flow is the same as
HyperPod's — spec → observe → plan → (save | apply) — over the modelDevelopmentClusters REST API
(`--backend gcp`, Application Default Credentials) or its simulator (`--backend fake`,
.hyperpod/gcp-fake.sqlite). Exit codes: 0 ok, 1 error, 2 refused.
"""

from __future__ import annotations

import json

import click

from pulumi_hyperpod.cli import plan_commands
from pulumi_hyperpod.cli.clouds import GCP, GCP_GROUP_KEY
from pulumi_hyperpod.cli.common import HyperpodGroup, handle_errors
import datetime as dt


@click.group("gcp", cls=HyperpodGroup)
@click.option(
    "--backend",
    type=click.Choice(("gcp", "fake")),
    envvar="HYPERPOD_GCP_BACKEND",
    default=None,
    help="gcp: the real service (Application Default Credentials). fake: the simulator "
    "(.hyperpod/gcp-fake.sqlite). Default: fake when `hyperpod --backend fake`, else gcp.",
)
@click.option("--project", envvar="GOOGLE_CLOUD_PROJECT", default=None, help="Project, when the spec's name is a bare id.")
@click.option("--location", envvar="HYPERPOD_GCP_LOCATION", default=None, help="Region, when the spec's name is a bare id.")
@click.option(
    "--cluster-id",
    default=None,
    help="The cluster id, for a spec with no `name` (Google's create bodies: the id is a query parameter) "
    "or a name ending in `modelDevelopmentClusters/`.",
)
@click.pass_context
def gcp_group(ctx: click.Context, backend: str | None, project: str | None, location: str | None, cluster_id: str | None) -> None:
    """Google Cloud training clusters (Vertex AI / Gemini Enterprise Agent Platform, Slurm)."""
    ctx.meta[GCP_GROUP_KEY] = {"backend": backend, "project": project, "location": location, "cluster_id": cluster_id}
    ctx.meta[plan_commands.GCP_GROUP_CLOUD] = "gcp"


for _command in plan_commands.COMMANDS:  # the same command objects: `hyperpod gcp plan` is `hyperpod plan`
    gcp_group.add_command(_command)


def _name_of(ctx: click.Context, spec_file: str | None, name: str | None) -> str:
    return GCP.cluster_name(ctx, spec_file, name)


@gcp_group.command("snapshot")
@click.option("-f", "--file", "spec_file", type=click.Path(), help="The cluster's spec (for its name).")
@click.option("--name", help="Full resource name, or a bare id with --project/--location.")
@click.pass_context
@handle_errors
def snapshot_command(ctx: click.Context, spec_file: str | None, name: str | None) -> None:
    """Print the cluster as the service returns it (GET), for `plan --observed`; `{}` when there is none."""
    full = _name_of(ctx, spec_file, name)
    resource = GCP.client(ctx).find_cluster(full)
    click.echo(json.dumps(resource or {}, indent=2, sort_keys=True))


@gcp_group.command("list")
@click.option("--page-size", type=click.IntRange(1, 1000), default=None, help="Clusters per page (pageSize).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def list_command(ctx: click.Context, page_size: int | None, as_json: bool) -> None:
    """The clusters in --project / --location (every page): name, state, orchestrator, pools, nodes, age."""
    project, location = (ctx.meta[GCP_GROUP_KEY].get(key) for key in ("project", "location"))
    if not project or not location:
        raise click.UsageError("list needs --project and --location")

    from pulumi_hyperpod.gcp.spec.names import ClusterName, location_problem  # noqa: PLC0415 - the GCP packages (pydantic): only a GCP command loads them (tests/cli_startup)
    from pulumi_hyperpod.cli.list_commands import gcp_row, print_rows  # noqa: PLC0415 - the list command's module: loaded when it runs (tests/cli_startup)

    problem = location_problem(ClusterName(project, location, "x"))  # both go into the URL: checked first
    if problem:
        raise ValueError(f"--project/--location: {problem}")
    parent = f"projects/{project}/locations/{location}"
    now = dt.datetime.now(dt.timezone.utc)
    rows = [gcp_row(resource, now) for resource in GCP.client(ctx).list_clusters(parent, page_size)]
    if as_json:
        click.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    print_rows(rows, f"training clusters in {parent}", f"no clusters in {parent}")


COMMANDS = (gcp_group,)
