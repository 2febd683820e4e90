"""The workload on the command line (docs/workloads.md): the options `hyperpod plan` and `apply` take
to read what runs on each node, and `hyperpod fake workload …`, the simulator's jobs and pods.

Only click is imported here: the workload package, the kubernetes client and the simulator load in
the commands that use them.
"""

from __future__ import annotations

from typing import Any

import click

from pulumi_hyperpod.cli.common import F, cell, emit_json, handle_errors, make_console, print_line
from pulumi_hyperpod.aws.sessions import new_botocore_session
from pulumi_hyperpod.aws.workload.source import WorkloadError
from pulumi_hyperpod.sim.clock import parse_duration


def workload_options(command: F) -> F:
    """--workload FILE…, --read-workload, --workload-command, --kubeconfig, --kube-context."""
    command = click.option("--kube-context", "kube_context", metavar="NAME", help="The kubeconfig context (default: its current one).")(
        command
    )
    command = click.option(
        "--kubeconfig",
        "kubeconfig",
        type=click.Path(),
        metavar="PATH",
        help="EKS: read pods and budgets (and drain) with this kubeconfig; implies --read-workload.",
    )(command)
    command = click.option(
        "--workload-command",
        "workload_command",
        metavar="PREFIX",
        help="Slurm: run squeue/sinfo/scontrol through this command line (`ssh head-node`; a `{}` "
        "takes the command as one argument); implies --read-workload.",
    )(command)
    command = click.option(
        "--read-workload",
        "read_workload",
        is_flag=True,
        help="Read what runs on each node from the orchestrator (Slurm here, EKS with an EKS token "
        "made from your AWS credentials; the simulator's on --backend fake).",
    )(command)
    return click.option(
        "--workload",
        "workload_files",
        multiple=True,
        type=click.Path(),
        metavar="FILE",
        help="Saved `squeue --json` (and `sinfo --json` / `scontrol show nodes --json`) outputs: victims by what runs there (repeatable).",
    )(command)


def wants_workload(files: tuple[str, ...], read: bool, command: str | None, kubeconfig: str | None) -> bool:
    return bool(files or read or command or kubeconfig)


def workload_source(
    ctx: click.Context, cluster: str, files: tuple[str, ...], read: bool, command: str | None, kubeconfig: str | None, context: str | None
) -> Any:
    """The source the options name (None: none). Files are read against the observed cluster by
    the pipeline (they need its private DNS names); `read` on the simulator is its own workload."""
    if not wants_workload(files, read, command, kubeconfig):
        return None
    if files and (read or command or kubeconfig):
        raise click.UsageError(
            "give either --workload FILE (saved outputs) or a live source (--read-workload, --workload-command, --kubeconfig), not both"
        )
    if files:
        return _FilesWorkload(files)
    options = ctx.obj or {}
    if options.get("backend") == "fake" and not command and not kubeconfig:
        from pulumi_hyperpod.sim.aws.simulator import Simulator  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)
        from pulumi_hyperpod.sim.workload.hyperpod import workload_source as simulated  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

        return simulated(Simulator.open_default(), cluster)
    from pulumi_hyperpod.aws.workload.live import LiveWorkload  # noqa: PLC0415 - the workload readers: only a plan or command that reads a workload loads them (tests/cli_startup)

    def session() -> Any:

        made = new_botocore_session()
        if options.get("profile"):
            made.set_config_variable("profile", options["profile"])
        return made

    return LiveWorkload(command=command or "", kubeconfig=kubeconfig, context=context, session=session)


class _FilesWorkload:
    """Saved Slurm outputs: read against the observed cluster; they cannot drain."""

    orchestrator = "Slurm"

    def __init__(self, paths: tuple[str, ...]) -> None:
        self.paths = paths

    def read(self, state: Any) -> Any:
        from pulumi_hyperpod.aws.workload.slurm import from_files  # noqa: PLC0415 - the workload readers: only a plan or command that reads a workload loads them (tests/cli_startup)

        return from_files(list(self.paths), state)

    def cordon(self, names: Any, reason: str) -> None:

        raise WorkloadError(
            f"the workload was read from {', '.join(self.paths)}, which cannot drain nodes: give "
            "--read-workload or --workload-command to drain"
        )

    def evict(self, names: Any) -> list[str]:
        self.cordon(names, "")
        return []


# ---- hyperpod fake workload --------------------------------------------------------------------
@click.group("workload")
def workload_group() -> None:
    """Jobs and pods in the simulator, on its clock (what `--read-workload` reads on --backend fake)."""


def _sim() -> Any:
    from pulumi_hyperpod.sim.aws.simulator import Simulator  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    return Simulator.open_default()


def _seconds(value: str | None, option: str) -> float | None:
    return None if value is None else parse_seconds(value, option)


def parse_seconds(value: str, option: str) -> float:
    """A duration option (30m, 2h) in seconds; a bad one is click's error naming the option."""

    try:
        return parse_duration(value)
    except ValueError as error:
        raise click.BadParameter(str(error), param_hint=option) from None


@workload_group.command("submit")
@click.argument("cluster")
@click.option("--node", required=True, help="Instance id or Slurm node name (ip-10-1-17-2).")
@click.option("--runs", required=True, help="How long the job runs (30m, 2h).")
@click.option("--time-limit", "time_limit", help="Its time limit (default: --runs): what squeue shows as its end.")
@click.option("--user", default="alice", show_default=True)
@click.option("--job-name", "job_name", default="train", show_default=True)
@handle_errors
def submit(cluster: str, node: str, runs: str, time_limit: str | None, user: str, job_name: str) -> None:
    """A Slurm job on a node of a simulated Slurm cluster."""
    from pulumi_hyperpod.sim.workload.hyperpod import submit_job  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    job = submit_job(
        _sim(),
        cluster,
        node,
        parse_seconds(runs, "--runs"),
        user=user,
        name=job_name,
        time_limit_seconds=_seconds(time_limit, "--time-limit"),
    )
    print_line(f"job {job} ({user}) on {node}", console=make_console())


@workload_group.command("pods")
@click.argument("cluster")
@click.option("--node", required=True, help="Instance id or Kubernetes node name (hyperpod-i-…).")
@click.option("--owner", required=True, metavar="KIND/NAME", help="deployment/web, statefulset/db, job/train.")
@click.option("--count", type=click.IntRange(1, 100), default=1, show_default=True)
@click.option("--namespace", default="default", show_default=True)
@click.option("--runs", help="A Job's pods: their activeDeadlineSeconds (30m, 2h).")
@handle_errors
def pods(cluster: str, node: str, owner: str, count: int, namespace: str, runs: str | None) -> None:
    """Pods of one owner on a node of a simulated EKS cluster."""
    from pulumi_hyperpod.sim.workload.hyperpod import run_pods  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    kinds = {"deployment": "Deployment", "statefulset": "StatefulSet", "job": "Job", "replicaset": "ReplicaSet", "pod": ""}
    kind, _, name = owner.partition("/")
    if kind.lower() not in kinds or not name:
        raise click.BadParameter(f"{owner!r} is not KIND/NAME with KIND one of {', '.join(kinds)}", param_hint="--owner")
    made = run_pods(
        _sim(),
        cluster,
        node,
        namespace=namespace,
        owner_kind=kinds[kind.lower()],
        owner_name=name,
        count=count,
        seconds=_seconds(runs, "--runs"),
        labels={"app": name},
    )
    print_line(f"{len(made)} pod(s) of {kind.lower()} {name} on {node}: {', '.join(made)}", console=make_console())


@workload_group.command("pdb")
@click.argument("cluster")
@click.argument("name")
@click.option("--app", required=True, help="The pods it selects: label app=APP.")
@click.option("--min-available", "min_available", help="An integer or a percentage.")
@click.option("--max-unavailable", "max_unavailable", help="An integer or a percentage.")
@click.option("--namespace", default="default", show_default=True)
@handle_errors
def pdb(cluster: str, name: str, app: str, min_available: str | None, max_unavailable: str | None, namespace: str) -> None:
    """A PodDisruptionBudget in a simulated EKS cluster."""
    from pulumi_hyperpod.sim.workload.hyperpod import add_pdb  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    if (min_available is None) == (max_unavailable is None):
        raise click.UsageError("give one of --min-available and --max-unavailable")

    def amount(value: str | None) -> int | str | None:
        return None if value is None else (value if value.endswith("%") else int(value))

    add_pdb(
        _sim(),
        cluster,
        name,
        {"app": app},
        namespace=namespace,
        min_available=amount(min_available),
        max_unavailable=amount(max_unavailable),
    )
    print_line(f"PodDisruptionBudget {namespace}/{name} selects app={app}", console=make_console())


@workload_group.command("show")
@click.argument("cluster")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@handle_errors
def show(cluster: str, as_json: bool) -> None:
    """What runs where in a simulated cluster."""
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    from pulumi_hyperpod.sim.workload.hyperpod import summary  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    rows = summary(_sim(), cluster)
    if as_json:
        return emit_json(rows)
    table = Table("node", "instance", "what", "ends (UTC)")
    for row in rows:
        ends = row["ends"].strftime("%Y-%m-%d %H:%M:%S") if row["ends"] else "-"
        table.add_row(cell(row["node"]), cell(row["instance"]), cell(row["what"]), cell(ends))
    make_console().print(table if rows else cell(f"nothing runs on {cluster}"))
