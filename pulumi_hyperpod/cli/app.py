"""`hyperpod`: the command group and its global options; the commands live in one module per area.

A command's module is imported when that command runs (or shows its own help), never at start-up:
`hyperpod plan` loads `plan_commands` only (it holds plan, apply, status and delete, for every cloud), and `hyperpod --help` lists every command from
`COMMANDS` below without importing any of them (click's lazy-group pattern). The summaries there
are the first sentence of each command's docstring; tests/cli_startup checks that they still are.
"""

from __future__ import annotations

import atexit
import gc
import importlib
from typing import Any

import click

from pulumi_hyperpod.aws.client import BACKENDS

from pulumi_hyperpod.cli.common import EXIT_ERROR, HyperpodGroup, print_error
from pulumi_hyperpod.aws.regions import is_region, not_a_region

# command name → (module in this package, attribute, summary `hyperpod --help` lists)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "apply": ("plan_commands", "apply_command", "Plan (or load a saved plan), confirm, and apply; then wait as --wait says."),
    "cost": ("sim_commands", "cost", "Instance-hours and money per instance group and per instance."),
    "delete": ("plan_commands", "delete_command", "Delete the cluster and wait until it is gone. Exit 1 when there is no such cluster."),
    "events": ("sim_commands", "events", "Cluster events (Continuous-mode clusters), oldest first, via the ListClusterEvents paginator."),
    "fake": ("sim_commands", "fake", "Both simulators' persistent worlds (HyperPod's and Google Cloud's) and their one clock."),
    "fleet": ("fleet_commands", "fleet_group", "Plan and apply many clusters' stacks, across accounts and regions, as one fleet."),
    "gcp": ("gcp_commands", "gcp_group", "Google Cloud training clusters (Vertex AI / Gemini Enterprise Agent Platform, Slurm)."),
    "iam-policy": (
        "iam_commands",
        "iam_policy_command",
        "Print the least-privilege IAM policy (JSON) for the AWS calls the tool makes, per feature.",
    ),
    "list": ("list_commands", "list_command", "The clusters in the region: name, status, orchestrator, groups, nodes running/target, age."),
    "health-check": (
        "health_commands",
        "health_check_command",
        "Run deep health checks (StartClusterHealthCheck) and follow the operation to its end.",
    ),
    "nodes": ("cluster_commands", "nodes_command", "Every node: instance id, logical id, group, type, status, launch time."),
    "plan": ("plan_commands", "plan_command", "Show what apply would do, with its cost and the preflight checks."),
    "sinfo": ("sim_commands", "sinfo", "Slurm partitions and nodes as `sinfo` shows them (simulator only)."),
    "slurm": (
        "slurm_commands",
        "slurm_group",
        "A Slurm spec (partitions, login pool, shared home, slurm.conf, prolog/epilog) on HyperPod.",
    ),
    "snapshot": (
        "cluster_commands",
        "snapshot_command",
        "Print DescribeCluster + ListClusterNodes as JSON, for `plan --observed` in a pipeline.",
    ),
    "status": ("plan_commands", "status_command", "Cluster status and per-group counts. Exit 1 when there is no such cluster."),
    "timeline": (
        "timeline_commands",
        "timeline_command",
        "Draw target, current and usable nodes per instance group over time, from the cluster's events and DescribeCluster's counts now.",
    ),
}


def load_command(name: str) -> click.Command:
    """The real command `name` of `COMMANDS` (importing its module)."""
    module, attribute, _summary = COMMANDS[name]
    command = getattr(importlib.import_module(f".{module}", __package__), attribute)
    if not isinstance(command, click.Command) or command.name != name:
        raise RuntimeError(f"pulumi_hyperpod.cli.{module}.{attribute} is not the command {name!r}")
    return command


class LazyGroup(HyperpodGroup):
    """`hyperpod`: subcommands imported on first use. Commands added with `add_command` (tests,
    plugins) are eager and win over a lazy one of the same name."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        _collect_nothing_at_exit()
        return super().main(*args, **kwargs)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(COMMANDS) | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMANDS:
            self.commands[cmd_name] = load_command(cmd_name)
        return self.commands.get(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The command list from the summaries, not the modules: a stand-in command per lazy name,
        so click shortens each summary to the terminal exactly as it would the real help."""
        listed = _Listing(
            {name: self.commands.get(name) or click.Command(name, help=COMMANDS[name][2]) for name in self.list_commands(ctx)}
        )
        click.Group.format_commands(listed, ctx, formatter)


_exit_hook: list[bool] = []


def _collect_nothing_at_exit() -> None:
    """When the process ends, skip the garbage collector's passes over everything still alive.

    An interpreter that exits clears every module and runs the cyclic garbage collector over what
    is left: after a plan of a 5,000-node cluster that took 0.2-0.3 s, more than the CLI's start-up.
    `gc.freeze()` in an atexit hook (run before that teardown, and only when the process really
    ends: in a test run, once at its end) moves all those objects out of the collector's sight;
    the atexit hooks registered before it still run, and stdout/stderr are still flushed. What is
    left in a reference cycle is then not finalized, only freed by the OS: nothing of ours relies
    on that (files are written in `with` blocks, the simulator's SQLite world commits each change)."""
    if not _exit_hook:
        _exit_hook.append(True)
        atexit.register(gc.freeze)


class _Listing(click.Group):
    """A group that only lists the given commands (for `LazyGroup.format_commands`)."""

    def __init__(self, commands: dict[str, click.Command]) -> None:
        super().__init__(commands=commands)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(self.commands)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option(
    "--backend",
    type=click.Choice(BACKENDS),
    default="aws",
    envvar="HYPERPOD_BACKEND",
    show_default=True,
    show_envvar=True,
    help="aws: the real service (boto3 credentials). fake: the embedded simulator (.hyperpod/fake.sqlite).",
)
@click.option("--region", envvar="AWS_REGION", show_envvar=True, default=None, help="AWS region (default: boto3's, or us-west-2 for fake).")
@click.option("--profile", envvar="AWS_PROFILE", show_envvar=True, default=None, help="AWS named profile.")
@click.option(
    "--endpoint-url",
    default=None,
    metavar="URL",
    help="Send every AWS call (SageMaker, Service Quotas, S3) to this URL, e.g. `hyperpod fake serve`'s "
    "(--backend aws). botocore's AWS_ENDPOINT_URL(_SAGEMAKER) variables work too.",
)
@click.version_option(package_name="pulumi-hyperpod")
@click.pass_context
def main(ctx: click.Context, backend: str, region: str | None, profile: str | None, endpoint_url: str | None = None) -> None:
    """Plan and apply Amazon SageMaker HyperPod clusters declaratively."""
    if region is not None:
        # botocore's partition data, said here with the names a user set, before any client or world is made

        if not is_region(region):
            print_error(f"--region / $AWS_REGION: {not_a_region(region)}")
            ctx.exit(EXIT_ERROR)
    ctx.obj = {"backend": backend, "region": region, "profile": profile, "endpoint_url": endpoint_url}
