"""The native plugin's Check of a HyperPod cluster loads what the dynamic provider's check loads
(tests/unit/provider/test_check_lean.py), and no Google Cloud module: those load with the first call for a
GcpTrainingCluster. Checked in a fresh interpreter by `sys.modules`, never by timing."""

from __future__ import annotations

import json

from pulumi_hyperpod.provider import props

from tests.support.fresh import run_fresh
from .conftest import slurm_spec

NOT_IN_CHECK = ("pydantic", "botocore.session", "botocore.client", "pulumi_hyperpod.aws.spec.models", "pulumi_hyperpod.provider.gcp")

CHECK = """
import asyncio, json, sys
from pulumi.provider.experimental.provider import CheckRequest
from pulumi_hyperpod.native import wire
from pulumi_hyperpod.native.provider import HyperpodProvider
olds, news = json.loads(sys.stdin.read())
urn = "urn:pulumi:dev::p::hyperpod:index:Cluster::c"
result = asyncio.run(HyperpodProvider().check(CheckRequest(urn, wire.bag_to_wire(olds), wire.bag_to_wire(news), b"")))
servicemodel = sys.modules["pulumi_hyperpod.aws.servicemodel"]
print(json.dumps({
    "inputs": wire.bag_from_wire(result.inputs),
    "failures": [[f.property, f.reason] for f in result.failures],
    "loaded": sorted(name for name in NOT_IN_CHECK if name in sys.modules),
    "whole_model": bool(servicemodel.service_model.cache_info().currsize),
}))
"""


def test_a_fresh_native_check_of_a_cluster_loads_no_client_models_pydantic_or_gcp():
    news = {"spec": slurm_spec(workers=2), "backend": "fake"}
    olds, failures = props.check_inputs(news)
    assert failures == []
    found = json.loads(run_fresh(f"NOT_IN_CHECK = {NOT_IN_CHECK!r}\n" + CHECK, json.dumps([olds, news])))
    assert found["failures"] == [] and found["inputs"]["spec"] == olds["spec"]
    assert found["loaded"] == [] and not found["whole_model"]
