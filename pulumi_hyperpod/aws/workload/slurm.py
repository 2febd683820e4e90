"""The Slurm workload: squeue and sinfo `--json`, run where the tool runs, through a command prefix
the user gives (`ssh head-node`, an SSM line), or read from files saved from them; and the drain
apply needs (`scontrol update nodename=… state=DRAIN reason=…`).

A prefix is split like a shell line; the Slurm command is appended as its last arguments, or, where
a word of the prefix has a `{}`, put there as one shell-quoted string (for tools that take the
remote command as one argument: `bash -c {}`, `… --parameters command={}`).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Sequence

from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.aws.workload import slurm_json
from pulumi_hyperpod.aws.workload.match import slurm_names
from pulumi_hyperpod.aws.workload.model import DRAIN_MARK, Job, NodeWorkload, WorkloadView
from pulumi_hyperpod.aws.workload.source import WorkloadError
from pulumi_hyperpod.core.files import read_bounded

Runner = Callable[[Sequence[str]], str]  # runs a Slurm command line, returns its stdout
MAX_OUTPUT = 64 * 1024 * 1024  # a squeue of a 10k-node cluster is a few MB


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


@dataclass
class CommandRunner:
    """Runs Slurm's commands here, or through `prefix`. `env`: extra environment (SLURM_CONF)."""

    prefix: str = ""
    env: dict[str, str] = field(default_factory=dict)
    timeout: float = 120.0

    def argv(self, command: Sequence[str]) -> list[str]:
        words = shlex.split(self.prefix) if self.prefix else []
        if any("{}" in word for word in words):
            line = shlex.join(command)
            return [word.replace("{}", line) for word in words]
        return words + list(command)

    def __call__(self, command: Sequence[str]) -> str:
        argv = self.argv(command)
        try:
            done = subprocess.run(
                argv, capture_output=True, text=True, timeout=self.timeout, env={**os.environ, **self.env}, stdin=subprocess.DEVNULL
            )
        except FileNotFoundError:
            raise WorkloadError(
                f"{argv[0]}: command not found (Slurm's commands run on the head node: give "
                "--workload-command 'ssh HEAD' or save their --json output to files)"
            ) from None
        except subprocess.TimeoutExpired:
            raise WorkloadError(f"{shlex.join(argv)}: no answer in {self.timeout:.0f}s") from None
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["no error output"])[-1]
            raise WorkloadError(f"{shlex.join(argv)}: exit {done.returncode}: {last}")
        return done.stdout


def _parse(text: str, where: str) -> dict:
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise WorkloadError(f"{where}: not JSON ({error.msg} at line {error.lineno})") from None
    if not isinstance(document, dict):
        raise WorkloadError(f"{where}: not the --json output of a Slurm command (a JSON object)")
    return document


@dataclass
class SlurmWorkload:
    """The Slurm workload of a HyperPod cluster, read live through `runner` (and drained through it)."""

    runner: Runner = field(default_factory=CommandRunner)
    clock: Callable[[], dt.datetime] = _utcnow
    orchestrator: str = "Slurm"

    @property
    def where(self) -> str:
        prefix = getattr(self.runner, "prefix", "")
        return f"squeue/sinfo through {prefix!r}" if prefix else "squeue/sinfo"

    def read(self, state: ClusterState) -> WorkloadView:
        jobs = slurm_json.jobs(_parse(self.runner(["squeue", "--json"]), "squeue --json"))
        nodes = slurm_json.nodes(_parse(self.runner(["sinfo", "--json"]), "sinfo --json"))
        return build_view(state, jobs, nodes, self.clock(), self.where)

    # ---- drain (apply) -------------------------------------------------------------------------
    def cordon(self, names: Sequence[str], reason: str) -> None:
        """DRAIN: no new job lands there; running ones go on to their end."""
        self.runner(["scontrol", "update", f"nodename={','.join(names)}", "state=DRAIN", f"reason={reason}"])

    def evict(self, names: Sequence[str]) -> list[str]:
        """Slurm has no eviction that keeps a job: draining waits for the jobs (nothing to do here)."""
        return []


def build_view(
    state: ClusterState, jobs: list[slurm_json.SlurmJob], nodes: list[slurm_json.SlurmNode], observed_at: dt.datetime, source: str
) -> WorkloadView:
    by_name = slurm_names(state)
    records = {node.name: node for node in nodes}
    jobs_on: dict[str, list[Job]] = {}
    for job in jobs:
        for name in job.nodes:
            jobs_on.setdefault(name, []).append(Job(job.job_id, job.user, job.name, job.end_time, job.state))
    # squeue lists every job that holds a node, so a HyperPod node it names no job on runs nothing:
    # it is covered, and idle. Only a node with no Slurm name (not launched, no host name) is unknown.
    known = set(records) | set(jobs_on) | set(by_name)
    matched, unmatched = [], []
    for name in sorted(known):
        instance = by_name.get(name) or by_name.get((records[name].hostname if name in records else "").split(".", 1)[0])
        if instance is None:
            unmatched.append(name)
            continue
        record = records.get(name)
        reason = record.reason if record else ""
        matched.append(
            NodeWorkload(
                instance_id=instance,
                name=name,
                state=record.state if record else "",
                drained=bool(record and record.drained),
                drain_reason=reason,
                drain_started=drain_started(reason) or (record.reason_time if record and reason.startswith(DRAIN_MARK) else None),
                jobs=tuple(jobs_on.get(name, ())),
                listed=name in records or name in jobs_on,
            )
        )
    return WorkloadView("Slurm", observed_at, tuple(matched), tuple(unmatched), source)


def drain_reason(started: dt.datetime) -> str:
    """The reason apply writes: the mark and when the drain started (a re-run keeps that deadline)."""
    return f"{DRAIN_MARK} since {started.astimezone(dt.timezone.utc):%Y-%m-%dT%H:%M:%SZ}"


def drain_started(reason: str) -> dt.datetime | None:
    if not reason.startswith(DRAIN_MARK + " since "):
        return None
    try:
        return dt.datetime.strptime(reason[len(DRAIN_MARK) + 7 :].strip(), "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=dt.timezone.utc)
    except ValueError:
        return None


def from_files(paths: Sequence[str], state: ClusterState) -> WorkloadView:
    """A view from saved outputs: `squeue --json` (required) and `sinfo --json` / `scontrol show nodes
    --json` (optional: drain flags). Observed at the newest file's modification time."""
    jobs: list[slurm_json.SlurmJob] | None = None
    nodes: list[slurm_json.SlurmNode] = []
    newest = 0.0
    for path in paths:
        try:
            text = read_bounded(path, MAX_OUTPUT)
            newest = max(newest, Path(path).stat().st_mtime)
        except OSError as error:
            raise WorkloadError(f"{path}: cannot be read ({error.strerror or error})") from None
        if len(text) > MAX_OUTPUT:
            raise WorkloadError(f"{path}: larger than {MAX_OUTPUT // 2**20} MB; not a Slurm --json output")
        document = _parse(text.decode("utf-8", errors="replace"), path)
        try:
            kind = slurm_json.kind_of(document)
        except slurm_json.SlurmOutputError as error:
            raise WorkloadError(f"{path}: {error}") from None
        try:
            if kind == "squeue":
                jobs = (jobs or []) + slurm_json.jobs(document, path)
            else:
                nodes += slurm_json.nodes(document, path)
        except slurm_json.SlurmOutputError as error:
            raise WorkloadError(str(error)) from None  # it names the file and the field already
    if jobs is None:
        raise WorkloadError(f"{', '.join(paths)}: no squeue --json output among them (jobs are what a scale-in weighs)")
    observed = dt.datetime.fromtimestamp(newest, dt.timezone.utc)
    return build_view(state, jobs, nodes, observed, "files " + ", ".join(paths))
