"""`hyperpod`: the command group and its global options; the commands live in one module per area."""

from __future__ import annotations

import click

from ..client import BACKENDS
from .common import HyperpodGroup


@click.group(cls=HyperpodGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.option("--backend", type=click.Choice(BACKENDS), default="aws", envvar="HYPERPOD_BACKEND", show_default=True,
              help="aws: the real service (boto3 credentials). fake: the embedded simulator (.hyperpod/fake.sqlite).")
@click.option("--region", envvar="AWS_REGION", default=None, help="AWS region (default: boto3's, or us-west-2 for fake).")
@click.option("--profile", envvar="AWS_PROFILE", default=None, help="AWS named profile.")
@click.version_option(package_name="pulumi-hyperpod")
@click.pass_context
def main(ctx: click.Context, backend: str, region: str | None, profile: str | None) -> None:
    """Plan and apply Amazon SageMaker HyperPod clusters declaratively."""
    ctx.obj = {"backend": backend, "region": region, "profile": profile}


def _register_commands() -> None:
    from . import cluster_commands, gcp_commands, plan_commands, sim_commands, slurm_commands

    for module in (plan_commands, cluster_commands, sim_commands, slurm_commands, gcp_commands):
        for command in module.COMMANDS:
            main.add_command(command)


_register_commands()
