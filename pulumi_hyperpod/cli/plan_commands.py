"""`hyperpod plan` and `hyperpod apply`: the one pipeline (spec → observe → plan → cost → preflight →
save | apply) with a terminal around it. The stages are composed in core/cloud.py (`prepare`,
`execute`) and core/planfile.py (`save`, `load`), reached through the AWS cloud with its context
(aws/context.AwsContext); a Google Cloud spec or plan file goes to `hyperpod gcp`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from pulumi_hyperpod.core import collector
from pulumi_hyperpod.plans.model import PLAN_FORMAT  # no third-party import: the --json help names the format
from pulumi_hyperpod.cli import common, flow
from pulumi_hyperpod.cli.common import EXIT_ERROR, EXIT_REFUSED, client_from, emit_json, handle_errors, load_policy
from pulumi_hyperpod.cli.outputs import OutputPath, command_inputs
from pulumi_hyperpod.cli.workload_commands import wants_workload, workload_options, workload_source

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.context import AwsPrepared
    from pulumi_hyperpod.plans import Plan
    from pulumi_hyperpod.aws.spec import ClusterSpec

# The pipeline, the AWS cloud's stages, rich and botocore are imported in the commands
# that run them (`hyperpod plan --help` loads none of them). The --wait choices are written here
# for the same reason (apply.waiters imports botocore's waiters and their docs, ~0.1 s);
# tests/cli_startup checks they are the keys of pulumi_hyperpod.aws.apply.waiters.WAIT_POLICIES.
WAIT_CHOICES = ("none", "InService", "MinCount", "Target")

OFFLINE = "planned offline from a snapshot (--observed): no API call, so service quotas and node build configurations were not read"
NO_PREFLIGHT = "--no-preflight: service quotas and node build configurations were not read"


def _spec_option(required: bool):
    def decorate(command):
        return click.option(
            "-f",
            "--file",
            "spec_file",
            required=required,
            type=click.Path(),
            help="Cluster spec: JSON or YAML, the AWS CLI --cli-input-json form or snake_case.",
        )(command)

    return decorate


def _policy_options(command):
    # no click.Path checks: the file reader says what is wrong with a path in one line (exit 1)
    command = click.option(
        "--reboot", multiple=True, metavar="NODE_ID", help="Reboot this node (BatchRebootClusterNodes), once, in this plan (repeatable)."
    )(command)
    command = click.option(
        "--replace",
        multiple=True,
        metavar="NODE_ID",
        help="Replace this node with a new instance (BatchReplaceClusterNodes; its volumes are destroyed), "
        "once, in this plan (repeatable).",
    )(command)
    command = click.option("--policy", "policy_file", type=click.Path(), help="Policy file (YAML/JSON).")(command)
    return click.option("--protect", multiple=True, metavar="NODE_ID", help="Never remove this node (repeatable).")(command)


def _preflight_option(command):
    return click.option(
        "--no-preflight", is_flag=True, help="Skip the preflight checks (service quotas, lifecycle consistency of a scale-out)."
    )(command)


def fail(message: str, code: int = EXIT_ERROR) -> None:
    """One line on stderr (user text printed as written, never as markup), then exit."""
    common.print_error(message)
    sys.exit(code)


def _show_plan(the_plan: Plan, as_json: bool) -> None:
    from pulumi_hyperpod.cli.flow import show_plan

    show_plan(the_plan, as_json)


def _snapshot(path: str, cluster_name: str | None = None) -> ClusterState:
    from pulumi_hyperpod.aws.observe import load_snapshot

    return load_snapshot(path, cluster_name)  # checked: shapes, consistency, the spec's cluster (observe/snapshot.py)


def _prepare(
    ctx,
    spec: ClusterSpec,
    policy,
    snapshot: str | None,
    no_preflight: bool,
    lifecycle: str | None = None,
    slurm_file: str | None = None,
    workload=None,
    saved: bool = False,
) -> AwsPrepared:
    """`lifecycle`: a local lifecycle bundle whose provisioning_parameters.json gives the Slurm roles of
    groups without SlurmConfig.NodeType; without it they are read from the groups' SourceS3Uri.
    `slurm_file`: a Slurm spec whose changes against the cluster's bundle the plan shows per key."""
    from pulumi_hyperpod.aws.context import AwsContext
    from pulumi_hyperpod.core import cloud

    slurm = None
    if slurm_file:
        from pulumi_hyperpod.slurm import check_references
        from pulumi_hyperpod.slurm.spec import SlurmSpec

        slurm = SlurmSpec.from_file(slurm_file)
        # partitions name groups of the cluster planned, as `slurm check` requires: before any call
        check_references(slurm, [g.name for g in spec.instance_groups], kind="instance group", source=slurm_file)
    aws = cloud.get("aws")
    if snapshot:
        context = AwsContext(region=ctx.obj.get("region"), lifecycle_dir=lifecycle, slurm=slurm, workload=workload)
        return cloud.prepare(aws, None, spec, policy, observed=_snapshot(snapshot, spec.name), skip_preflight=OFFLINE, context=context)
    client = client_from(ctx)
    # made only for a plan that adds instances (preflight calls it): no second client otherwise
    quotas = None if no_preflight else (lambda: client_from(ctx, "service-quotas"))
    context = AwsContext(
        quotas=quotas, s3=lambda: client_from(ctx, "s3"), lifecycle_dir=lifecycle, slurm=slurm, workload=workload, events=saved
    )
    return cloud.prepare(aws, client, spec, policy, skip_preflight=NO_PREFLIGHT if no_preflight else None, context=context)


def _load_spec(spec_file: str, slurm_file: str | None) -> ClusterSpec:
    """The cluster spec. With --slurm, groups without SlurmConfig get their role from the Slurm spec,
    as `slurm render` fills them in: a cluster.json written for render plans as it is."""
    from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError

    if not slurm_file:
        return ClusterSpec.from_file(spec_file)
    from pulumi_hyperpod.aws.slurm.render import load_cluster
    from pulumi_hyperpod.slurm.spec import SlurmSpec
    from pulumi_hyperpod.core.documents import read_document

    data = read_document(spec_file, SpecError)
    if not isinstance(data, dict):
        return ClusterSpec.from_file(spec_file)  # the spec's own one-line error
    from pulumi_hyperpod.slurm.spec import SlurmSpecError

    try:
        return load_cluster(data, SlurmSpec.from_file(slurm_file), source=spec_file)
    except SlurmSpecError as error:  # a partition or role the Slurm spec gets wrong: named in that file
        raise SlurmSpecError(error.violations, source=slurm_file) from None


def _is_gcp(spec_file: str, lifecycle: str | None) -> bool:
    """Whether -f names a Google Cloud training-cluster spec (pulumi_hyperpod/gcp), from its shape."""
    from pulumi_hyperpod.core.detect import detect_cloud
    from pulumi_hyperpod.aws.spec import SpecError
    from pulumi_hyperpod.core.documents import read_document

    if detect_cloud(read_document(spec_file, SpecError)) != "gcp":
        return False
    if lifecycle:
        fail(
            "--lifecycle and --slurm are for HyperPod clusters; this spec is a Google Cloud training cluster (its Slurm spec is its orchestrator_spec)"
        )
    return True


def _no_workload_on_gcp(*given, replace=(), reboot=()) -> None:
    if wants_workload(*given):
        fail(
            "--workload, --read-workload, --workload-command and --kubeconfig are for HyperPod clusters; this spec is a "
            "Google Cloud training cluster"
        )
    if replace or reboot:  # never dropped without a word: Google Cloud's API takes node counts, not node names
        fail(
            "--replace and --reboot are for HyperPod clusters (BatchReplaceClusterNodes, BatchRebootClusterNodes); this spec is a Google Cloud training cluster"
        )


def _in_gcp(ctx: click.Context, command: str, **params) -> None:
    """Run `hyperpod gcp COMMAND` with these parameters (its group options at their defaults: the
    backend follows `hyperpod --backend`)."""
    from pulumi_hyperpod.cli import gcp_commands

    group = gcp_commands.gcp_group
    with click.Context(group, info_name="gcp", parent=ctx) as gcp_ctx:
        gcp_ctx.invoke(group.callback, backend=None, project=None, location=None)
        gcp_ctx.invoke(group.commands[command], **params)


def _plan_file_cloud(path: str) -> str | None:
    """The cloud a saved plan file is for (one format, `hyperpod-plan/3`, for every cloud); None when
    unreadable (the AWS loader then says what is wrong)."""
    from pulumi_hyperpod.core.planfile import cloud_of

    return cloud_of(path)


def _lifecycle_option(command):
    command = click.option(
        "--slurm",
        "slurm_file",
        type=click.Path(),
        metavar="SLURM_SPEC",
        help="A Slurm spec (seed 002's slurm_spec): the plan shows its changes against the cluster's "
        "lifecycle bundle per key, with what each takes; a change made only by replacement is refused.",
    )(command)
    return click.option(
        "--lifecycle",
        "lifecycle",
        type=click.Path(),
        metavar="DIR",
        help="Lifecycle bundle (provisioning_parameters.json) stating the Slurm roles of groups without "
        "SlurmConfig; default: read from the groups' LifeCycleConfig.SourceS3Uri.",
    )(command)


def _target(ctx, client=None) -> dict:
    """Where plans are made and applied: the backend, and the region (--region, else the client's;
    a plan made from a cluster takes the region and account from its ARN)."""
    region = ctx.obj.get("region")
    if region is None and client is not None:
        region = getattr(client.meta, "region_name", None)
    if region is None and ctx.obj["backend"] == "fake":
        from pulumi_hyperpod.aws.client import DEFAULT_REGION

        region = DEFAULT_REGION
    return {"backend": ctx.obj["backend"], "region": region}


@click.command("plan")
@_spec_option(required=True)
@click.option(
    "--observed",
    "snapshot",
    type=click.Path(),
    help="Plan against a saved snapshot (hyperpod snapshot) instead of the live cluster: no API call.",
)
@click.option("--json", "as_json", is_flag=True, help=f"Machine-readable plan (format {PLAN_FORMAT}).")
@click.option(
    "--out",
    "out_file",
    type=OutputPath("the plan"),
    help="Save the plan for `hyperpod apply --plan FILE` (with the spec, policy and observed state it was made from).",
)
@click.option("--detailed-exitcode", "detailed_exitcode", is_flag=True, help=common.DETAILED_EXITCODE_HELP)
@_policy_options
@_preflight_option
@_lifecycle_option
@workload_options
@click.pass_context
@handle_errors
def plan_command(
    ctx,
    spec_file,
    snapshot,
    as_json,
    out_file,
    detailed_exitcode,
    policy_file,
    protect,
    no_preflight,
    lifecycle,
    slurm_file,
    workload_files,
    read_workload,
    workload_command,
    kubeconfig,
    kube_context,
    replace=(),
    reboot=(),
):
    """Show what apply would do, with its cost and the preflight checks. Exit 2 when a guard refuses the plan
    (with --detailed-exitcode, 3 when it has changes).
    A Google Cloud training-cluster spec (-f gcp-cluster.json) is planned as `hyperpod gcp plan` does."""
    from rich.text import Text

    if _is_gcp(spec_file, lifecycle or slurm_file):
        _no_workload_on_gcp(workload_files, read_workload, workload_command, kubeconfig, replace=replace, reboot=reboot)
        return _in_gcp(
            ctx,
            "plan",
            spec_file=spec_file,
            snapshot=snapshot,
            as_json=as_json,
            out_file=out_file,
            policy_file=policy_file,
            protect=protect,
            detailed_exitcode=detailed_exitcode,
            no_preflight=no_preflight,
        )
    inputs = command_inputs(ctx)  # --out was checked against them before the command began (outputs.py); again at the write
    with collector.paused():  # a read, a plan and its tables: short and bounded
        spec = _load_spec(spec_file, slurm_file)
        policy = load_policy(policy_file, protect, replace=replace, reboot=reboot)
        workload = workload_source(ctx, spec.name, workload_files, read_workload, workload_command, kubeconfig, kube_context)
        prepared = _prepare(ctx, spec, policy, snapshot, no_preflight, lifecycle, slurm_file, workload, saved=bool(out_file))
        _show_plan(prepared.plan, as_json)
    if out_file:
        try:
            flow.save_plan(prepared, out_file, target=_target(ctx, None if snapshot else client_from(ctx)), inputs=inputs)
        except OSError as error:
            fail(f"{out_file}: the plan cannot be saved ({error.strerror or error})")
        if not as_json:
            common.err.print(Text(f"plan saved to {out_file}: apply it with `hyperpod apply --plan {out_file}`"), highlight=False)
    common.exit_for_plan(prepared.plan, detailed_exitcode)


@click.command("apply")
@_spec_option(required=False)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(),
    help="Apply a plan saved by `hyperpod plan --out` exactly, or refuse when the cluster changed since (instead of -f).",
)
@click.option("--yes", "-y", is_flag=True, help="Apply without asking.")
@click.option(
    "--wait",
    "wait_policy",
    type=click.Choice(WAIT_CHOICES),
    default="InService",
    show_default=True,
    help="What to wait for after the calls (also when no call is needed).",
)
@click.option("--timeout", type=float, default=1800.0, show_default=True, help="Seconds to wait at most (more than 0).")
@click.option("--json", "as_json", is_flag=True, help="Print the plan and the result as JSON.")
@_policy_options
@_preflight_option
@_lifecycle_option
@workload_options
@click.pass_context
@handle_errors
def apply_command(
    ctx,
    spec_file,
    plan_file,
    yes,
    wait_policy,
    timeout,
    as_json,
    policy_file,
    protect,
    no_preflight,
    lifecycle,
    slurm_file,
    workload_files,
    read_workload,
    workload_command,
    kubeconfig,
    kube_context,
    replace=(),
    reboot=(),
):
    """Plan (or load a saved plan), confirm, and apply; then wait as --wait says."""
    from rich.text import Text

    from pulumi_hyperpod.core.planfile import SavedPlanError
    from pulumi_hyperpod.cli.tables import status_table

    gcp_plan = bool(plan_file) and not spec_file and _plan_file_cloud(plan_file) == "gcp"
    if gcp_plan or (spec_file and not plan_file and _is_gcp(spec_file, lifecycle or slurm_file)):
        _no_workload_on_gcp(workload_files, read_workload, workload_command, kubeconfig, replace=replace, reboot=reboot)
        return _in_gcp(
            ctx,
            "apply",
            spec_file=spec_file,
            plan_file=plan_file,
            yes=yes,
            no_wait=wait_policy == "none",
            timeout=timeout,
            as_json=as_json,
            policy_file=policy_file,
            protect=protect,
            no_preflight=no_preflight,
        )
    if bool(spec_file) == bool(plan_file):
        fail(
            "give either -f SPEC (plan now and apply) or --plan PLAN.json (apply a saved plan), not both"
            if spec_file
            else "nothing to apply: give -f SPEC, or --plan PLAN.json saved by `hyperpod plan --out`"
        )
    common.check_timeout(timeout)
    from pulumi_hyperpod.aws.client import default_poll_seconds

    default_poll_seconds(ctx.obj["backend"])  # $HYPERPOD_POLL_SECONDS checked before any call, not at the first wait
    client = client_from(ctx)
    if plan_file:
        if policy_file or protect or no_preflight or lifecycle or slurm_file or replace or reboot:
            fail(
                "--policy, --protect, --replace, --reboot, --no-preflight, --lifecycle and --slurm are part of a saved plan; "
                "make the plan again to change them"
            )
        try:
            prepared = flow.load_plan(plan_file, cloud="aws", target=_target(ctx, client))
        except SavedPlanError as error:
            fail(str(error))
        prepared = _preflight_again(ctx, client, prepared)
        if workload_files:
            fail("--workload files were read when the plan was made; to drain, give --read-workload or --workload-command")
        workload = workload_source(ctx, prepared.plan.cluster_name, (), read_workload, workload_command, kubeconfig, kube_context)
    else:
        spec = _load_spec(spec_file, slurm_file)
        workload = workload_source(ctx, spec.name, workload_files, read_workload, workload_command, kubeconfig, kube_context)
        prepared = _prepare(
            ctx,
            spec,
            load_policy(policy_file, protect, replace=replace, reboot=reboot),
            None,
            no_preflight,
            lifecycle,
            slurm_file,
            workload,
        )
    the_plan = prepared.plan
    if not as_json:
        _show_plan(the_plan, False)
    if the_plan.refused:
        if as_json:
            emit_json({"plan": the_plan.to_dict(), "result": None})
        common.err.print(Text("refused: nothing was changed.", style="red"))
        sys.exit(EXIT_REFUSED)
    if not the_plan.empty and not yes:
        if not sys.stdin.isatty():
            fail("refusing to apply without confirmation: pass --yes (there is no terminal to ask on)")
        if as_json:  # the plan is always shown before the question; stdout stays one JSON document
            from pulumi_hyperpod.plans import plan_renderable

            common.err.print(plan_renderable(the_plan))
        click.confirm("Apply this plan?", abort=True, err=as_json)
    result = _run_with_progress(
        ctx, client, the_plan, prepared.policy, wait_policy, timeout, quiet=as_json, workload=workload, roles=prepared.context.role_map()
    )
    if as_json:
        emit_json(
            {
                "plan": the_plan.to_dict(),
                "result": {"outcome": result.outcome, "calls": result.calls, "failures": result.failures, "messages": result.messages},
            }
        )
    else:
        for failure in result.failures:
            common.err.print(Text.assemble(("failed: ", "red"), failure), highlight=False)
        common.out.print(Text(f"outcome: {result.outcome}; calls: {', '.join(result.calls) or 'none'}"))
        if result.state is not None:
            common.out.print(status_table(result.state))
    if result.failures or result.outcome in ("unreachable", "timeout"):
        sys.exit(EXIT_ERROR)


def _preflight_again(ctx, client, prepared: AwsPrepared) -> AwsPrepared:
    """A saved plan's account checks, run again now (quotas, lifecycle consistency): what is shown is
    what holds at apply, not what the file says. One saved as skipped (offline, --no-preflight) stays so."""
    import dataclasses

    from pulumi_hyperpod.core import cloud

    saved = prepared.plan.preflight
    if prepared.plan.refused or saved is None or saved.skipped is not None:
        return prepared
    the_plan = dataclasses.replace(prepared.plan, preflight=None)
    context = dataclasses.replace(prepared.context, quotas=lambda: client_from(ctx, "service-quotas"))
    checked = cloud.get("aws").preflight(the_plan, dataclasses.replace(prepared, context=context).request, client)
    return dataclasses.replace(prepared, plan=checked)


def _run_with_progress(ctx, client, the_plan, policy, wait_policy, timeout, quiet: bool, workload=None, roles=None):
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.text import Text

    from pulumi_hyperpod.aws.client import default_poll_seconds
    from pulumi_hyperpod.aws.context import AwsContext
    from pulumi_hyperpod.core import cloud
    from pulumi_hyperpod.core.contract import (
        EXIT_INTERRUPTED,
        ApplyError,
        ApplyInterrupted,
        ApplyOptions,
        ConcurrentChange,
        PlanRefused,
        PlanStale,
    )

    err = common.err
    poll = default_poll_seconds(ctx.obj["backend"])
    columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=err, transient=True, disable=quiet) as bar:
        task = bar.add_task("applying", total=None)

        def on_progress(event) -> None:
            current, target = event.nodes
            bar.update(task, description=str(event)[:100], completed=current, total=target or None)
            # step and retry messages are printed once; polls only move the bar
            if event.phase in ("call", "retry") and not event.groups and not quiet:
                bar.console.print(Text(f"• {event.message}"), highlight=False)

        try:
            options = ApplyOptions(wait=wait_policy, timeout=timeout, poll_seconds=poll, progress=on_progress)
            context = AwsContext(roles=dict(roles or {}), workload=workload)
            return cloud.execute(cloud.get("aws"), client, the_plan, options, policy=policy, context=context)
        except PlanRefused as error:
            err.print(Text.assemble(("refused: ", "red"), str(error)), highlight=False)
            sys.exit(EXIT_REFUSED)
        except PlanStale as error:
            err.print(Text.assemble(("stale plan: ", "red"), str(error)), highlight=False)
            sys.exit(EXIT_ERROR)
        except ConcurrentChange as error:
            err.print(Text.assemble(("error: ", "red"), str(error)), highlight=False)
            sys.exit(EXIT_ERROR)
        except ApplyInterrupted as error:  # Ctrl-C: what was sent, what was under way, how to resume
            err.print(Text.assemble(("interrupted: ", "red"), str(error).removeprefix("interrupted ")), highlight=False)
            sys.exit(EXIT_INTERRUPTED)
        except ApplyError as error:
            err.print(Text.assemble(("error: ", "red"), flow.apply_failed(error)), highlight=False)
            sys.exit(EXIT_ERROR)


COMMANDS = (plan_command, apply_command)
