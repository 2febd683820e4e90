"""Slurm spec validation against its size: seconds to load and check a Slurm spec (SlurmSpec, the
cluster's pool references, HyperPod's rules) of growing size, and the ratio of each step to the
one before — about 2 for twice the size (linear); 4 would be quadratic (issue 24 item 13: 190 KB
took 13 s, 2.4 MB ran past 120 s).

Run: .venv/bin/python bench/slurm_bench.py [MAX_KB]   (default 2400: up to the 5 MiB input limit's half)
The shapes are the costly ones: one partition naming many pools (duplicates were counted per
pool), many partitions (ids were looked up per id), many unknown slurm.conf keys (a fuzzy
"did you mean" per key) and pool names the cluster does not have.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pulumi_hyperpod.slurm import SlurmSpec, SlurmSpecError, reference_violations
from pulumi_hyperpod.aws.slurm.hyperpod import partition_names


def shapes(scale: int) -> dict[str, dict]:
    return {
        "one partition, many pools": {"partitions": [{"id": "p", "node_pool_ids": [f"group-{j}" for j in range(scale)]}]},
        "many partitions": {"partitions": [{"id": f"p{i}", "node_pool_ids": [f"group-{i}"]} for i in range(scale // 2)]},
        "unknown config keys": {
            "partitions": [{"id": "p", "node_pool_ids": ["group-0"]}],
            "config": {f"NotAParameter{j}": "1" for j in range(scale // 2)},
        },
    }


def validate(document: dict) -> None:
    try:
        spec = SlurmSpec.from_dict(document, partition_names=partition_names())
    except SlurmSpecError:
        return
    reference_violations(spec, [f"other-{i}" for i in range(100)], kind="instance group")


def main(max_kb: int) -> None:
    scale = 2500
    previous: dict[str, float] = {}
    print(f"{'shape':28} {'KB':>7} {'seconds':>8} {'× previous':>10}")
    while True:
        sizes = []
        for name, document in shapes(scale).items():
            kb = len(json.dumps(document)) / 1024
            started = time.perf_counter()
            validate(document)
            seconds = time.perf_counter() - started
            ratio = f"{seconds / previous[name]:.1f}" if previous.get(name) else "-"
            print(f"{name:28} {kb:7.0f} {seconds:8.2f} {ratio:>10}")
            previous[name] = seconds
            sizes.append(kb)
        if max(sizes) * 2 > max_kb:
            return
        scale *= 2


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2400)
