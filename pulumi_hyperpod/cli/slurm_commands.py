"""`hyperpod slurm render | check | roles | diff`: a Slurm spec (seed 002) on a HyperPod cluster.

`render` and `check` are offline: `render` writes the lifecycle bundle and the completed cluster
spec and says what goes where; `check` validates the two specs together. `roles NAME` shows the
Slurm role of every group of a running cluster (SlurmConfig, else the provisioning_parameters.json
of its lifecycle bundle in S3 or `--lifecycle DIR`). `diff NAME --slurm FILE` shows, per key, what
changing the cluster's Slurm spec would take (exit 2 when a change is refused).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import click

from pulumi_hyperpod.core.files import write_whole
from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import EXIT_REFUSED, HyperpodGroup, client_from, emit_json, handle_errors, print_error
from pulumi_hyperpod.cli.outputs import OutputPath, command_inputs
from pulumi_hyperpod.core.errors import Violation
import sys

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.errors import Violation


def _load(cluster_path: str, slurm_path: str, slurm_config: bool | None, lifecycle_uri: str | None, base_dir: str | None = None) -> Any:
    from pulumi_hyperpod.aws.slurm.hyperpod import partition_names  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
    from pulumi_hyperpod.aws.slurm.render import render_hyperpod  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
    from pulumi_hyperpod.slurm.spec import SlurmSpec  # noqa: PLC0415 - the Slurm layer (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
    from pulumi_hyperpod.aws.spec import SpecError  # noqa: PLC0415 - the AWS spec's models: only a command given a spec or policy loads them (tests/cli_startup)
    from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML: only a command given a file reads one (tests/cli_startup)

    slurm = SlurmSpec.from_file(slurm_path, partition_names=partition_names())
    data = read_document(cluster_path, SpecError)
    if not isinstance(data, dict):
        raise SpecError([_violation("", f"a cluster spec is an object; got {type(data).__name__}")], source=cluster_path)
    return render_hyperpod(
        data, slurm, lifecycle_uri=lifecycle_uri, slurm_config=slurm_config, source=f"{cluster_path} with {slurm_path}", base_dir=base_dir
    )


def _violation(path: str, rule: str) -> Violation:

    return Violation(path, rule)


_PURPOSE = {
    "on_create.sh": "LifeCycleConfig.OnCreate of every group: runs slurm_spec_hook.py",
    "slurm_spec_hook.py": "on every node: mounts the home, installs prolog/epilog; on the controller: slurm.conf",
    "provisioning_parameters.json": "roles and shared storage, in base-config's format",
    "slurm-spec.conf": "slurm.conf include (controller): the config lines, Prolog/Epilog globs",
    "slurm-spec.json": "the Slurm spec, its default partition and home storage",
    "on_create_base.sh": "the base lifecycle scripts' on_create.sh, run first by on_create.sh",
}


def _purpose(path: str) -> str:
    if path.startswith(("prolog.d/", "epilog.d/")):
        kind = path.split(".", 1)[0]
        return f"a job {kind}, installed in /opt/slurm/etc/{kind}.d on every node"
    return _PURPOSE.get(path, "from the base lifecycle scripts")


@click.group("slurm", cls=HyperpodGroup)  # usage errors (a missing --slurm, an unknown option) exit 1
def slurm_group() -> None:
    """A Slurm spec (partitions, login pool, shared home, slurm.conf, prolog/epilog) on HyperPod."""


@slurm_group.command("render")
@click.option("-f", "--file", "cluster_path", type=click.Path(), required=True, help="Cluster spec (AWS CLI JSON or YAML).")
@click.option("--slurm", "slurm_path", type=click.Path(), required=True, help="Slurm spec (seed 002's slurmSpec block), JSON or YAML.")
@click.option(
    "--out",
    "out_dir",
    type=OutputPath("the bundle", writes=("cluster.json", "lifecycle/")),
    required=True,
    help="Directory to write the bundle and cluster spec to.",
)
@click.option(
    "--lifecycle-uri", default=None, help="s3://bucket/prefix/ the bundle will be uploaded to; written into every group's LifeCycleConfig."
)
@click.option(
    "--slurm-config/--provisioning-parameters",
    "slurm_config",
    default=None,
    help="How HyperPod learns the roles (default: SlurmConfig for Continuous clusters or where the "
    "cluster spec already uses it, else provisioning_parameters.json).",
)
@click.option(
    "--base",
    "base_dir",
    type=click.Path(),
    default=None,
    help="Lifecycle scripts to build on (e.g. base-config): copied in, their on_create.sh run first (as on_create_base.sh).",
)
@click.option("--json", "as_json", is_flag=True)
@handle_errors
def render_command(
    cluster_path: str,
    slurm_path: str,
    out_dir: str,
    lifecycle_uri: str | None,
    slurm_config: bool | None,
    base_dir: str | None,
    as_json: bool,
) -> None:
    """Write the lifecycle bundle (OUT/lifecycle/) and the completed cluster spec (OUT/cluster.json)."""
    rendering = _load(cluster_path, slurm_path, slurm_config, lifecycle_uri, base_dir)
    root = Path(out_dir)
    bundle_dir = root / "lifecycle"
    rendering.write(bundle_dir)
    cluster_file = root / "cluster.json"
    write_whole(cluster_file, json.dumps(rendering.cluster_spec, indent=2) + "\n", inputs=command_inputs(click.get_current_context()))
    if as_json:
        emit_json(
            {
                "mode": rendering.mode,
                "roles": rendering.role_names(),
                "digest": rendering.digest,
                "lifecycle_dir": str(bundle_dir),
                "cluster_spec": str(cluster_file),
                "files": sorted(rendering.files),
                "partitions": {name: role.partition for name, role in rendering.roles.items() if role.partition},
            }
        )
        return
    _print_rendering(rendering, bundle_dir, cluster_file, lifecycle_uri)


def _print_rendering(rendering: Any, bundle_dir: Path, cluster_file: Path, lifecycle_uri: str | None) -> None:
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)
    from rich.text import Text  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    out = common.out
    roles = Table(title="Slurm roles", title_justify="left")
    for column in ("instance group", "role", "partition", "given by"):
        roles.add_column(column)
    given_by = "SlurmConfig (cluster.json)" if rendering.mode == "SlurmConfig" else "provisioning_parameters.json"
    for role in rendering.roles.values():
        roles.add_row(Text(role.group), role.node_type, Text(role.partition or "-"), given_by)
    out.print(roles)
    files = Table(title=f"Lifecycle bundle: {bundle_dir}", title_justify="left")
    files.add_column("file")
    files.add_column("what it is for")
    for path in sorted(rendering.files):
        files.add_row(Text(path), _purpose(path))
    out.print(files)
    out.print(Text(f"cluster spec: {cluster_file}"))
    if lifecycle_uri:
        out.print(Text(f"upload: aws s3 sync {bundle_dir}/ {lifecycle_uri.rstrip('/')}/ (every group's LifeCycleConfig points there)"))
    else:
        out.print(
            Text(
                f"upload {bundle_dir}/ to S3 (content-addressed prefix {rendering.prefix}) and set every group's "
                "LifeCycleConfig.SourceS3Uri to it, OnCreate on_create.sh (or re-run with --lifecycle-uri)"
            )
        )


@slurm_group.command("check")
@click.option("-f", "--file", "cluster_path", type=click.Path(), required=True, help="Cluster spec (AWS CLI JSON or YAML).")
@click.option("--slurm", "slurm_path", type=click.Path(), required=True, help="Slurm spec, JSON or YAML.")
@handle_errors
def check_command(cluster_path: str, slurm_path: str) -> None:
    """Validate a Slurm spec against a cluster spec; exit 1 naming every problem."""
    from rich.text import Text  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    rendering = _load(cluster_path, slurm_path, None, None)
    common.out.print(Text(f"ok: {len(rendering.roles)} groups, roles by {rendering.mode}"))


def _observed(ctx: click.Context, name: str) -> Any:
    from pulumi_hyperpod.aws.observe import observe  # noqa: PLC0415 - aws.observe (botocore's shapes): only a command that reads a cluster loads it (tests/cli_startup)

    state = observe(client_from(ctx), name)
    if state is None:
        raise ValueError(f"no cluster named {name!r}")
    return state


@slurm_group.command("roles")
@click.argument("name")
@click.option(
    "--lifecycle",
    "lifecycle_dir",
    type=click.Path(),
    default=None,
    help="A local lifecycle bundle directory (or its "
    "provisioning_parameters.json) instead of reading the groups' LifeCycleConfig.SourceS3Uri from S3.",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def roles_command(ctx: click.Context, name: str, lifecycle_dir: str | None, as_json: bool) -> None:
    """The Slurm role of every instance group of cluster NAME, and where it comes from."""
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)
    from rich.text import Text  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    from pulumi_hyperpod.aws.slurm.roles import resolve  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)

    state = _observed(ctx, name)
    s3 = None if lifecycle_dir else client_from(ctx, service="s3")
    resolution = resolve(state, s3_client=s3, lifecycle_dir=lifecycle_dir)
    if as_json:
        emit_json({"roles": resolution.roles, "source": resolution.source, "notes": list(resolution.notes)})
        return
    table = Table(title=f"{name}: Slurm roles" + (f" (from {resolution.source})" if resolution.source else ""), title_justify="left")
    table.add_column("instance group")
    table.add_column("role")
    for group in state.groups:
        role = (resolution.roles or {}).get(group.name) or "unknown"
        table.add_row(Text(group.name), role)
    common.out.print(table)
    for note in resolution.notes:
        common.out.print(Text(f"note: {note}"))


@slurm_group.command("diff")
@click.argument("name")
@click.option("--slurm", "slurm_path", type=click.Path(), required=True, help="The Slurm spec you want, JSON or YAML.")
@click.option(
    "--lifecycle",
    "lifecycle_dir",
    type=click.Path(),
    default=None,
    help="The cluster's current bundle as a local directory (default: read from the controller group's LifeCycleConfig.SourceS3Uri).",
)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@handle_errors
def diff_command(ctx: click.Context, name: str, slurm_path: str, lifecycle_dir: str | None, as_json: bool) -> None:
    """What changing cluster NAME's Slurm spec takes, per key (exit 2 when a change is refused)."""

    from pulumi_hyperpod.aws.slurm.changes import diff_slurm, render_changes  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
    from pulumi_hyperpod.aws.slurm.hyperpod import partition_names  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
    from pulumi_hyperpod.aws.slurm.observed import controller_bundle_uri, read_bundle_spec, read_dir_spec  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
    from pulumi_hyperpod.slurm.spec import SlurmSpec  # noqa: PLC0415 - the Slurm layer (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)

    from pulumi_hyperpod.slurm import check_references  # noqa: PLC0415 - the Slurm layer (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)

    wanted = SlurmSpec.from_file(slurm_path, partition_names=partition_names())
    state = _observed(ctx, name)
    # partitions must name groups the cluster has, as `slurm check` requires of a cluster spec
    check_references(wanted, [g.name for g in state.groups], kind="instance group", source=slurm_path)
    where: str | None
    if lifecycle_dir:
        current, where = read_dir_spec(lifecycle_dir), lifecycle_dir
    else:
        where = controller_bundle_uri(state)
        current = read_bundle_spec(client_from(ctx, service="s3"), where) if where else None
    if current is None:  # unknown is not safe: exit 2, nothing compared is said to be unchanged
        print_error(
            f"cluster {name}'s lifecycle bundle ({where or 'no SourceS3Uri'}) has no slurm-spec.json, so its "
            "current Slurm spec is unknown and no change can be shown or checked; render the bundle with "
            "`hyperpod slurm render` or pass --lifecycle DIR",
            label="refused",
        )
        sys.exit(EXIT_REFUSED)
    mode: Literal["SlurmConfig", "provisioning_parameters"] = (
        "SlurmConfig" if any(g.node_type for g in state.groups) else "provisioning_parameters"
    )
    changes = diff_slurm(current, wanted, mode=mode)
    if as_json:
        emit_json(changes.to_dict())
    else:
        common.out.print(render_changes(changes))
    if changes.refusals:
        sys.exit(EXIT_REFUSED)


COMMANDS = (slurm_group,)
