"""`hyperpod fleet apply` runners sharing one self-managed S3 state backend (moto's server) and one
simulator endpoint: Pulumi's stack lock keeps two runners from updating a stack twice, and a runner
SIGKILLed mid-wave leaves a stale lock that the next run reports, then breaks when asked, with
nothing applied twice. docs/fleet.md, "Runners and the state backend".

Each runner is its own process with its own PULUMI_HOME (two CI machines). Each stack's program
adopts its cluster and grows its workers from 2 to 3 (one UpdateCluster), then, in the `up` only,
holds until the test creates a file: the cluster is updated and the stack's lock is held, so what the
other runners meet, and when the first runner is killed, is fixed by the test, not by timing. The
simulator records every call it receives; the tests count UpdateCluster per cluster. A third test
checks that the engine reads the bucket with the profile the state URL names, not the stack's key.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import logging
import os
import signal
import socket
import subprocess
import textwrap
import threading
import time
import urllib.request
from pathlib import Path

import boto3
import pytest
import yaml
from moto.server import ThreadedMotoServer

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.server import Worlds
from tests.support.serve import served
from tests.support.sim_helpers import LIFECYCLE, ROLE

from .conftest import engine_env
from .test_fleet_plan import make_cluster
from .test_fleet_plan import write_fleet as plan_fleet

pytestmark = pytest.mark.engine

EAST, WEST = "111122223333", "444455556666"
START = 1_780_000_000.0  # the world's wall clock, fixed: an update stays under way, nothing heals behind the test
BUCKET = "fleet-state"
BACKEND_PROFILE = "fleet-backend"  # the backend's credentials: a profile of their own, apart from the stacks' account keys
DEADLINE = 240  # seconds any one wait of these tests may take

PROGRAM = textwrap.dedent(
    f'''\
    """A fleet member: its cluster adopted and grown; in an `up`, held after the update until $RELEASE exists."""
    import os
    import time

    import pulumi

    from pulumi_hyperpod.provider import Cluster

    config = pulumi.Config()


    def hold(name):
        deadline = time.monotonic() + 200
        while not os.path.exists(config.require("release")) and time.monotonic() < deadline:
            time.sleep(0.2)
        return name


    cluster = Cluster(
        "member",
        cluster_name=config.require("clusterName"),
        instance_groups=[{{
            "instance_group_name": "workers",
            "instance_type": "ml.c5.xlarge",
            "instance_count": config.require_int("workers"),
            "life_cycle_config": {{"source_s3_uri": "{LIFECYCLE["SourceS3Uri"]}", "on_create": "{LIFECYCLE["OnCreate"]}"}},
            "execution_role": "{ROLE}",
        }}],
        backend="aws",
        adopt=True,
        wait="none",
    )
    if not pulumi.runtime.is_dry_run():
        pulumi.export("held", cluster.cluster_name.apply(hold))
    '''
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def bucket():
    """moto's S3 server on a free port with an empty bucket: the fleet's state backend URL, and an S3 client."""
    port = free_port()
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # a line per S3 request otherwise
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        # moto's buckets live in this process, past its server's stop: each test starts from none
        urllib.request.urlopen(urllib.request.Request(f"http://127.0.0.1:{port}/moto-api/reset", method="POST"), timeout=10).close()
        s3 = boto3.client(
            "s3", endpoint_url=f"http://127.0.0.1:{port}", region_name="us-east-1", aws_access_key_id="k", aws_secret_access_key="s"
        )
        s3.create_bucket(Bucket=BUCKET)
        url = f"s3://{BUCKET}?endpoint=http://127.0.0.1:{port}&s3ForcePathStyle=true&region=us-east-1&profile={BACKEND_PROFILE}"
        yield url, s3
    finally:
        server.stop()


@pytest.fixture
def world(tmp_path):
    sim = Simulator(path=tmp_path / "fake.sqlite", seed=5, real_time=lambda: START)
    worlds = Worlds(sim, GcpSimulator())
    with served(worlds) as url:
        make_cluster(sim, EAST, "east-cluster", 2)
        make_cluster(sim, WEST, "west-cluster", 2)
        sim.reset_calls()  # from here, only what the runners send
        yield url, sim, worlds


def write_fleet(tmp_path: Path, endpoint: str, state: str) -> tuple[Path, Path]:
    """test_fleet_plan's fleet (east and west, each its own account) on the S3 backend, with this
    module's program, in two waves (canary: east; rest: west); and the file that releases the holds."""
    fleet, _ = plan_fleet(tmp_path, endpoint, (EAST, WEST))
    (tmp_path / "member" / "__main__.py").write_text(PROGRAM)
    release = tmp_path / "release"
    data = yaml.safe_load(fleet.read_text())
    for stack in data["stacks"]:
        stack["config"] |= {"workers": "3", "release": str(release)}
    gates = {"in_service": False, "no_failed_nodes": True}  # the clock stands still: an update stays under way
    data |= {
        "state": state,
        "waves": [{"name": "canary", "stacks": ["east"], "gates": gates}, {"name": "rest", "stacks": ["west"], "gates": gates}],
    }
    fleet.write_text(yaml.safe_dump(data))
    return fleet, release


def runner_env(tmp_path: Path, name: str) -> dict[str, str]:
    """A runner's environment: its own PULUMI_HOME (a CI machine of its own) and the backend's profile."""
    env = engine_env(tmp_path / name)
    env.pop("PULUMI_BACKEND_URL")  # the fleet file's `state` names the backend
    credentials = tmp_path / "backend-credentials"
    credentials.write_text(f"[{BACKEND_PROFILE}]\naws_access_key_id = fleetbackendkey\naws_secret_access_key = fleetbackendsecret\n")
    env["AWS_SHARED_CREDENTIALS_FILE"] = str(credentials)
    return env


@contextlib.contextmanager
def runner(tmp_path: Path, name: str, fleet: Path, *options: str):
    """`hyperpod fleet apply FLEET --yes OPTIONS` in a process group of its own, its output in files;
    the group is killed if the test leaves it running."""
    out, err = tmp_path / f"{name}.out", tmp_path / f"{name}.err"
    with out.open("w") as stdout, err.open("w") as stderr:
        process = subprocess.Popen(
            ["hyperpod", "fleet", "apply", str(fleet), "--yes", *options],
            env=runner_env(tmp_path, name),
            stdout=stdout,
            stderr=stderr,
            text=True,
            start_new_session=True,
        )
    process.out, process.err = out, err  # type: ignore[attr-defined]
    try:
        yield process
    finally:
        for pid in in_session(process.pid):  # the runner's session: it, its `pulumi`s and their plugins
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        process.wait(10)


def in_session(sid: int) -> list[int]:
    """The processes of session `sid` (a runner started in a session of its own: everything it started)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError):
            fields = stat.read_text().rsplit(")", 1)[1].split()  # after "pid (comm)": state, ppid, pgrp, session, …
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(stat.parent.name))
    return found


def command_of(pid: int) -> str:
    with contextlib.suppress(OSError):
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    return ""


def output(process) -> str:
    return process.out.read_text() + process.err.read_text()


def until(condition, what: str, processes=()) -> None:
    deadline = time.monotonic() + DEADLINE
    while not condition():
        for process in processes:
            assert process.poll() is None, f"{what}: a runner ended first\n{output(process)}"
        assert time.monotonic() < deadline, f"{what}: not within {DEADLINE}s\n" + "\n".join(output(p) for p in processes)
        time.sleep(0.2)


def lock_of(s3, stack: str) -> list[str]:
    listed = s3.list_objects_v2(Bucket=BUCKET, Prefix=f".pulumi/locks/organization/fleet-member/{stack}/")
    return [o["Key"] for o in listed.get("Contents", [])]


def updates(sim: Simulator) -> dict[str, int]:
    counted: dict[str, int] = {}
    for operation, params in sim.calls:
        if operation in ("CreateCluster", "UpdateCluster", "DeleteCluster", "BatchDeleteClusterNodes"):
            key = f"{operation} {params.get('ClusterName')}"
            counted[key] = counted.get(key, 0) + 1
    return counted


def updated_and_held(sim: Simulator, s3, stack: str) -> bool:
    return updates(sim).get(f"UpdateCluster {stack}-cluster") == 1 and bool(lock_of(s3, stack))


def test_two_runners_on_one_backend_update_each_stack_once(tmp_path, bucket, world, pulumi_cli):
    state, s3 = bucket
    endpoint, sim, _ = world
    fleet, release = write_fleet(tmp_path, endpoint, state)
    with runner(tmp_path, "a", fleet) as first:
        until(lambda: updated_and_held(sim, s3, "east"), "runner a updates east and holds its lock", [first])
        with runner(tmp_path, "b", fleet) as waiting, runner(tmp_path, "c", fleet, "--on-locked", "skip") as skipping:
            until(lambda: "locked east: the stack is locked, held by " in output(waiting), "runner b meets the lock", [first, waiting])
            assert skipping.wait(DEADLINE) == 1, output(skipping)
            release.touch()
            assert first.wait(DEADLINE) == 0, output(first)
            assert waiting.wait(DEADLINE) == 0, output(waiting)
    host = socket.gethostname()
    assert f"@{host} (pid " in output(waiting) and "waiting 2s (--on-locked wait, up to 600s)" in output(waiting)
    assert "skipped east: the stack is locked, held by " in output(skipping) and "(--on-locked skip)" in output(skipping)
    assert "skipped: wave canary: stack east was not updated" in output(skipping)
    assert "stopped: later waves not started: rest" in output(skipping)
    assert "no-op east: nothing to do (already at its spec)" in output(waiting)
    assert updates(sim) == {"UpdateCluster east-cluster": 1, "UpdateCluster west-cluster": 1}, "each stack's cluster updated once"
    assert "fleetbackendsecret" not in output(first) + output(waiting) + output(skipping)


def test_a_runner_killed_mid_wave_leaves_a_stale_lock_and_the_rerun_applies_nothing_twice(tmp_path, bucket, world, pulumi_cli):
    state, s3 = bucket
    endpoint, sim, _ = world
    fleet, release = write_fleet(tmp_path, endpoint, state)
    with runner(tmp_path, "killed", fleet) as killed:
        until(lambda: updated_and_held(sim, s3, "east"), "east updated, its lock held", [killed])
        os.killpg(killed.pid, signal.SIGKILL)  # the runner and its `pulumi`s: one process group
        killed.wait(10)
        until(lambda: _group_gone(killed.pid), "the runner's pulumi processes end with it")
        # the engine started its plugins in process groups of their own: they outlive the group
        # (the runner's context kills them, by its session), none of them the runner or an engine
        survivors = [command_of(pid) for pid in in_session(killed.pid)]
        assert all("pulumi-language-" in c or "pulumi.dynamic" in c or "pulumi-resource-" in c for c in survivors), survivors
    assert lock_of(s3, "east"), "a killed `pulumi up` leaves its lock in a self-managed backend"
    release.touch()

    with runner(tmp_path, "again", fleet) as again:
        assert again.wait(DEADLINE) == 1, output(again)
    host = socket.gethostname()
    assert "skipped: wave canary: stack east was not updated: a stale lock: held by " in output(again)
    assert f"@{host} (pid " in output(again) and "--break-stale-locks" in output(again)
    assert "stopped: later waves not started: rest" in output(again)

    with runner(tmp_path, "broken", fleet, "--break-stale-locks") as broken:
        assert broken.wait(DEADLINE) == 0, output(broken)
    assert "locked east: the lock is stale: held by " in output(broken) and "breaking it (pulumi cancel)" in output(broken)
    (east,) = [line for line in output(broken).splitlines() if line.startswith(("updated east:", "no-op east:"))]
    assert "update" not in east.partition(":")[2], f"the cluster's update the killed runner made is in the state: {east}"
    assert "updated west: " in output(broken)
    assert updates(sim) == {"UpdateCluster east-cluster": 1, "UpdateCluster west-cluster": 1}, "nothing applied twice"
    assert not lock_of(s3, "east") and not lock_of(s3, "west")


def _group_gone(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return True
    return False


def test_the_backend_signs_with_its_profile_not_the_stacks_account_key(tmp_path, pulumi_cli):
    """docs/fleet.md, "Two sets of credentials": a stack's environment holds its account's key, and the
    engine reading the bucket signs with the profile its URL names instead. A server that answers
    403 to everything records the key id of each request's SigV4 `Authorization`."""
    seen: list[str] = []

    class Recording(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            seen.append(self.headers.get("Authorization", ""))
            self.send_response(403)
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_HEAD = do_PUT = do_POST = do_GET

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Recording)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        env = runner_env(tmp_path, "signing") | {"AWS_ACCESS_KEY_ID": EAST, "AWS_SECRET_ACCESS_KEY": "not-checked"}
        env["PULUMI_BACKEND_URL"] = (
            f"s3://{BUCKET}?endpoint=http://127.0.0.1:{server.server_address[1]}&s3ForcePathStyle=true&region=us-east-1"
            f"&profile={BACKEND_PROFILE}"
        )
        listed = subprocess.run(
            ["pulumi", "stack", "ls", "--all", "--non-interactive"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120
        )
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
    assert listed.returncode != 0 and seen, listed.stderr
    assert all("Credential=fleetbackendkey/" in header for header in seen), seen
    assert not any(f"Credential={EAST}/" in header for header in seen)


def test_a_runner_killed_inside_a_create_leaves_a_pending_create_and_the_rerun_adopts_the_cluster(tmp_path, bucket, world, pulumi_cli):
    """docs/fleet.md, "A runner killed": killed while the provider's CreateCluster is on the wire (the
    endpoint holds each answer 3 s once east's up has started), the stack's state keeps a pending
    create; the next `up` drops it and calls the provider's create again, which adopts the cluster
    the first one made (`adopt`): one CreateCluster in all."""
    state, s3 = bucket
    endpoint, sim, worlds = world
    fleet, release = write_fleet(tmp_path, endpoint, state)
    data = yaml.safe_load(fleet.read_text())
    data["stacks"][0]["config"]["clusterName"] = "east-new"  # not in the world: east's up creates it
    fleet.write_text(yaml.safe_dump(data))
    release.touch()  # no hold: the kill is inside the create
    with runner(tmp_path, "killed", fleet) as killed:
        until(lambda: "start east: up" in output(killed), "east's up starts", [killed])
        worlds.latency = 3.0
        until(lambda: updates(sim).get("CreateCluster east-new") == 1, "east's CreateCluster is sent", [killed])
        os.killpg(killed.pid, signal.SIGKILL)
        killed.wait(10)
    worlds.latency = 0.0
    assert lock_of(s3, "east")
    exported = subprocess.run(
        ["pulumi", "stack", "export", "--stack", "east", "--non-interactive"],
        cwd=tmp_path / "member",
        env=runner_env(tmp_path, "inspect") | {"PULUMI_BACKEND_URL": state},
        capture_output=True,
        text=True,
        timeout=120,
    )
    pending = json.loads(exported.stdout)["deployment"].get("pending_operations") or []
    assert [(op["type"], op["resource"]["type"]) for op in pending] == [("creating", "pulumi-python:dynamic/hyperpod:Cluster")], (
        exported.stderr
    )
    with runner(tmp_path, "again", fleet, "--break-stale-locks") as again:
        assert again.wait(DEADLINE) == 0, output(again)
    assert "the lock is stale" in output(again) and "updated west: " in output(again)
    assert updates(sim) == {"CreateCluster east-new": 1, "UpdateCluster west-cluster": 1}, "nothing applied twice"
