"""`hyperpod iam-policy`: the least-privilege IAM policy for the AWS calls the tool makes, per feature
(aws/iam.py derives it from the calls; docs/iam.md). It reads no credentials and calls nothing."""

from __future__ import annotations

import json

import click

from pulumi_hyperpod.aws.iam import FEATURE_HELP, FEATURES, policy, scope
from pulumi_hyperpod.cli.common import handle_errors

_FEATURES_HELP = "; ".join(f"{name}: {text}" for name, text in FEATURE_HELP.items())


@click.command("iam-policy")
@click.option(
    "--feature",
    "features",
    multiple=True,
    type=click.Choice(FEATURES),
    help=f"Only what these features call (repeatable; default: every one; apply includes plan). {_FEATURES_HELP}.",
)
@click.option("--region", default=None, help="Scope the ARNs to this region (default: any).")
@click.option("--account", default=None, metavar="ACCOUNT_ID", help="Scope the ARNs to this account (12 digits; default: any).")
@click.option(
    "--cluster",
    default=None,
    metavar="ARN_OR_ID",
    help="Scope the cluster actions to this existing cluster: its ARN (which sets --region and --account) or its id, "
    "the ARN's last part (a cluster's ARN names its id, not its name). CreateCluster stays on any cluster of the region.",
)
@click.option("--bucket", "buckets", multiple=True, metavar="NAME", help="The lifecycle bundles' S3 buckets (repeatable; default: any).")
@click.option(
    "--role",
    "roles",
    multiple=True,
    metavar="NAME_OR_ARN",
    help="The instance groups' execution roles iam:PassRole names (repeatable; default: any).",
)
@handle_errors
def iam_policy_command(
    features: tuple[str, ...],
    region: str | None,
    account: str | None,
    cluster: str | None,
    buckets: tuple[str, ...],
    roles: tuple[str, ...],
) -> None:
    """Print the least-privilege IAM policy (JSON) for the AWS calls the tool makes, per feature."""
    where = scope(region=region, account=account, cluster=cluster, buckets=buckets, roles=roles)
    click.echo(json.dumps(policy(features, where), indent=2))


COMMANDS = (iam_policy_command,)
