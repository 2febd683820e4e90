"""A real Slurm controller with a few nodes on this machine, for tests (shared/notes/real-slurm-here.md).

Debian's `slurm-wlm` (installed by scripts/install when root) runs one slurmctld and one slurmd per
node on localhost, as root, without munge: each node has `NodeHostname=localhost` and its own port.
Every path (state, spool, logs, pid files) lives under a temporary folder and every port is a free
one, so tests can run beside anything else; `stop()` ends exactly the daemons this instance started
(by the pids they wrote).
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path


def _binary(name: str) -> str | None:
    # slurm-wlm-emulator takes over the plain names with front-end builds; the -wlm ones are the real ones
    for candidate in (f"/usr/sbin/{name}-wlm", f"/usr/sbin/{name}"):
        if os.access(candidate, os.X_OK):
            return candidate
    return shutil.which(name)


def why_not_available() -> str | None:
    """Why a real Slurm cannot run here (None: it can)."""
    if os.geteuid() != 0:
        return "not root: slurmd must run as root without munge"
    missing = [name for name in ("slurmctld", "slurmd") if _binary(name) is None]
    missing += [name for name in ("sbatch", "squeue", "sinfo", "scontrol") if shutil.which(name) is None]
    if missing:
        return f"Slurm is not installed ({', '.join(missing)} missing): run scripts/install as root"
    return None


def _free_ports(count: int) -> list[int]:
    sockets, ports = [], []
    try:
        for _ in range(count):
            sock = socket.socket()
            sock.bind(("127.0.0.1", 0))
            sockets.append(sock)
            ports.append(sock.getsockname()[1])
    finally:
        for sock in sockets:
            sock.close()
    return ports


@dataclass
class RealSlurm:
    """`nodes`: Slurm node names (HyperPod-style `ip-10-1-17-1`)."""

    root: Path
    nodes: list[str]
    conf: Path = field(init=False)
    _started: list[Path] = field(default_factory=list, init=False)

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        self.conf = self.root / "slurm.conf"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "SLURM_CONF": str(self.conf)}

    def write_conf(self) -> None:
        ports = _free_ports(len(self.nodes) + 1)
        for sub in ("state", "spool", "log", "run"):
            (self.root / sub).mkdir(parents=True, exist_ok=True)
        lines = [
            "ClusterName=hyperpodtest",
            "SlurmctldHost=localhost",
            f"SlurmctldPort={ports[0]}",
            "AuthType=auth/none",
            "CredType=cred/none",
            "SlurmUser=root",
            "SlurmdUser=root",
            "MpiDefault=none",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "ReturnToService=2",
            "SchedulerType=sched/backfill",
            f"StateSaveLocation={self.root / 'state'}",
            f"SlurmdSpoolDir={self.root / 'spool'}/%n",
            f"SlurmctldPidFile={self.root / 'run' / 'slurmctld.pid'}",
            f"SlurmdPidFile={self.root / 'run'}/slurmd-%n.pid",
            f"SlurmctldLogFile={self.root / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={self.root / 'log'}/slurmd-%n.log",
            "JobCompType=jobcomp/none",
            "JobAcctGatherType=jobacct_gather/none",
            "AccountingStorageType=accounting_storage/none",
            "SlurmctldTimeout=30",
            "SlurmdTimeout=30",
            "InactiveLimit=0",
            "MinJobAge=300",
            "KillWait=2",
        ]
        for name, port in zip(self.nodes, ports[1:], strict=True):
            lines.append(f"NodeName={name} NodeHostname=localhost Port={port} CPUs=1 RealMemory=500 State=UNKNOWN")
        lines.append(f"PartitionName=dev Nodes={','.join(self.nodes)} Default=YES MaxTime=INFINITE State=UP")
        self.conf.write_text("\n".join(lines) + "\n")

    def start(self, timeout: float = 60.0) -> None:
        self.write_conf()
        subprocess.run([_binary("slurmctld"), "-c", "-f", str(self.conf)], env=self.env, check=True, timeout=30)
        self._started.append(self.root / "run" / "slurmctld.pid")
        for name in self.nodes:
            (self.root / "spool" / name).mkdir(parents=True, exist_ok=True)
            subprocess.run([_binary("slurmd"), "-f", str(self.conf), "-N", name], env=self.env, check=True, timeout=30)
            self._started.append(self.root / "run" / f"slurmd-{name}.pid")
        self.wait_idle(timeout)

    def run(self, *args: str, check: bool = True) -> str:
        done = subprocess.run(list(args), env=self.env, capture_output=True, text=True, timeout=60)
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(args)}: exit {done.returncode}: {done.stderr.strip()}")
        return done.stdout

    def wait_idle(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        last = ""
        while time.monotonic() < deadline:
            done = subprocess.run(["sinfo", "-h", "-N", "-o", "%N %t"], env=self.env, capture_output=True, text=True, timeout=30)
            last = done.stdout + done.stderr
            states = dict(line.split() for line in done.stdout.splitlines() if line.strip())
            if done.returncode == 0 and set(states) == set(self.nodes) and all(s == "idle" for s in states.values()):
                return
            time.sleep(0.5)
        raise RuntimeError(f"the Slurm nodes did not come up idle in {timeout:.0f}s: {last.strip()}\n{self.log_tail()}")

    def log_tail(self) -> str:
        log = self.root / "log" / "slurmctld.log"
        return "\n".join(log.read_text().splitlines()[-20:]) if log.exists() else "(no slurmctld log)"

    def sbatch(self, node: str, seconds: int, *, time_limit_minutes: int = 60, name: str = "train") -> str:
        """A real batch job sleeping on `node`; its job id."""
        out = self.run(
            "sbatch", "--parsable", "-w", node, "-t", str(time_limit_minutes), "-J", name, "-o", "/dev/null", "--wrap", f"sleep {seconds}"
        )
        return out.strip().split(";")[0]

    def stop(self) -> None:
        """Cancel every job (a job's slurmstepd outlives its slurmd), then end the daemons this started."""
        if self._started:
            # finished jobs stay listed for MinJobAge: only the ones still holding a node count
            active = ["squeue", "-h", "-t", "PENDING,RUNNING,COMPLETING,SUSPENDED,CONFIGURING", "-o", "%i"]
            ids = subprocess.run(active, env=self.env, capture_output=True, text=True, timeout=30).stdout.split()
            if ids:
                subprocess.run(["scancel", *ids], env=self.env, capture_output=True, timeout=30)
                deadline = time.monotonic() + 15
                while (
                    time.monotonic() < deadline
                    and subprocess.run(active, env=self.env, capture_output=True, text=True, timeout=30).stdout.strip()
                ):
                    time.sleep(0.3)
        pids = []
        for pid_file in reversed(self._started):  # all at once: each daemon takes ~2 s to exit
            try:
                pid = int(pid_file.read_text().strip())
                os.kill(pid, signal.SIGTERM)
                pids.append(pid)
            except (OSError, ValueError):
                continue
        deadline = time.monotonic() + 15
        for pid in pids:
            while time.monotonic() < deadline:
                try:
                    os.kill(pid, 0)
                except ProcessLookupError:
                    break
                time.sleep(0.05)
        self._started.clear()
