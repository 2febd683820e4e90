"""Fleets (issue 40): `hyperpod fleet plan` of many stacks against a slow endpoint, sequential vs
parallel; and the fleet plan document of 200 clusters of 500 nodes, gathered and rendered.

1. A fleet of REGIONS × ACCOUNTS × PER clusters (default 3 × 2 × 4 = 24), one stack each (a small
   program adopting its cluster by name and growing its workers by one, so each preview observes the
   live cluster and runs the preflight that reads the account's quota), in tmp project directories,
   state in a tmp `file://` backend. The clusters are made first in a simulated world, each in the
   account its 12-digit key names; `hyperpod fake serve --latency 150ms` (its own process) answers
   every call 150 ms late, as the real service's round-trips take. `hyperpod fleet plan --json` is
   timed (wall seconds, median of RUNS) at `--parallel 1` and `--parallel 4`; the ratio is printed
   last, as `fleet preview: parallel/sequential R`. Goal: ≤ 0.35 on 2 cores — the work is waiting
   on the engine and the endpoint, not computing. Peak memory: the largest maxrss among the processes
   this bench waited for (resource.getrusage RUSAGE_CHILDREN: the runner, its engines, programs and
   providers).
2. The fleet plan document of DOC_CLUSTERS (200) clusters of 500 nodes each: real plans (the Plan
   model, `pipeline.make_plan` on a 500-node cluster scaled in, with victims, and a quota preflight
   section), one a stack, handed to `hyperpod fleet plan` in place of the previews (no engine): the
   summary, the table and the JSON timed. Goal: under 2 s.

Run: source scripts/env.sh && python bench/fleet_bench.py   (needs `pulumi` on PATH)
     FLEET_BENCH_RUNS=3 (fleet plans per parallelism, default 1: 24 previews are slow);
     FLEET_BENCH_REGIONS=3 FLEET_BENCH_ACCOUNTS=2 FLEET_BENCH_PER=4 (the fleet's shape);
     FLEET_BENCH_LATENCY=150ms; FLEET_BENCH_DOC_CLUSTERS=200 FLEET_BENCH_DOC_NODES=500;
     FLEET_BENCH_SKIP_ENGINE=1 runs only the document figure.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

RUNS = int(os.environ.get("FLEET_BENCH_RUNS", "1"))
REGIONS = ["us-west-2", "us-east-1", "eu-west-1", "ap-northeast-1", "eu-central-1"][: int(os.environ.get("FLEET_BENCH_REGIONS", "3"))]
ACCOUNTS = [f"{n}{n}{n}{n}" * 3 for n in range(1, 10)][: int(os.environ.get("FLEET_BENCH_ACCOUNTS", "2"))]
PER = int(os.environ.get("FLEET_BENCH_PER", "4"))
LATENCY = os.environ.get("FLEET_BENCH_LATENCY", "150ms")
DOC_CLUSTERS = int(os.environ.get("FLEET_BENCH_DOC_CLUSTERS", "200"))
DOC_NODES = int(os.environ.get("FLEET_BENCH_DOC_NODES", "500"))
PARALLEL = (1, 4)
KIND = "ml.c5.xlarge"
PASSPHRASE = "fleet-bench"

# as bench/engine_bench.py: a background job inherits SIGINT ignored, and every plugin with it (the
# engine then waits 5 s for each to stop); a handler here gives the processes started SIGINT again
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def program() -> str:
    from tests.support.sim_helpers import LIFECYCLE, ROLE

    return textwrap.dedent(
        f'''\
        """A fleet member: one cluster adopted by name, its workers sized by stack config."""
        import pulumi

        from pulumi_hyperpod.provider import Cluster

        config = pulumi.Config()
        Cluster(
            "member",
            cluster_name=config.require("clusterName"),
            instance_groups=[{{
                "instance_group_name": "workers",
                "instance_type": "{KIND}",
                "instance_count": config.require_int("workers"),
                "life_cycle_config": {{"source_s3_uri": "{LIFECYCLE["SourceS3Uri"]}", "on_create": "{LIFECYCLE["OnCreate"]}"}},
                "execution_role": "{ROLE}",
            }}],
            backend="aws",  # the stack's environment points botocore at the simulator's endpoint
            adopt=True,
            wait="none",
        )
        '''
    )


def engine_env(base: Path) -> dict[str, str]:
    """The runner's environment: its own PULUMI_HOME, a tmp file backend, no credentials of this machine."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "PULUMI_", "HYPERPOD_"))}
    env.update(
        PULUMI_HOME=str(base / "pulumi-home"),
        PULUMI_BACKEND_URL=f"file://{base / 'state'}",
        PULUMI_CONFIG_PASSPHRASE=PASSPHRASE,
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        HYPERPOD_FAKE_STATE=str(base / "world" / "fake.sqlite"),
        AWS_CONFIG_FILE=os.devnull,
        AWS_SHARED_CREDENTIALS_FILE=os.devnull,
        AWS_EC2_METADATA_DISABLED="true",
        PYTHONPATH=str(REPO),
    )
    for directory in ("pulumi-home", "state", "world"):
        (base / directory).mkdir(parents=True, exist_ok=True)
    return env


def make_world(path: Path, where: list[tuple[str, str, str]]) -> None:
    """Each (account, region, cluster) made with its account's key and run to InService."""
    import botocore.session

    from pulumi_hyperpod.sim.aws import Simulator
    from tests.support.sim_helpers import group

    sim = Simulator(path=path, seed=40)
    sim.set_quota(10_000, name=f"{KIND} for cluster usage")
    session = botocore.session.get_session()
    for account, region, name in where:
        client = session.create_client("sagemaker", region_name=region, aws_access_key_id=account, aws_secret_access_key="bench")
        sim.attach(client).create_cluster(ClusterName=name, InstanceGroups=[group("workers", 2)])
    sim.advance(3600)


def write_fleet(base: Path, url: str, where: list[tuple[str, str, str]]) -> Path:
    text = program()
    stacks = []
    for account, region, name in where:
        project = base / "projects" / name
        project.mkdir(parents=True)
        (project / "__main__.py").write_text(text)
        runtime = {"name": "python", "options": {"virtualenv": str(Path(sys.prefix))}}
        (project / "Pulumi.yaml").write_text(yaml.safe_dump({"name": "fleet-member", "runtime": runtime}))
        stacks.append(
            {
                "name": name,
                "project": f"projects/{name}",
                "stack": name,
                "account": account,
                "region": region,
                "backend": "fake",
                "config": {"clusterName": name, "workers": "3"},
                "env": {"AWS_ENDPOINT_URL": url},
            }
        )
    fleet = base / "fleet.yaml"
    fleet.write_text(yaml.safe_dump({"stacks": stacks}))
    return fleet


def create_stacks(base: Path, env: dict[str, str], names: list[str]) -> None:
    """The stacks made before the timed runs, so neither parallelism pays for creating them."""

    def init(name: str) -> None:
        subprocess.run(
            ["pulumi", "stack", "init", name, "--non-interactive"], cwd=base / "projects" / name, env=env, check=True, capture_output=True
        )

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(init, names))


def fleet_plan_seconds(fleet: Path, env: dict[str, str], parallel: int) -> float:
    started = time.perf_counter()
    result = subprocess.run(
        ["hyperpod", "fleet", "plan", str(fleet), "--parallel", str(parallel), "--json"],
        env=env,
        capture_output=True,
        text=True,
        timeout=3600,
    )
    seconds = time.perf_counter() - started
    try:
        document = json.loads(result.stdout)
    except json.JSONDecodeError:
        sys.exit(f"fleet plan printed no fleet plan (exit {result.returncode}):\n{result.stdout}\n{result.stderr}")
    if document["errors"] or result.returncode not in (0, 2):
        sys.exit(f"fleet plan failed (exit {result.returncode}):\n{result.stderr[-4000:]}")
    steps = sum(1 for row in document["stacks"] for cluster in row["clusters"] if cluster["steps"])
    print(f"  --parallel {parallel}: {seconds:.1f} s ({len(document['stacks'])} stacks, {steps} with a step)", flush=True)
    return seconds


def engine_figure() -> None:
    from tests.support.serve import fake_serve

    if shutil.which("pulumi") is None:
        sys.exit("pulumi is not on PATH: source scripts/env.sh first")
    where = [(a, r, f"c-{a[:4]}-{r}-{i}") for r in REGIONS for a in ACCOUNTS for i in range(PER)]
    print(
        f"fleet preview: {len(where)} clusters ({len(REGIONS)} regions × {len(ACCOUNTS)} accounts × {PER}), one stack each, "
        f"`hyperpod fake serve --latency {LATENCY}`, {RUNS} run(s) per parallelism",
        flush=True,
    )
    with tempfile.TemporaryDirectory(prefix="fleet-bench-") as directory:
        base = Path(directory)
        env = engine_env(base)
        make_world(Path(env["HYPERPOD_FAKE_STATE"]), where)
        with fake_serve(env, base, "--latency", LATENCY, stop_after=6 * 3600) as url:
            fleet = write_fleet(base, url, where)
            create_stacks(base, env, [name for _, _, name in where])
            timings: dict[int, list[float]] = {p: [] for p in PARALLEL}
            for _ in range(RUNS):
                for parallel in PARALLEL:  # interleaved: each pair shares the machine's load
                    timings[parallel].append(fleet_plan_seconds(fleet, env, parallel))
            peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    sequential, parallel = (statistics.median(timings[p]) for p in PARALLEL)
    print(f"  median wall: --parallel 1 {sequential:.1f} s, --parallel 4 {parallel:.1f} s")
    print(f"  peak memory: {peak_mb:.0f} MB (largest process waited for: maxrss, RUSAGE_CHILDREN)")
    print(f"fleet preview: parallel/sequential {parallel / sequential:.2f}   (goal ≤ 0.35)")


def document_plans() -> list[tuple]:
    """DOC_CLUSTERS real plans of DOC_NODES-node clusters (one group scaled in: victims), as the
    provider writes them (`Plan.to_json`), with a quota preflight section each."""
    from pulumi_hyperpod import ClusterSpec, ClusterState
    from pulumi_hyperpod.aws.pipeline import make_plan
    from pulumi_hyperpod.fleet.summary import StackPlans

    groups, per = 5, DOC_NODES // 5
    epoch = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    stacks = []
    for index in range(DOC_CLUSTERS):
        name = f"cluster-{index:03d}"
        account, region = ACCOUNTS[index % len(ACCOUNTS)], REGIONS[index % len(REGIONS)]
        spec = [
            {
                "InstanceGroupName": f"g{g}",
                "InstanceType": KIND,
                "InstanceCount": per,
                "ExecutionRole": f"arn:aws:iam::{account}:role/hyperpod",
                "LifeCycleConfig": {"SourceS3Uri": "s3://bucket/lc/", "OnCreate": "on_create.sh"},
            }
            for g in range(groups)
        ]
        described = [
            {**{k: v for k, v in g.items() if k != "InstanceCount"}, "CurrentCount": per, "TargetCount": per, "Status": "InService"}
            for g in spec
        ]
        nodes = [
            {
                "InstanceGroupName": f"g{g}",
                "InstanceId": f"i-{index:06x}{g:02x}{k:09x}",
                "InstanceType": KIND,
                "LaunchTime": epoch + dt.timedelta(seconds=k),
                "InstanceStatus": {"Status": "Running"},
            }
            for g in range(groups)
            for k in range(per)
        ]
        desired = ClusterSpec.from_dict(
            {
                "ClusterName": name,
                "InstanceGroups": [{**g, "InstanceCount": per - 10} if g["InstanceGroupName"] == "g0" else g for g in spec],
            }
        )
        observed = ClusterState.from_api(
            {
                "ClusterArn": f"arn:aws:sagemaker:{region}:{account}:cluster/{index:012x}",
                "ClusterName": name,
                "ClusterStatus": "InService",
                "InstanceGroups": described,
            },
            nodes,
        )
        plan = json.loads(make_plan(desired, observed).to_json())  # the JSON the provider writes to $HYPERPOD_PLAN_DIR
        check = {
            "quota_name": f"{KIND} for cluster usage",
            "quota": 10_000.0,
            "instance_type": KIND,
            "in_use": DOC_NODES,
            "adds": 5,
            "after": DOC_NODES + 5,
        }
        plan["preflight"] = {"verdict": "ok", "quotas": {"status": "checked", "checks": [check]}}
        stacks.append((StackPlans(stack=name, account=account, region=region, changes={"update": 1}), json.dumps(plan)))
    return stacks


def document_figure() -> None:
    from click.testing import CliRunner

    from pulumi_hyperpod.cli import main
    from pulumi_hyperpod.fleet import preview

    written = document_plans()
    stacks = [stack for stack, _ in written]

    def gathered(*_: object, **__: object) -> list:
        """The previews' results: each stack's plan file read, as preview_stack reads it (timed)."""
        return [replace(stack, plans=(json.loads(text),)) for stack, text in written]

    with tempfile.TemporaryDirectory(prefix="fleet-doc-") as directory:
        base = Path(directory)
        (base / "member").mkdir()
        (base / "member" / "Pulumi.yaml").write_text("name: member\nruntime: python\n")
        fleet = base / "fleet.yaml"
        fleet.write_text(
            yaml.safe_dump(
                {
                    "stacks": [
                        {"name": s.stack, "project": "member", "stack": s.stack, "account": s.account, "region": s.region} for s in stacks
                    ]
                }
            )
        )
        preview.preview_fleet = gathered  # the plans made above in place of the previews: no engine
        figures = {}
        for label, extra in (("table", []), ("JSON", ["--json"])):
            CliRunner().invoke(main, ["fleet", "plan", str(fleet), *extra])  # warm-up: imports
            runs = []
            for _ in range(3):
                started = time.perf_counter()
                result = CliRunner().invoke(main, ["fleet", "plan", str(fleet), *extra], env={"COLUMNS": "160"})
                runs.append(time.perf_counter() - started)
                if result.exit_code != 0 or stacks[-1].stack not in result.output:
                    sys.exit(f"fleet plan of the document failed (exit {result.exit_code}): {result.output[-2000:]}")
            figures[label] = statistics.median(runs)
    victims = sum(len(step.get("victims") or ()) for _, text in written for step in json.loads(text)["steps"])
    print(
        f"fleet plan document: {DOC_CLUSTERS} clusters of {DOC_NODES} nodes ({victims:,} victims), read, summed and shown: "
        f"table {figures['table']:.2f} s, JSON {figures['JSON']:.2f} s (median of 3; goal < 2 s)"
    )


def main() -> None:
    document_figure()
    if os.environ.get("FLEET_BENCH_SKIP_ENGINE") != "1":
        engine_figure()


if __name__ == "__main__":
    main()
