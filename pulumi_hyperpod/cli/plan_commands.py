"""`hyperpod plan | apply | status | delete`, written once for every cloud over the `Cloud` interface
(core/cloud.py: `prepare`, `deletion`, `execute`; core/planfile.py: `save`, `load`).

The cloud is the one a spec file is for (its shape, core/detect.py), the one a saved plan names, or
`--cloud`; `hyperpod gcp plan|apply|status|delete` are these same commands with the cloud set to
Google Cloud (gcp_commands.py). What differs per cloud — its client, spec reader, context, status
table — is its adapter in clouds.py; its options are listed in their own section of `--help`, and
an option of the other cloud is refused in one line, never dropped.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import EXIT_ERROR, EXIT_REFUSED, F, emit_json, handle_errors, print_error
from pulumi_hyperpod.cli.outputs import OutputPath, command_inputs
from pulumi_hyperpod.cli.workload_commands import workload_options
from pulumi_hyperpod.plans.model import PLAN_FORMAT  # no third-party import: the --json help names the format
from pulumi_hyperpod.core.errors import SpecError
from pulumi_hyperpod.plans import plan_renderable
from pulumi_hyperpod.core.detect import detect_cloud
from pulumi_hyperpod.core.planfile import cloud_of
from pulumi_hyperpod.cli.clouds import front
from pulumi_hyperpod.cli import governance_commands as governance
from pulumi_hyperpod.core import cloud as clouds, collector, planfile
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.core.contract import ApplyOptions

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.cli.clouds import CloudFront
    from pulumi_hyperpod.core.contract import ApplyResult
    from pulumi_hyperpod.plans import Plan

# The pipeline, the clouds' stages, rich and botocore are imported in the commands that run them
# (`hyperpod plan --help` loads none of them). The --wait choices are written here for the same
# reason (aws/apply/waiters imports botocore's waiters, ~0.1 s); tests/cli_startup checks they are
# the keys of pulumi_hyperpod.aws.apply.waiters.WAIT_POLICIES.
WAIT_CHOICES = ("none", "InService", "MinCount", "Target")
CLOUDS = ("aws", "gcp")
GCP_GROUP_CLOUD = "hyperpod.cloud"  # root ctx.meta: the cloud a group (`hyperpod gcp`) fixes

# Each cloud's own options (parameter names) by family: given for a cluster of the other cloud, a
# family is refused with its line; `--help` lists them in the cloud's own section (SECTIONS).
NOT_FOR_GCP = (
    (
        ("lifecycle", "slurm_file"),
        "--lifecycle and --slurm are for HyperPod clusters; this spec is a Google Cloud training cluster (its Slurm spec is its orchestrator_spec)",
    ),
    (
        ("workload_files", "read_workload", "workload_command", "kubeconfig", "kube_context"),
        "--workload, --read-workload, --workload-command and --kubeconfig are for HyperPod clusters; this spec is a Google Cloud training cluster",
    ),
    # never dropped without a word: Google Cloud's API takes node counts, not node names
    (
        ("replace", "reboot"),
        "--replace and --reboot are for HyperPod clusters (BatchReplaceClusterNodes, BatchRebootClusterNodes); this spec is a Google Cloud training cluster",
    ),
)
NOT_FOR_AWS = (
    (
        ("project", "location", "cluster_id"),
        "--project, --location and --cluster-id are for Google Cloud clusters; this cluster is a HyperPod cluster",
    ),
)


SECTIONS = {
    "aws": ("HyperPod options", tuple(name for names, _line in NOT_FOR_GCP for name in names)),
    "gcp": ("Google Cloud options", tuple(name for names, _line in NOT_FOR_AWS for name in names)),
}


class ClusterCommand(click.Command):
    """A command whose --help lists the options every cloud takes, then each cloud's own."""

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        own = {name: key for key, (_title, names) in SECTIONS.items() for name in names}
        rows: dict[str | None, list[tuple[str, str]]] = {None: [], **{key: [] for key in SECTIONS}}
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None and not isinstance(param, click.Argument):  # as click's own: options only
                rows[own.get(param.name or "")].append(record)
        for key, title in ((None, "Options"), *((key, title) for key, (title, _names) in SECTIONS.items())):
            if rows[key]:
                with formatter.section(title):
                    formatter.write_dl(rows[key])


# ---- options ---------------------------------------------------------------------------------------
def _options(*decorators: Callable[[F], F]) -> Callable[[F], F]:
    def decorate(command: F) -> F:
        for decorator in reversed(decorators):
            command = decorator(command)
        return command

    return decorate


_cloud_option = click.option(
    "--cloud",
    type=click.Choice(CLOUDS),
    default=None,
    help="The cluster's cloud: aws (HyperPod) or gcp (Google Cloud). Default: what the spec file or saved plan is for; "
    "for a NAME, gcp when it is a projects/…/modelDevelopmentClusters/… name.",
)
_policy_options = _options(
    click.option("--policy", "policy_file", type=click.Path(), help="Policy file (YAML/JSON): the guards."),
    click.option(
        "--protect",
        multiple=True,
        metavar="NODE_ID",
        help="Never remove this node (repeatable; on Google Cloud: refuse a shrink of its pool).",
    ),
    click.option(
        "--no-preflight",
        is_flag=True,
        help="Skip the preflight checks (service quotas, lifecycle consistency of a scale-out; Google Cloud: machine types, reservations, quotas).",
    ),
    click.option(
        "--reboot", multiple=True, metavar="NODE_ID", help="Reboot this node (BatchRebootClusterNodes), once, in this plan (repeatable)."
    ),
    click.option(
        "--replace",
        multiple=True,
        metavar="NODE_ID",
        help="Replace this node with a new instance (BatchReplaceClusterNodes; its volumes are destroyed), once, in this plan (repeatable).",
    ),
    click.option(
        "--lifecycle",
        "lifecycle",
        type=click.Path(),
        metavar="DIR",
        help="Lifecycle bundle (provisioning_parameters.json) stating the Slurm roles of groups without "
        "SlurmConfig; default: read from the groups' LifeCycleConfig.SourceS3Uri.",
    ),
    click.option(
        "--slurm",
        "slurm_file",
        type=click.Path(),
        metavar="SLURM_SPEC",
        help="A Slurm spec (seed 002's slurm_spec): the plan shows its changes against the cluster's "
        "lifecycle bundle per key, with what each takes; a change made only by replacement is refused.",
    ),
)
_gcp_options = _options(
    click.option("--project", envvar="GOOGLE_CLOUD_PROJECT", default=None, help="Project, when the spec's name is a bare id."),
    click.option("--location", envvar="HYPERPOD_GCP_LOCATION", default=None, help="Region, when the spec's name is a bare id."),
    click.option(
        "--cluster-id",
        default=None,
        help="The cluster id, for a spec with no `name` (Google's create bodies: the id is a query parameter) "
        "or a name ending in `modelDevelopmentClusters/`.",
    ),
)
_SPEC_HELP = (
    "Cluster spec (JSON or YAML): HyperPod's (the AWS CLI --cli-input-json form or snake_case) or Google Cloud's (the REST body); "
    "or a HyperPod task governance spec (create-compute-quota's or create-cluster-scheduler-config's --cli-input-json)."
)
_wait_options = _options(
    click.option(
        "--wait",
        "wait_policy",
        type=click.Choice(WAIT_CHOICES),
        default=None,
        help="What to wait for after the calls (also when no call is needed). Default: InService (delete: HyperPod none, Google Cloud the operation).",
    ),
    click.option("--no-wait", is_flag=True, help="The same as --wait none: return once the calls are accepted."),
    click.option(
        "--timeout",
        type=float,
        default=None,
        help="Seconds to wait at most (more than 0). Default: 1800 on HyperPod, 7200 on Google Cloud.",
    ),
)


# ---- choosing the cloud ------------------------------------------------------------------------------
def _fixed_cloud(ctx: click.Context) -> str | None:
    """`--cloud`, else the cloud a group fixes (`hyperpod gcp …`); they must agree."""
    given, fixed = ctx.params.get("cloud"), ctx.meta.get(GCP_GROUP_CLOUD)
    if given and fixed and given != fixed:
        raise ValueError(f"--cloud {given}: `hyperpod {fixed} {ctx.info_name}` is for {fixed} clusters")
    return given or fixed


def _spec_cloud(ctx: click.Context, spec_file: str) -> str:
    """The cloud of -f SPEC: fixed, or from the document's shape (read once more by its loader)."""
    fixed = _fixed_cloud(ctx)
    if fixed:
        return fixed
    from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML: only a command given a file reads one (tests/cli_startup)

    return "gcp" if detect_cloud(read_document(spec_file, SpecError)) == "gcp" else "aws"


def _plan_file_cloud(ctx: click.Context, path: str) -> str:
    """The cloud a saved plan file is for (one format, `hyperpod-plan/3`, for every cloud); unreadable:
    the AWS loader says what is wrong."""

    return _fixed_cloud(ctx) or cloud_of(path) or "aws"


def _name_cloud(ctx: click.Context, name: str | None, spec_file: str | None) -> str:
    if spec_file:
        return _spec_cloud(ctx, spec_file)
    return _fixed_cloud(ctx) or ("gcp" if name and name.startswith("projects/") and "/modelDevelopmentClusters/" in name else "aws")


def _front(ctx: click.Context, cloud: str) -> CloudFront:
    """The cloud's adapter, once the options of the other cloud are known not to be given."""

    for names, message in NOT_FOR_GCP if cloud == "gcp" else NOT_FOR_AWS:
        if any(_given(ctx, name) for name in names):
            raise ValueError(message)
    return front(cloud)


def _given(ctx: click.Context, name: str) -> bool:
    """Whether option `name` was given on the command line (an environment variable is not a choice
    made for this cluster: $GOOGLE_CLOUD_PROJECT set does not refuse a HyperPod plan)."""
    if not ctx.params.get(name):
        return False
    source = ctx.get_parameter_source(name)
    return source is None or source not in (click.core.ParameterSource.ENVIRONMENT, click.core.ParameterSource.DEFAULT)


def _wait_and_timeout(params: dict[str, Any], cloud: CloudFront, default_wait: str = "InService") -> tuple[str, float]:
    wait = params.get("wait_policy")
    if params.get("no_wait"):
        if wait not in (None, "none"):
            raise ValueError(f"--no-wait and --wait {wait}: give one")
        wait = "none"
    timeout = params.get("timeout")
    return wait or default_wait, common.check_timeout(cloud.timeout if timeout is None else timeout)


# ---- plan ----------------------------------------------------------------------------------------
@click.command("plan", cls=ClusterCommand)
@click.option("-f", "--file", "spec_file", required=True, type=click.Path(), help=_SPEC_HELP)
@click.option(
    "--observed",
    "snapshot",
    type=click.Path(),
    help="Plan against a saved snapshot (`hyperpod snapshot`, `hyperpod gcp snapshot`) instead of the live cluster: no API call.",
)
@click.option("--json", "as_json", is_flag=True, help=f"Machine-readable plan (format {PLAN_FORMAT}).")
@click.option(
    "--out",
    "out_file",
    type=OutputPath("the plan"),
    help="Save the plan for `hyperpod apply --plan FILE` (with the spec, policy and observed state it was made from).",
)
@click.option("--detailed-exitcode", "detailed_exitcode", is_flag=True, help=common.DETAILED_EXITCODE_HELP)
@_cloud_option
@_policy_options
@workload_options
@_gcp_options
@click.pass_context
@handle_errors
def plan_command(ctx: click.Context, /, **params: Any) -> None:
    """Show what apply would do, with its cost and the preflight checks. Exit 2 when a guard refuses the plan
    (with --detailed-exitcode, 3 when it has changes). The cloud is the one the spec is for."""

    if governance.declares(params["spec_file"]):  # a compute quota or a scheduler configuration
        return governance.plan(ctx, params)
    cloud = _front(ctx, _spec_cloud(ctx, params["spec_file"]))
    out_file = params["out_file"]
    inputs = command_inputs(ctx)  # --out was checked against them before the command began (outputs.py); again at the write
    with collector.paused():  # a read, a plan and its tables: short and bounded
        prepared = cloud.planned(ctx, params, saved=bool(out_file))
        _show_plan(prepared.plan, params["as_json"])
    if out_file:
        client = None if params["snapshot"] or cloud.cloud != "aws" else cloud.client(ctx)
        try:
            planfile.save(prepared, out_file, target=cloud.target(ctx, client), inputs=inputs)
        except OSError as error:
            print_error(f"{out_file}: the plan cannot be saved ({error.strerror or error})")
            sys.exit(EXIT_ERROR)
        if not params["as_json"]:
            fixed = "gcp " if ctx.meta.get(GCP_GROUP_CLOUD) else ""
            common.print_line(f"plan saved to {out_file}: apply it with `hyperpod {fixed}apply --plan {out_file}`", console=common.err)
    common.exit_for_plan(prepared.plan, params["detailed_exitcode"])


# ---- apply ----------------------------------------------------------------------------------------
@click.command("apply", cls=ClusterCommand)
@click.option("-f", "--file", "spec_file", type=click.Path(), help=_SPEC_HELP)
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(),
    help="Apply a plan saved by `hyperpod plan --out` exactly, or refuse when the cluster changed since (instead of -f).",
)
@click.option("--yes", "-y", is_flag=True, help="Apply without asking.")
@_wait_options
@click.option("--json", "as_json", is_flag=True, help="Print the plan and the result as JSON.")
@_cloud_option
@_policy_options
@workload_options
@_gcp_options
@click.pass_context
@handle_errors
def apply_command(ctx: click.Context, /, **params: Any) -> None:
    """Plan (or load a saved plan), confirm, and apply; then wait as --wait says."""
    spec_file, plan_file = params["spec_file"], params["plan_file"]
    if bool(spec_file) == bool(plan_file):
        raise ValueError(
            "give either -f SPEC (plan now and apply) or --plan PLAN.json (apply a saved plan), not both"
            if spec_file
            else "nothing to apply: give -f SPEC, or --plan PLAN.json saved by `hyperpod plan --out`"
        )
    if governance.declares(spec_file) or governance.saved(plan_file):  # a compute quota or a scheduler configuration
        return governance.apply(ctx, params)
    cloud = _front(ctx, _plan_file_cloud(ctx, plan_file) if plan_file else _spec_cloud(ctx, spec_file))
    wait, timeout = _wait_and_timeout(params, cloud)
    poll = cloud.poll_seconds(ctx)  # checked before any call, not at the first wait
    client = cloud.client(ctx)
    if plan_file:
        planned_with = ("policy_file", "protect", "no_preflight", "lifecycle", "slurm_file", "replace", "reboot")
        if any(params.get(name) for name in planned_with):
            raise ValueError(
                "--policy, --protect, --replace, --reboot, --no-preflight, --lifecycle and --slurm are part of a saved plan; "
                "make the plan again to change them"
            )
        prepared = cloud.saved(ctx, params, client)
    else:
        prepared = cloud.planned(ctx, params, saved=False)
    context = cloud.apply_context(ctx, params, prepared)
    result = _apply(
        ctx,
        cloud,
        client,
        prepared.plan,
        "Apply this plan?",
        params["yes"],
        params["as_json"],
        wait,
        timeout,
        poll,
        prepared.policy,
        context,
    )
    if result.failures or result.outcome in ("unreachable", "timeout"):
        sys.exit(EXIT_ERROR)


# ---- status and delete -------------------------------------------------------------------------------
_name_options = _options(
    click.argument("name", required=False),
    click.option("-f", "--file", "spec_file", type=click.Path(), help="The cluster's spec (for its name)."),
    click.option(
        "--name",
        "name_option",
        metavar="NAME",
        help="The same as NAME (Google Cloud: a full resource name, or a bare id with --project/--location).",
    ),
    _cloud_option,
    _gcp_options,
)


def _cluster(ctx: click.Context, params: dict[str, Any]) -> tuple[CloudFront, Any, str, Any]:
    """(the cloud, its client, the cluster's full name, the cluster as read now or None)."""

    given = [value for value in (params["name"], params["name_option"]) if value is not None]  # "" is a name to refuse
    name, spec_file = (given[0] if given else None), params["spec_file"]
    if len(set(given)) > 1:
        raise ValueError("NAME and --name differ: give one")
    cloud = _front(ctx, _name_cloud(ctx, name, spec_file))
    full = cloud.cluster_name(ctx, spec_file, name)
    client = cloud.client(ctx)
    return cloud, client, full, clouds.get(cloud.cloud).read(client, full)


@click.command("status", cls=ClusterCommand)
@_name_options
@click.option("--json", "as_json", is_flag=True, help='The status as JSON (`{"exists": false}` when there is no such cluster).')
@click.pass_context
@handle_errors
def status_command(ctx: click.Context, /, **params: Any) -> None:
    """Cluster status and per-group counts. Exit 1 when there is no such cluster. With -f a task
    governance spec: that compute quota's or scheduler configuration's status and version."""
    if governance.declares(params["spec_file"]):
        return governance.status(ctx, params)
    cloud, client, full, state = _cluster(ctx, params)
    if state is None:
        if params["as_json"]:
            emit_json({"exists": False})
            sys.exit(EXIT_ERROR)
        raise LookupError(cloud.missing(full, client))
    if params["as_json"]:
        emit_json(cloud.status_json(state))
    else:
        common.out.print(cloud.status_table(state))


@click.command("delete", cls=ClusterCommand)
@_name_options
@click.option("--yes", "-y", is_flag=True, help="Delete without asking.")
@_wait_options
@click.option("--json", "as_json", is_flag=True, help="Print the plan and the result as JSON.")
@click.pass_context
@handle_errors
def delete_command(ctx: click.Context, /, **params: Any) -> None:
    """Delete the cluster and wait until it is gone. Exit 1 when there is no such cluster. With -f a
    task governance spec: delete that compute quota or scheduler configuration (none: no changes)."""

    if governance.declares(params["spec_file"]):
        return governance.apply(ctx, params, delete=True)
    cloud, client, full, state = _cluster(ctx, params)
    wait, timeout = _wait_and_timeout(params, cloud, cloud.delete_wait)
    poll = cloud.poll_seconds(ctx)
    if state is None:  # an error, not "no changes": the name, the project or the region is wrong
        raise LookupError(f"{cloud.missing(full, client)}: nothing to delete")
    the_plan = clouds.deletion(clouds.get(cloud.cloud), client, full, Policy(), observed=state, context=cloud.deletion_context()).plan
    result = _apply(
        ctx, cloud, client, the_plan, f"Delete cluster {full}?", params["yes"], params["as_json"], wait, timeout, poll, None, None
    )
    if result.failures or result.outcome in ("unreachable", "timeout"):
        sys.exit(EXIT_ERROR)
    if result.outcome == "done" and not params["as_json"] and not the_plan.empty:
        common.print_line(f"cluster {full} deleted")


# ---- the shared steps ----------------------------------------------------------------------------
def _show_plan(the_plan: Plan, as_json: bool) -> None:
    """The plan on stdout: its JSON form, or its tables (user text never read as markup)."""
    if as_json:
        click.echo(the_plan.to_json())
    else:
        common.out.print(plan_renderable(the_plan))


def _apply(
    ctx: click.Context,
    cloud: CloudFront,
    client: Any,
    the_plan: Plan,
    question: str,
    yes: bool,
    as_json: bool,
    wait: str,
    timeout: float,
    poll: float | None,
    policy: Any,
    context: Any,
) -> ApplyResult:
    """Show the plan, refuse it (exit 2) or ask, apply it through its cloud under the one contract,
    and say what became of it."""

    if not as_json:
        _show_plan(the_plan, False)
    if the_plan.refused:
        if as_json:
            emit_json({"plan": the_plan.to_dict(), "result": None})
        print_error("nothing was changed.", label="refused")
        sys.exit(EXIT_REFUSED)
    if not the_plan.empty and not yes:
        if not sys.stdin.isatty():
            raise ValueError(f"refusing to {question.split()[0].lower()} without confirmation: pass --yes (there is no terminal to ask on)")
        if as_json:  # the plan is always shown before the question; stdout stays one JSON document
            common.err.print(plan_renderable(the_plan))
        click.confirm(question, abort=True, err=as_json)
    with _progress(quiet=as_json) as progress:
        options = ApplyOptions(wait=wait, timeout=timeout, poll_seconds=poll, progress=progress)
        result = clouds.execute(clouds.get(cloud.cloud), client, the_plan, options, policy=policy, context=context)
    state = None if result.state is None else cloud.status_json(result.state)
    if as_json:
        shown = {
            "outcome": result.outcome,
            "calls": result.calls,
            "failures": result.failures,
            "messages": result.messages,
            "status": state,
        }
        emit_json({"plan": the_plan.to_dict(), "result": shown})
        return result
    for failure in result.failures:
        print_error(failure, label="failed")
    common.print_line(f"outcome: {result.outcome}; calls: {', '.join(result.calls) or 'none'}")
    if result.state is not None:
        common.out.print(cloud.status_table(result.state))
    return result


class _progress:
    """What an apply says while it runs: each call and retry once (a cloud's Progress events, or the
    strings Google Cloud's apply sends, a repeated one dropped), and a bar of nodes for events that
    count them (rich, on stderr; cleared at the end). Nothing with `quiet` (--json)."""

    def __init__(self, quiet: bool) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

        columns = (TextColumn("{task.description}", markup=False), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        self.quiet = quiet
        self.bar = Progress(*columns, console=common.err, transient=True, disable=quiet)
        self.task = self.bar.add_task("applying", total=None)
        self.last: list[str] = []

    def __enter__(self) -> Callable[[Any], None]:
        self.bar.__enter__()
        return self.say

    def __exit__(self, *exc: object) -> None:
        self.bar.__exit__(None, None, None)

    def say(self, event: Any) -> None:
        if isinstance(event, str):
            if not self.quiet and event not in self.last[-1:]:  # a poll that says the same again is not news
                common.print_line(f"• {event}", console=self.bar.console)
            self.last.append(event)
            return
        current, target = event.nodes
        self.bar.update(self.task, description=str(event)[:100], completed=current, total=target or None)
        # step and retry messages are printed once; polls only move the bar
        if event.phase in ("call", "retry") and not event.groups and not self.quiet:
            common.print_line(f"• {event.message}", console=self.bar.console)


COMMANDS = (plan_command, apply_command, status_command, delete_command)
