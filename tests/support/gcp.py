"""Shared pieces of the Google Cloud tests: seed 002's cluster (examples/gcp-training-cluster/cluster.json)
and a client on an in-memory simulator (the real AuthorizedSession with the simulator as its transport).

The fixtures (`doc`, `sim`, `client`, `running`) are made available by the conftest.py of each folder
that uses them (tests/unit/gcp, tests/unit/sim/gcp)."""

from __future__ import annotations

import copy
import json

import pytest

from pulumi_hyperpod.gcp.client import connect
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.sim.gcp.compute import Compute
from tests.support.paths import EXAMPLES

EXAMPLE = EXAMPLES / "gcp-training-cluster" / "cluster.json"
NAME = "projects/my-project/locations/us-central1/modelDevelopmentClusters/llmtrain"


@pytest.fixture
def doc() -> dict:
    return copy.deepcopy(json.loads(EXAMPLE.read_text()))


@pytest.fixture
def sim() -> GcpSimulator:
    return GcpSimulator()


@pytest.fixture
def client(sim):
    return connect("fake", simulator=sim, poll_seconds=0)


@pytest.fixture
def running(client, doc):
    """Seed 002's cluster created on the simulator; returns the observed state."""
    from pulumi_hyperpod.gcp.apply import apply
    from pulumi_hyperpod.gcp.observe import observe
    from pulumi_hyperpod.gcp.planner import plan

    apply(client, plan(spec(doc), None))
    return observe(client, NAME)


def spec(doc: dict):
    """The GCP ClusterSpec of a document (the example's, edited by a test)."""
    from pulumi_hyperpod.gcp.spec import ClusterSpec

    return ClusterSpec.from_document(doc)


def slurm(doc: dict) -> dict:
    return doc["orchestratorSpec"]["slurmSpec"]


def a4(doc: dict) -> dict:
    return next(p for p in doc["node_pools"] if p["id"] == "a4")


def compute_settings(sim: GcpSimulator):
    """`with compute_settings(sim) as compute:` the simulated Compute Engine (zones' machine types,
    reservations, regional quotas) of `sim`'s world, changed inside one transaction."""

    class Settings:
        def __enter__(self):
            self._tx = sim.world()
            return Compute(self._tx.__enter__().data)

        def __exit__(self, *exc):
            return self._tx.__exit__(*exc)

    return Settings()


def renamed(doc, new_id: str = "a3", machine_type: str = "a3-megagpu-8g") -> None:
    """The in-place route: the a4 pool under a new id with a new machine type, and its partition with it."""
    pool = a4(doc)
    pool["id"] = new_id
    pool["machine_spec"] = {"machine_type": machine_type}
    pool["provisioning_model"] = "ON_DEMAND"
    for partition in doc["orchestratorSpec"]["slurmSpec"]["partitions"]:
        partition["node_pool_ids"] = [new_id if p == "a4" else p for p in partition["node_pool_ids"]]
