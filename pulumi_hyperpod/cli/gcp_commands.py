"""`hyperpod gcp plan | apply | status | delete | list`: Google Cloud training clusters (seed 002).

The same flow as HyperPod's commands — spec → observe → plan → (save | apply) — over the
modelDevelopmentClusters REST API (`--backend gcp`, Application Default Credentials) or its
simulator (`--backend fake`, .hyperpod/gcp-fake.sqlite). Exit codes: 0 ok, 1 error, 2 refused.
"""

from __future__ import annotations

import functools
import json
import sys
from collections.abc import Callable
from typing import Any

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import EXIT_ERROR, EXIT_REFUSED, HyperpodGroup, handle_errors, print_error
from pulumi_hyperpod.cli.outputs import OutputPath, command_inputs


def _out():
    from pulumi_hyperpod.cli.common import out

    return out


def _err():
    from pulumi_hyperpod.cli.common import err

    return err


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _handle(command: Callable) -> Callable:
    """GCP's own errors as one line and exit 1 (a guard's refusal: exit 2); everything else —
    bad input, files, names — goes through the shared `handle_errors`, as for HyperPod."""

    @functools.wraps(command)
    @handle_errors
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        from pulumi_hyperpod.core.contract import EXIT_INTERRUPTED, ApplyError, ApplyInterrupted, PlanInvalid, PlanRefused, PlanStale
        from pulumi_hyperpod.gcp.client import CredentialsMissing, GcpApiError, OperationTimeout
        from pulumi_hyperpod.core.planfile import SavedPlanError

        try:
            return command(*args, **kwargs)
        except PlanStale as error:  # the cluster moved: an error to re-plan, not a guard's refusal
            print_error(str(error), label="refused")
        except PlanRefused as error:
            print_error(str(error), label="refused")
            sys.exit(EXIT_REFUSED)
        except (PlanInvalid, SavedPlanError) as error:
            print_error(str(error))
        except ApplyInterrupted as error:  # Ctrl-C: what was sent, what was under way, how to resume
            print_error(str(error).removeprefix("interrupted "), label="interrupted")
            sys.exit(EXIT_INTERRUPTED)
        except ApplyError as error:
            from pulumi_hyperpod.cli.flow import apply_failed

            print_error(apply_failed(error))
        except (GcpApiError, OperationTimeout, CredentialsMissing) as error:
            print_error(str(error))
        sys.exit(EXIT_ERROR)

    return wrapper


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
def gcp_group(
    ctx: click.Context, backend: str | None, project: str | None, location: str | None, cluster_id: str | None = None
) -> None:  # None when `hyperpod plan|apply -f` (plan_commands._in_gcp) calls this
    """Google Cloud training clusters (Vertex AI / Gemini Enterprise Agent Platform, Slurm)."""
    parent = ctx.obj or {}
    chosen = backend or ("fake" if parent.get("backend") == "fake" else "gcp")
    ctx.obj = {**parent, "gcp_backend": chosen, "project": project, "location": location, "cluster_id": cluster_id}


def _spec_option(command):
    return click.option(
        "-f",
        "--file",
        "spec_file",
        required=True,
        type=click.Path(),
        help="Cluster spec: the modelDevelopmentClusters REST body (JSON or YAML), with `name`.",
    )(command)


def _policy_options(command):
    command = click.option("--policy", "policy_file", type=click.Path(), help="Policy file (YAML/JSON): the same guards as HyperPod's.")(
        command
    )
    return click.option(
        "--protect", multiple=True, metavar="NODE", help="Refuse a shrink of the pool holding this node (instance id or name; repeatable)."
    )(command)


def _client(ctx: click.Context):
    from pulumi_hyperpod.gcp.client import connect

    return connect(ctx.obj["gcp_backend"])


def _spec(ctx: click.Context, spec_file: str):
    from pulumi_hyperpod.gcp.spec import ClusterSpec

    return ClusterSpec.from_file(spec_file, ctx.obj.get("project"), ctx.obj.get("location"), ctx.obj.get("cluster_id"))


def _policy(policy_file: str | None, protect: tuple[str, ...]):
    from pulumi_hyperpod.cli.common import load_policy

    return load_policy(policy_file, protect)


def _show(the_plan, as_json: bool) -> None:
    from pulumi_hyperpod.cli.flow import show_plan

    show_plan(the_plan, as_json)


NO_PREFLIGHT = "--no-preflight: machine types, reservations and Compute Engine quotas were not read"
_no_preflight_option = click.option(
    "--no-preflight", is_flag=True, help="Skip the preflight checks (machine types offered, reservations, regional quotas)."
)


def _make_plan(ctx, spec_file, policy_file, protect, no_preflight=False):
    client, _inputs, the_plan = _plan_with_inputs(ctx, spec_file, policy_file, protect, no_preflight=no_preflight)
    return client, the_plan


def _plan_with_inputs(ctx, spec_file, policy_file, protect, snapshot=None, no_preflight=False):
    """(client or None, the inputs a saved plan keeps, the plan): against `snapshot` (no call) or the
    live cluster, through the one pipeline (core/cloud.prepare: read → plan → preflight)."""
    from pulumi_hyperpod.core import cloud

    gcp = cloud.get("gcp")
    spec = _spec(ctx, spec_file)
    policy = _policy(policy_file, protect)
    if snapshot:
        client = None
        observed = _snapshot(snapshot)
        if observed is not None and observed.name != spec.name:
            raise ValueError(f"{snapshot}: the snapshot is of {observed.name}, the spec is {spec.name}")
    else:
        client = _client(ctx)
        observed = gcp.read(client, spec.name)
    skipped = "offline: planned from a snapshot" if snapshot else NO_PREFLIGHT if no_preflight else None
    prepared = cloud.prepare(gcp, client, spec, policy, observed=observed, skip_preflight=skipped)
    inputs = {"spec": spec, "observed": observed, "policy": policy, "backend": ctx.obj["gcp_backend"]}
    return client, inputs, prepared.plan


@gcp_group.command("plan")
@_spec_option
@click.option(
    "--observed",
    "snapshot",
    type=click.Path(),
    help="Plan against a saved cluster (`hyperpod gcp snapshot`, the GET response) instead of the live one: no API call.",
)
@click.option("--json", "as_json", is_flag=True, help="Machine-readable plan (the shared plan format).")
@click.option("--out", "out_file", type=OutputPath("the plan"), help="Also save the plan as JSON.")
@click.option("--detailed-exitcode", "detailed_exitcode", is_flag=True, help=common.DETAILED_EXITCODE_HELP)
@_no_preflight_option
@_policy_options
@click.pass_context
@_handle
def plan_command(ctx, spec_file, snapshot, as_json, out_file, policy_file, protect, detailed_exitcode=False, no_preflight=False):
    """Show what apply would do. Exit 2 when a guard refuses the plan (with --detailed-exitcode, 3 when it has changes)."""
    # --out was checked against every input, the worlds included, before the command began (outputs.py)
    _client_unused, inputs, the_plan = _plan_with_inputs(ctx, spec_file, policy_file, protect, snapshot, no_preflight)
    _show(the_plan, as_json)
    if out_file:
        from pulumi_hyperpod.core.cloud import Prepared
        from pulumi_hyperpod.cli.flow import save_plan

        save_plan(
            Prepared("gcp", the_plan, inputs["spec"], inputs["observed"], inputs["policy"]),
            out_file,
            target={"backend": inputs["backend"]},
            inputs=command_inputs(ctx),
        )
    common.exit_for_plan(the_plan, detailed_exitcode)


@gcp_group.command("apply")
@click.option(
    "-f", "--file", "spec_file", type=click.Path(), help="Cluster spec: the modelDevelopmentClusters REST body (JSON or YAML), with `name`."
)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(),
    help="Apply a plan saved by `hyperpod gcp plan --out` exactly (refused if the cluster moved since).",
)
@click.option("--yes", "-y", is_flag=True, help="Apply without asking.")
@click.option("--no-wait", is_flag=True, help="Return once the calls are accepted; do not wait on the operations.")
@click.option("--timeout", type=float, default=7200.0, show_default=True, help="Seconds to wait at most.")
@click.option("--json", "as_json", is_flag=True, help="Print the plan and the result as JSON.")
@_no_preflight_option
@_policy_options
@click.pass_context
@_handle
def apply_command(ctx, spec_file, plan_file, yes, no_wait, timeout, as_json, policy_file, protect, no_preflight=False):
    """Plan (or load a saved plan), confirm, apply; then wait on the long-running operations."""
    if bool(spec_file) == bool(plan_file):
        raise click.UsageError("give -f SPEC (plan now) or --plan FILE (a saved plan), not both")
    common.check_timeout(timeout)
    if plan_file:
        if policy_file or protect or no_preflight:
            raise click.UsageError("--policy/--protect/--no-preflight apply when planning; a saved plan keeps the guards it was made with")
        the_plan = _saved_plan(plan_file, ctx.obj["gcp_backend"])
        client = _client(ctx)
    else:
        client, the_plan = _make_plan(ctx, spec_file, policy_file, protect, no_preflight)
    if not as_json:
        _show(the_plan, False)
    if the_plan.refused:
        if as_json:
            _emit(the_plan, None)
        print_error("nothing was changed.", label="refused")
        sys.exit(EXIT_REFUSED)
    result = _confirmed_apply(client, the_plan, "Apply this plan?", yes=yes, no_wait=no_wait, timeout=timeout, as_json=as_json)
    if result is None:
        return
    from pulumi_hyperpod.gcp.status import status_of

    if as_json:
        _emit(the_plan, {"outcome": result.outcome, "calls": result.calls, "failures": result.failures, "status": status_of(result.state)})
    else:
        for failure in result.failures:
            print_error(failure, label="failed")
        _out().print(f"outcome: {result.outcome}; calls: {', '.join(result.calls) or 'none'}", highlight=False)
        if result.state is not None:
            _out().print(_status_table(result.state))
    if result.failures:
        sys.exit(EXIT_ERROR)


def _emit(the_plan, result) -> None:
    """The plan and what became of it, as `--json` prints them."""
    click.echo(json.dumps({"plan": the_plan.to_dict(), "result": result}, indent=2, sort_keys=True))


def _confirmed_apply(client, the_plan, question: str, *, yes: bool, no_wait: bool, timeout: float, as_json: bool):
    """Ask, then apply the plan; None when there is nothing to do (said in JSON with --json)."""
    if the_plan.empty:
        if as_json:
            _emit(the_plan, {"outcome": "done", "calls": []})
        return None
    _confirm(yes, question)
    return _apply(client, the_plan, not no_wait, timeout, quiet=as_json)


def _snapshot(path: str):
    """A GET response saved by `hyperpod gcp snapshot` (`{}`: there was no cluster)."""
    from pulumi_hyperpod.gcp.observe import GcpClusterState
    from pulumi_hyperpod.core.documents import read_document
    from pulumi_hyperpod.core.errors import SnapshotError

    data = read_document(path, SnapshotError)  # bounded: size, depth, YAML 1.2, one error naming the file
    if data == {}:
        return None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("name"), str)
        or not isinstance(data.get("nodePools", data.get("node_pools")), list)
    ):
        raise ValueError(f"{path}: not a saved cluster (the JSON a GET of modelDevelopmentClusters returns)")  # noqa: TRY004 - bad input, one message like the others
    try:
        return GcpClusterState.from_api(data)
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as error:
        raise ValueError(f"{path}: not a saved cluster: {error!r}") from None


@gcp_group.command("snapshot")
@click.option("-f", "--file", "spec_file", type=click.Path(), help="The cluster's spec (for its name).")
@click.option("--name", help="Full resource name, or a bare id with --project/--location.")
@click.pass_context
@_handle
def snapshot_command(ctx, spec_file, name):
    """Print the cluster as the service returns it (GET), for `plan --observed`; `{}` when there is none."""
    full = _name_of(ctx, spec_file, name)
    resource = _client(ctx).find_cluster(full)
    click.echo(json.dumps(resource or {}, indent=2, sort_keys=True))


def _saved_plan(path: str, backend: str):
    """A plan saved by `gcp plan --out`: format, version, integrity, size and backend checked, the
    plan re-derived from its saved inputs and required to be the same (gcp/pipeline/saved.py), and its
    steps checked against its own cluster and action — all before any call (GCP's load_plan)."""
    from pulumi_hyperpod.cli.flow import load_plan

    return load_plan(path, cloud="gcp", target={"backend": backend}).plan


def _confirm(yes: bool, question: str) -> None:
    if yes:
        return
    if not sys.stdin.isatty():
        raise click.UsageError("refusing to change the cluster without confirmation: pass --yes (no terminal to ask on)")
    click.confirm(question, abort=True)


def _apply(client, the_plan, wait: bool, timeout: float, quiet: bool):
    """Apply through the cloud (core/cloud.execute) under the one contract (core/contract.py)."""
    from pulumi_hyperpod.core import cloud
    from pulumi_hyperpod.core.contract import ApplyOptions

    last: list[str] = []

    def progress(message: str) -> None:
        if not quiet and message not in last[-1:]:  # a poll that says the same again is not news
            _err().print(f"• {message}", highlight=False, markup=False)
        last.append(message)

    options = ApplyOptions(wait="InService" if wait else "none", timeout=timeout, progress=progress)
    return cloud.execute(cloud.get("gcp"), client, the_plan, options)


def _status_table(state):
    from rich.table import Table
    from rich.text import Text

    table = Table(title=Text(f"{state.name} [{state.state}]"), title_justify="left")
    for column in ("pool", "machine type", "model", "target", "running", "other nodes"):
        table.add_column(column)
    for pool in state.pools:
        others: dict[str, int] = {}
        for _id, _name, node_state in pool.nodes:
            if node_state != "RUNNING":
                others[node_state] = others.get(node_state, 0) + 1
        target = f"{pool.minimum}-{pool.target} (autoscaled)" if pool.autoscaled else str(pool.target)
        table.add_row(
            Text(pool.id),
            Text(pool.machine_type),
            Text(pool.provisioning_model or "-"),
            target,
            str(pool.running),
            ", ".join(f"{n} {s}" for s, n in sorted(others.items())) or "-",
        )
    return table


def _name_of(ctx, spec_file: str | None, name: str | None) -> str:
    from pulumi_hyperpod.gcp.spec.names import parse_name

    if spec_file:
        return _spec(ctx, spec_file).name
    if name:
        return parse_name(name, ctx.obj.get("project"), ctx.obj.get("location")).full
    raise click.UsageError("give -f SPEC or --name NAME")


@gcp_group.command("status")
@click.option("-f", "--file", "spec_file", type=click.Path(), help="The cluster's spec (for its name).")
@click.option("--name", help="Full resource name, or a bare id with --project/--location.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@_handle
def status_command(ctx, spec_file, name, as_json):
    """The cluster's state and each pool's nodes."""
    from pulumi_hyperpod.gcp.observe import observe
    from pulumi_hyperpod.gcp.status import status_of

    full = _name_of(ctx, spec_file, name)
    state = observe(_client(ctx), full)
    if as_json:
        click.echo(json.dumps(status_of(state), indent=2, sort_keys=True))
    elif state is None:
        _out().print(_text(f"no cluster {full}"))
    else:
        _out().print(_status_table(state))
    if state is None:
        sys.exit(EXIT_ERROR)


def _text(text: str):
    from rich.text import Text

    return Text(text)


@gcp_group.command("delete")
@click.option("-f", "--file", "spec_file", type=click.Path(), help="The cluster's spec (for its name).")
@click.option("--name", help="Full resource name, or a bare id with --project/--location.")
@click.option("--yes", "-y", is_flag=True, help="Delete without asking.")
@click.option("--no-wait", is_flag=True, help="Return once the delete is accepted.")
@click.option("--timeout", type=float, default=7200.0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@_handle
def delete_command(ctx, spec_file, name, yes, no_wait, timeout, as_json):
    """Delete the cluster (every node goes) and wait until it is gone."""
    from pulumi_hyperpod.core import cloud
    from pulumi_hyperpod.gcp.observe import observe
    from pulumi_hyperpod.plans.policy import Policy

    common.check_timeout(timeout)
    full = _name_of(ctx, spec_file, name)
    client = _client(ctx)
    observed = observe(client, full)
    if observed is None:  # as `hyperpod delete` of a missing cluster: an error, not "no changes"
        print_error(f"no cluster {full}: nothing to delete (check the name, --project and --location)")
        sys.exit(EXIT_ERROR)
    the_plan = cloud.deletion(cloud.get("gcp"), client, full, Policy(), observed=observed).plan
    if not as_json:
        _show(the_plan, False)
    result = _confirmed_apply(client, the_plan, "Delete this cluster?", yes=yes, no_wait=no_wait, timeout=timeout, as_json=as_json)
    if result is None:
        return
    if as_json:
        _emit(the_plan, {"outcome": result.outcome, "calls": result.calls})
    else:
        _out().print(f"outcome: {result.outcome}; calls: {', '.join(result.calls)}", highlight=False)


@gcp_group.command("list")
@click.option("--page-size", type=click.IntRange(1, 1000), default=None, help="Clusters per page (pageSize).")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@_handle
def list_command(ctx, page_size, as_json):
    """The clusters in --project / --location (every page): name, state, orchestrator, pools, nodes, age."""
    project, location = ctx.obj.get("project"), ctx.obj.get("location")
    if not project or not location:
        raise click.UsageError("list needs --project and --location")
    import datetime as dt

    from pulumi_hyperpod.gcp.spec.names import ClusterName, location_problem
    from pulumi_hyperpod.cli.list_commands import gcp_row, print_rows

    problem = location_problem(ClusterName(project, location, "x"))  # both go into the URL: checked first
    if problem:
        raise ValueError(f"--project/--location: {problem}")
    parent = f"projects/{project}/locations/{location}"
    now = dt.datetime.now(dt.timezone.utc)
    rows = [gcp_row(resource, now) for resource in _client(ctx).list_clusters(parent, page_size)]
    if as_json:
        click.echo(json.dumps(rows, indent=2, sort_keys=True))
        return
    print_rows(rows, f"training clusters in {parent}", f"no clusters in {parent}")


COMMANDS = (gcp_group,)
