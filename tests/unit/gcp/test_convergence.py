"""Property: whatever mutable change a spec makes (pool sizes, display name, slurm.conf keys,
scripts, an extra partition), the plan is one PATCH the simulator accepts, apply reaches RUNNING
with the asked counts, and planning again is empty."""

from __future__ import annotations

import copy
import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.gcp.apply import apply
from pulumi_hyperpod.gcp.client import connect
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.gcp.spec import ClusterSpec
from pulumi_hyperpod.plans import Policy

from tests.support.gcp import EXAMPLE, NAME

BASE = json.loads(EXAMPLE.read_text())

changes = st.fixed_dictionaries(
    {
        "a4": st.integers(0, 6),
        "login": st.integers(1, 3),
        "display_name": st.sampled_from(["llm-training", "renamed", "x" * 128]),
        "preempt": st.sampled_from(["REQUEUE", "CANCEL", "SUSPEND,GANG"]),
        "age": st.sampled_from([None, "500", "1000", "2000"]),
        "prologs": st.integers(0, 3),
        "extra_partition": st.booleans(),
    }
)


def desired(change: dict) -> ClusterSpec:
    doc = copy.deepcopy(BASE)
    pools = {p["id"]: p for p in doc["node_pools"]}
    for pool in ("a4", "login"):
        pools[pool]["scaling_spec"] = {"min_node_count": change[pool], "max_node_count": change[pool]}
    doc["display_name"] = change["display_name"]
    slurm = doc["orchestratorSpec"]["slurmSpec"]
    slurm["config"]["PreemptMode"] = change["preempt"]
    if change["age"] is None:
        del slurm["config"]["PriorityWeightAge"]
    else:
        slurm["config"]["PriorityWeightAge"] = change["age"]
    slurm["prolog_bash_scripts"] = [f"#!/bin/bash\necho {i}" for i in range(change["prologs"])]
    if change["extra_partition"]:
        slurm["partitions"].append({"id": "all", "node_pool_ids": ["a4"]})
        slurm["default_partition_id"] = "all"
    return ClusterSpec.from_document(doc)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(changes, min_size=1, max_size=3))
def test_every_mutable_change_converges_in_one_patch(sequence):
    client = connect("fake", simulator=GcpSimulator(), poll_seconds=0)
    apply(client, plan(ClusterSpec.from_document(BASE), None))
    policy = Policy(allow_login_scale_in=True)
    for change in sequence:
        spec = desired(change)
        the_plan = plan(spec, observe(client, NAME), policy)
        assert not the_plan.refused, the_plan.refusals
        assert len(the_plan.steps) <= 1 and all(s.operation == "PatchModelDevelopmentCluster" for s in the_plan.steps)
        apply(client, the_plan)
        state = observe(client, NAME)
        assert state.state == "RUNNING"
        assert {p.id: (p.target, p.running) for p in state.pools} == {
            "login": (change["login"], change["login"]),
            "a4": (change["a4"], change["a4"]),
        }
        assert plan(spec, state, policy).empty
