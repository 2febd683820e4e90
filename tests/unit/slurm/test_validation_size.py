"""Issue 24 item 13: Slurm spec validation is linear in the spec's size. Before, 190 KB took 13 s
(duplicates counted per pool, ids looked up per id, a fuzzy "did you mean" for every unknown key
and pool); bench/slurm_bench.py prints the figures. A generous bound: this must not fail on a
loaded machine, only on a quadratic path (which takes 5-20 s here)."""

from __future__ import annotations

import json
import time

import pytest

from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.slurm import SlurmSpec, SlurmSpecError, reference_violations

BOUND_SECONDS = 3.0


def shapes(count: int) -> dict[str, dict]:
    return {
        "pools": {"partitions": [{"id": "p", "node_pool_ids": [f"group-{j}" for j in range(count)]}]},
        "partitions": {"partitions": [{"id": f"p{i}", "node_pool_ids": [f"group-{i}"]} for i in range(count // 2)]},
        "config": {
            "partitions": [{"id": "p", "node_pool_ids": ["group-0"]}],
            "config": {f"NotAParameter{j}": "1" for j in range(count // 2)},
        },
    }


@pytest.mark.parametrize("shape", ["pools", "partitions", "config"])
def test_a_190_kb_slurm_spec_validates_in_a_fraction_of_the_old_time(shape):
    document = shapes(20_000)[shape]
    assert len(json.dumps(document)) > 150_000
    started = time.perf_counter()
    try:
        spec = SlurmSpec.from_dict(document, partition_names=partition_names())
        problems = reference_violations(spec, [f"other-{i}" for i in range(100)])
    except SlurmSpecError as error:
        problems = error.violations
    assert time.perf_counter() - started < BOUND_SECONDS
    assert problems  # every shape is wrong somewhere (unknown pools or keys): all of it was checked


def test_errors_still_say_did_you_mean_for_the_first_names():
    with pytest.raises(SlurmSpecError) as caught:
        SlurmSpec.from_dict(
            {"partitions": [{"id": "p", "node_pool_ids": ["a"]}], "config": {"MaxJobCont": "1"}}, partition_names=partition_names()
        )
    assert "did you mean MaxJobCount" in str(caught.value)
