"""HyperPod simulator benchmarks (plain script: `.venv/bin/python bench/sim_bench.py`).

1. Scale: a 10,000-node Continuous create to InService through a real boto3 client and the
   in-memory Simulator (virtual clock advanced in 60 s steps), median wall seconds of 5 runs
   (target < 2 s); plus paging all 10,000 nodes through the ListClusterNodes paginator.
2. The seeds' headline, simulated: virtual time until a 16-node training group is usable when
   only 12 instances are free now and 4 more free up after 2 hours — Continuous provisioning
   (partial capacity accepted, the rest retried) versus all-or-nothing (the create fails; an
   operator deletes and retries every 15 minutes). Median over 5 seeds with launch jitter.
3. Clients of one persistent world: a sagemaker and a service-quotas client on the same SQLite world
   of 5,000 nodes, alternating writes and reads — median seconds per read after another client's
   write (one store per world per process: no reload of the world).
4. `hyperpod --backend fake plan` (preflight included) against a 5,000-node simulated cluster: the whole
   command in a fresh process (interpreter start-up included) and the plan itself in-process
   (CliRunner, warm imports) — medians of 5 runs; target < 1 s for the plan itself.
5. observe of the 5,000-node cluster in a fresh process: imports done first, then client, store open,
   DescribeCluster and the 50 ListClusterNodes pages (wall and CPU seconds), and the whole process.

6. What S3 holds weighs nothing on the rest: DescribeCluster of a small cluster in a SQLite world,
   median in-process seconds with S3 empty and with 120 MB of objects stored (8 × 15 MB), and a fresh
   process's DescribeCluster (wall seconds, peak memory) with those 120 MB stored. Before and after the
   objects' bytes moved out of the world's meta values (fake/s3_bodies.py), one run each, same machine:
     DescribeCluster with 126 MB in S3, in-process:      558 ms → 1 ms   (2 ms / 1 ms with S3 empty)
     DescribeCluster in a fresh process, 126 MB in S3:  4.16 s → 0.32 s, peak memory 1,238 MB → 142 MB

Sections can be chosen: `bench/sim_bench.py observe plan` (scale, headline, shared, observe, plan, s3).

Before/after the one-store-per-world and one-loader-per-process change (issue 16), the same bench on
one machine (2 shared cores, loaded), three paired rounds, medians — `python /tmp/paired.py` style:
run this file with PYTHONPATH at the old tree, then at this one, alternately:
  read after another client's write, 5,000-node world:  1,059 ms → 2 ms   (no reload of the world)
  `hyperpod --backend fake plan`, plan itself (warm):   1.85 s → 0.67 s  (target < 1 s)
  `hyperpod --backend fake plan`, new process:          4.78 s → 3.68 s  (the rest is import time)
  10,000-node create → InService, in-memory:            1.46 s → 1.59 s  (unchanged: within noise)
  paging 10,000 nodes:                                  1.24 s → 0.92 s  (fast epoch timestamps)

Before/after reading a cluster's nodes and the billing records on first use (fake/store.py), the same
way (old tree: a copy of this file in it; three paired rounds of `observe plan`, medians; the machine
shared with two other benchmarking sessions, so single runs vary by ±30 %):
  observe, fresh process (store open + DescribeCluster + 50 pages):  0.96 s → 0.76 s  (CPU 0.83 → 0.69 s)
  `hyperpod --backend fake plan`, new process:                       1.98 s → 1.43 s
  `hyperpod --backend fake plan`, plan itself (warm):                0.42 s → 0.30 s
  10,000-node create → InService / paging 10,000 nodes (4 rounds):   0.64 / 0.35 s → 0.57 / 0.30 s (unchanged)
20 alternating pairs of the observe process alone: CPU 0.70 → 0.58 s, wall 0.92 → 0.79 s (median paired
difference 0.12 s CPU, 0.16 s wall). Where the fresh observe's CPU goes now (new tree): client creation
0.21 s (botocore: the sagemaker model, endpoint rules), decoding the cluster's 5,000 node rows on the
first DescribeCluster 0.13 s, DescribeCluster + 50 pages 0.35 s, of which botocore (response parsing,
request building and signing) takes about two thirds and the simulator's handler under a third (30 %:
validation, the sorted listing once, 5,000 summaries, JSON encoding, one SQLite transaction per page).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator

ROLE = "arn:aws:iam::111122223333:role/hyperpod"
LIFECYCLE = {"SourceS3Uri": "s3://bucket/lifecycle/src/", "OnCreate": "on_create.sh"}
VPC = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-aaaa1111", "subnet-bbbb2222"]}
RUNS = 5


def _group(name: str, count: int, instance_type: str, **extra) -> dict:
    return {
        "InstanceGroupName": name,
        "InstanceType": instance_type,
        "InstanceCount": count,
        "LifeCycleConfig": dict(LIFECYCLE),
        "ExecutionRole": ROLE,
        **extra,
    }


# -- 1. scale --------------------------------------------------------------------------------------
def ten_thousand_nodes() -> tuple[float, float]:
    """(seconds from CreateCluster to InService, seconds to page every node)."""
    sim = Simulator(seed=1)
    client = connect(backend="fake", simulator=sim)
    started = time.perf_counter()
    client.create_cluster(
        ClusterName="ten-k",
        NodeProvisioningMode="Continuous",
        VpcConfig=VPC,
        Orchestrator={"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/ten-k"}},
        # ClusterInstanceCount allows at most 6,758 per group: two groups of 5,000, all required (MinCount).
        InstanceGroups=[_group(f"gpu-{i}", 5000, "ml.p5.48xlarge", MinInstanceCount=5000) for i in range(2)],
    )
    while client.describe_cluster(ClusterName="ten-k")["ClusterStatus"] != "InService":
        sim.advance(60)
    in_service = time.perf_counter() - started
    started = time.perf_counter()
    nodes = sum(len(page["ClusterNodeSummaries"]) for page in client.get_paginator("list_cluster_nodes").paginate(ClusterName="ten-k"))
    listed = time.perf_counter() - started
    assert nodes == 10_000, nodes
    return in_service, listed


# -- 2. headline -----------------------------------------------------------------------------------
def _scenario(seed: int) -> dict:
    return {
        "capacity": [{"instance_type": "ml.p5.48xlarge", "available": 12}],
        "capacity_changes": [{"at": 2 * 3600, "instance_type": "ml.p5.48xlarge", "add": 4}],
        "timing": {"jitter_seconds": 30},
    }


def _request(continuous: bool) -> dict:
    groups = [
        _group("controller", 1, "ml.m5.xlarge", SlurmConfig={"NodeType": "Controller"}),
        _group("training", 16, "ml.p5.48xlarge", SlurmConfig={"NodeType": "Compute", "PartitionNames": ["train"]}),
    ]
    request = {"ClusterName": "train-16", "InstanceGroups": groups, "VpcConfig": VPC, "Orchestrator": {"Slurm": {}}}
    if continuous:
        request["NodeProvisioningMode"] = "Continuous"
    return request


def _usable(client) -> int:
    for group in client.describe_cluster(ClusterName="train-16")["InstanceGroups"]:
        if group["InstanceGroupName"] == "training":
            return group["CurrentCount"]
    return 0


def continuous_until_usable(seed: int) -> tuple[float, float]:
    """(virtual hours until 12 nodes are usable, until all 16 are)."""
    sim = Simulator(seed=seed, scenario=_scenario(seed))
    client = sim.client()
    start = sim.now()
    client.create_cluster(**_request(continuous=True))
    first = None
    while _usable(client) < 16:
        sim.advance(30)
        if first is None and _usable(client) >= 12:
            first = sim.now()
    return (first - start).total_seconds() / 3600, (sim.now() - start).total_seconds() / 3600


def all_or_nothing_until_usable(seed: int, retry_gap: float = 900) -> tuple[float, int]:
    """(virtual hours until all 16 are usable, create attempts) for an operator retrying on failure."""
    sim = Simulator(seed=seed, scenario=_scenario(seed))
    client = sim.client()
    start, attempts = sim.now(), 0
    while attempts < 100:
        attempts += 1
        client.create_cluster(**_request(continuous=False))
        while (status := client.describe_cluster(ClusterName="train-16")["ClusterStatus"]) == "Creating":
            sim.advance(30)
        if status == "InService":
            return (sim.now() - start).total_seconds() / 3600, attempts
        client.delete_cluster(ClusterName="train-16")
        while any(c["ClusterName"] == "train-16" for c in client.list_clusters()["ClusterSummaries"]):
            sim.advance(30)
        sim.advance(retry_gap)
    raise RuntimeError("all-or-nothing create never succeeded in 100 attempts")


# -- 3./4. a 5,000-node persistent world ----------------------------------------------------------------
BIG = 5000


def _big_request() -> dict:
    return {
        "ClusterName": "big",
        "NodeProvisioningMode": "Continuous",
        "VpcConfig": VPC,
        "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/big"}},
        "InstanceGroups": [_group("gpu", BIG - 8, "ml.p5.48xlarge"), _group("cpu", 8, "ml.m5.xlarge")],
    }


def big_world(directory: Path) -> Path:
    """A SQLite world holding one InService cluster of 5,000 nodes (a frozen world: speed 0)."""
    path = directory / "fake.sqlite"
    sim = Simulator(path, scenario={"speed": 0})
    sim.client().create_cluster(**_big_request())
    sim.advance(1800)
    return path


def clients_share_the_world(path: Path) -> float:
    """Median seconds for a sagemaker read right after a write through another client of the world."""
    os.environ["HYPERPOD_FAKE_STATE"] = str(path)
    sagemaker, quotas = connect("fake"), connect("fake", service="service-quotas")
    sagemaker.describe_cluster(ClusterName="big")
    times = []
    for index in range(RUNS):
        quotas.list_service_quotas(ServiceCode="sagemaker")
        sagemaker.update_cluster(ClusterName="big", InstanceGroups=[_group("cpu", 8 + index % 2, "ml.m5.xlarge")])
        started = time.perf_counter()
        quotas.list_service_quotas(ServiceCode="sagemaker")
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def plan_timings(path: Path) -> tuple[float, float]:
    """(median s of `hyperpod --backend fake plan` in a fresh process, median s of the plan in-process)."""
    spec = path.parent / "spec.json"
    request = _big_request()
    request["InstanceGroups"][1]["InstanceCount"] = 6  # a scale-in: victims chosen among the nodes
    spec.write_text(json.dumps(request))
    env = {**os.environ, "HYPERPOD_FAKE_STATE": str(path), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    command = [
        sys.executable,
        "-c",
        "import sys; from pulumi_hyperpod.cli import main; sys.exit(main())",
        "--backend",
        "fake",
        "plan",
        "-f",
        str(spec),
    ]
    fresh = []
    for _ in range(RUNS):
        started = time.perf_counter()
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        fresh.append(time.perf_counter() - started)
        assert done.returncode == 0, done.stderr[-2000:]
    from click.testing import CliRunner

    from pulumi_hyperpod.cli import main as cli

    os.environ["HYPERPOD_FAKE_STATE"] = str(path)
    runner, warm = CliRunner(), []
    for _ in range(RUNS + 1):
        started = time.perf_counter()
        result = runner.invoke(cli, ["--backend", "fake", "plan", "-f", str(spec)])
        warm.append(time.perf_counter() - started)
        assert result.exit_code == 0, result.output[-2000:]
    return statistics.median(fresh), statistics.median(warm[1:])


OBSERVE_SCRIPT = """
import json, sys, time
started = time.perf_counter()
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.aws.observe import observe
import pulumi_hyperpod.sim.aws.simulator, pulumi_hyperpod.aws.observe.reader  # imports: counted in the whole process only
imported, cpu = time.perf_counter(), time.process_time()
state = observe(connect("fake"), "big")
observed, cpu = time.perf_counter(), time.process_time() - cpu
assert state is not None and len(state.nodes) == 5000, state
print(json.dumps({"imports": imported - started, "observe": observed - imported, "cpu": cpu}))
"""


def fresh_observe_timings(path: Path, runs: int = RUNS) -> tuple[float, float, float]:
    """Medians, in a fresh process, of connect + observe of the 5,000-node cluster (store open, DescribeCluster,
    every ListClusterNodes page): wall s, CPU s (steadier on a shared machine); and wall s of the whole process
    (interpreter start-up and imports included)."""
    env = {**os.environ, "HYPERPOD_FAKE_STATE": str(path), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    inside, cpu, whole = [], [], []
    for _ in range(runs):
        started = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", OBSERVE_SCRIPT], env=env, capture_output=True, text=True)
        whole.append(time.perf_counter() - started)
        assert done.returncode == 0, done.stderr[-2000:]
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        inside.append(figures["observe"])
        cpu.append(figures["cpu"])
    return statistics.median(inside), statistics.median(cpu), statistics.median(whole)


S3_OBJECTS, S3_OBJECT_BYTES = 8, 15 * 1024 * 1024  # 120 MB, under the simulated S3's bounds (fake/s3.py)

DESCRIBE_SCRIPT = """
import json, resource, time
from pulumi_hyperpod.aws.client import connect
started = time.perf_counter()
connect("fake").describe_cluster(ClusterName="small")
print(json.dumps({"describe": time.perf_counter() - started, "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def s3_weight(directory: Path) -> tuple[float, float, float, float]:
    """(median s of DescribeCluster with S3 empty, the same with 120 MB stored, a fresh process's
    DescribeCluster with them stored (s, its open and first transaction included), its peak MB)."""
    path = directory / "s3.sqlite"
    sim = Simulator(path, scenario={"speed": 0})
    client = sim.client()
    client.create_cluster(**{**_big_request(), "ClusterName": "small", "InstanceGroups": [_group("cpu", 2, "ml.m5.xlarge")]})
    sim.advance(1800)

    def describe() -> float:
        times = []
        for _ in range(RUNS):
            started = time.perf_counter()
            client.describe_cluster(ClusterName="small")
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    empty = describe()
    s3 = sim.client("s3")
    s3.create_bucket(Bucket="bench-bundles", CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    for index in range(S3_OBJECTS):
        s3.put_object(Bucket="bench-bundles", Key=f"blob-{index}", Body=os.urandom(S3_OBJECT_BYTES))
    stored = describe()
    env = {**os.environ, "HYPERPOD_FAKE_STATE": str(path), "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    fresh, rss = [], []
    for _ in range(RUNS):
        done = subprocess.run([sys.executable, "-c", DESCRIBE_SCRIPT], env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr[-2000:]
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        fresh.append(figures["describe"])
        rss.append(figures["rss_mb"])
    return empty, stored, statistics.median(fresh), statistics.median(rss)


SECTIONS = ("scale", "headline", "shared", "observe", "plan", "s3")


def main(sections: tuple[str, ...] = SECTIONS) -> None:
    unknown = [name for name in sections if name not in SECTIONS]
    if unknown:
        raise SystemExit(f"unknown section {unknown[0]!r}; sections: {', '.join(SECTIONS)}")
    if "scale" in sections:
        scale()
    if "headline" in sections:
        headline()
    if {"shared", "observe", "plan"} & set(sections):
        with tempfile.TemporaryDirectory() as directory:
            big(Path(directory), sections)
    if "s3" in sections:
        with tempfile.TemporaryDirectory() as directory:
            empty, stored, fresh, rss = s3_weight(Path(directory))
        print(
            f"DescribeCluster, SQLite world: median {empty * 1000:.0f} ms with S3 empty, {stored * 1000:.0f} ms with "
            f"{S3_OBJECTS * S3_OBJECT_BYTES / 1e6:.0f} MB in S3; in a fresh process with them stored {fresh:.2f} s "
            f"(client, store open and first transaction), peak {rss:.0f} MB"
        )


def scale() -> None:
    ten_thousand_nodes()  # warm-up: botocore loads the sagemaker model once per process
    runs = [ten_thousand_nodes() for _ in range(RUNS)]
    print(
        f"10,000-node Continuous create → InService (boto3 + in-memory simulator): median "
        f"{statistics.median(r[0] for r in runs):.2f} s wall over {RUNS} runs (target < 2 s); "
        f"paging all 10,000 nodes (100 ListClusterNodes pages): median {statistics.median(r[1] for r in runs):.2f} s"
    )


def headline() -> None:
    started = time.perf_counter()
    continuous = [continuous_until_usable(seed) for seed in range(RUNS)]
    classic = [all_or_nothing_until_usable(seed) for seed in range(RUNS)]
    print(
        "16-node training group, 12 p5 free now + 4 more after 2 h (virtual time, median of "
        f"{RUNS} seeds; {time.perf_counter() - started:.2f} s wall for all 10 simulations):"
    )
    print(
        f"  Continuous:     12 nodes usable after {statistics.median(c[0] for c in continuous) * 60:.0f} min, "
        f"all 16 after {statistics.median(c[1] for c in continuous):.2f} h"
    )
    print(
        f"  all-or-nothing: all 16 usable after {statistics.median(c[0] for c in classic):.2f} h "
        f"({statistics.median(c[1] for c in classic):.0f} create attempts, retry every 15 min; nothing usable before)"
    )


def big(directory: Path, sections: tuple[str, ...]) -> None:
    path = big_world(directory)
    if "observe" in sections:  # first: the world as big_world() left it
        inside, cpu, whole = fresh_observe_timings(path)
        print(
            f"observe of the 5,000-node cluster in a fresh process (store open + DescribeCluster + 50 "
            f"ListClusterNodes pages, client made, imports done): median {inside:.2f} s ({cpu:.2f} s CPU); the whole "
            f"process {whole:.2f} s (start-up and imports included)"
        )
    if "shared" in sections:
        shared = clients_share_the_world(path)
        print(
            f"5,000-node SQLite world, two clients (sagemaker + service-quotas): median {shared * 1000:.0f} ms "
            "for a read after the other client's write"
        )
    if "plan" in sections:
        fresh, warm = plan_timings(path)
        print(
            f"`hyperpod --backend fake plan` on the 5,000-node cluster: median {fresh:.2f} s as a new process "
            f"(start-up included), {warm:.2f} s for the plan itself in a warm process (target < 1 s)"
        )


if __name__ == "__main__":
    main(tuple(sys.argv[1:]) or SECTIONS)
