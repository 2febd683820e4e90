"""Seed 002: a Google Cloud training cluster (modelDevelopmentClusters, Slurm) as a Pulumi program.

cluster.json is the REST body the seed and the create-cluster page describe (a login pool, an A4
pool, one partition, the seed's slurm.conf `config`, prolog/epilog scripts). Two settings come from
stack config so a change can be previewed: `a4Nodes` (the A4 pool's size) and `preemptMode`
(slurm.conf PreemptMode). `pulumi preview` prints the plan: one PATCH with its update mask and the
per-key config change. Config: backend (default fake: the simulator), allowReplacement.
"""

import copy
import json
from pathlib import Path

import pulumi

from pulumi_hyperpod.provider.gcp import GcpTrainingCluster

config = pulumi.Config()
spec = copy.deepcopy(json.loads((Path(__file__).parent / "cluster.json").read_text()))
a4 = next(pool for pool in spec["node_pools"] if pool["id"] == "a4")
count = config.get_int("a4Nodes")
if count is not None:
    a4["scaling_spec"] = {"min_node_count": count, "max_node_count": count}
preempt = config.get("preemptMode")
if preempt:
    spec["orchestratorSpec"]["slurmSpec"]["config"]["PreemptMode"] = preempt

cluster = GcpTrainingCluster(
    "llmtrain",
    spec=spec,
    backend=config.get("backend") or "fake",
    policy={"allow_replacement": config.get_bool("allowReplacement") or False},
)

pulumi.export("name", cluster.name)
pulumi.export("state", cluster.state)
pulumi.export("pools", cluster.pools)
pulumi.export("nodeCount", cluster.node_count)
