"""The client a preview's diff observes with (aws/readclient.py): botocore's client on the preview's
shapes (aws/specshapes.py). It holds every operation the read path calls (found in the code), makes
the same reads and answers as the full client, hands a call outside the cut to the full client, and
falls back to the full client when there is no cut. Checked by results and `sys.modules`-style
state, never by timing."""

from __future__ import annotations

import ast
import functools
import json
import marshal

import pytest
from botocore import xform_name

from pulumi_hyperpod import connect, observe
from pulumi_hyperpod.aws import readclient, servicemodel, specshapes
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.modelcache import cache_dir

from tests.support.fresh import run_fresh
from tests.support.provider_specs import settled_world, slurm_spec
from tests.support.paths import REPO

# What a preview's diff runs against the cluster: observe, and the plan's cost and preflight.
READ_PATH = ("observe", "preflight", "cost", "planner")
CLIENT_NAMES = {"client", "sagemaker"}  # what those modules call a sagemaker client


def sagemaker_calls_in(package: str) -> set[str]:
    """Every sagemaker operation the modules of aws/<package> call on a client: a method named as
    an operation, or a paginator's operation named by a literal."""
    operations = {xform_name(name): name for name in servicemodel.service_model().operation_names}
    found: set[str] = set()
    for path in (REPO / "pulumi_hyperpod" / "aws" / package).rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            receiver = node.func.value
            receiver_name = receiver.attr if isinstance(receiver, ast.Attribute) else getattr(receiver, "id", "")
            if receiver_name not in CLIENT_NAMES:  # a regex's .search(), a dict's .get()…
                continue
            name = node.func.attr
            if name == "get_paginator" and node.args and isinstance(node.args[0], ast.Constant):
                name = node.args[0].value
            if name in operations:
                found.add(operations[name])
    return found


def test_the_cut_holds_every_operation_the_read_path_calls():
    called = set().union(*(sagemaker_calls_in(package) for package in READ_PATH))
    assert {"DescribeCluster", "ListClusterNodes", "ListTags"} <= called  # the scan sees observe's calls
    assert called <= set(specshapes.READ_OPERATIONS), called - set(specshapes.READ_OPERATIONS)


def test_the_cut_client_holds_only_the_cut_and_reads_as_the_full_client_does():
    sim = Simulator(seed=3)
    full = connect("fake", simulator=sim)
    full.create_cluster(**slurm_spec(workers=2))
    sim.advance(900)
    cut = connect("fake", simulator=sim, reads=True)
    assert getattr(cut.meta, "hyperpod_cut", False) and not getattr(full.meta, "hyperpod_cut", False)
    assert set(cut.meta.service_model.operation_names) == set(specshapes.OPERATIONS)
    assert observe(cut, "demo-cluster") == observe(full, "demo-cluster")
    assert (
        cut.describe_cluster(ClusterName="demo-cluster")["InstanceGroups"]
        == full.describe_cluster(ClusterName="demo-cluster")["InstanceGroups"]
    )
    with pytest.raises(cut.exceptions.ResourceNotFound):  # the cut's own error classes, from its operations
        cut.describe_cluster(ClusterName="no-such-cluster")


def test_a_call_outside_the_cut_goes_to_the_full_client():
    sim = Simulator(seed=4)
    cut = connect("fake", simulator=sim, reads=True)
    assert "batch_delete_cluster_nodes" not in dir(type(cut))
    cut.create_cluster(**slurm_spec(workers=1))  # an operation the cut does not hold
    sim.advance(900)
    assert [c for c, _ in sim.calls].count("CreateCluster") == 1
    node = observe(cut, "demo-cluster").nodes_of("workers")[0].instance_id
    cut.batch_delete_cluster_nodes(ClusterName="demo-cluster", NodeIds=[node])
    operations = cut.get_paginator("list_cluster_operations") if cut.can_paginate("list_cluster_operations") else None
    if operations is not None:
        assert operations._model.name == "ListClusterOperations"
    assert cut.get_paginator("list_cluster_nodes")._model.name == "ListClusterNodes"
    assert cut.get_waiter("endpoint_in_service").name == "EndpointInService"  # DescribeEndpoint: the full client's
    with pytest.raises(AttributeError):
        cut.not_an_operation  # noqa: B018 - only operations go to the full client


def fresh_cut(monkeypatch) -> None:
    """This test's own lookup of the cut, read under its environment (the process's stays as it was)."""
    monkeypatch.setattr(servicemodel, "_spec_shapes", functools.lru_cache(maxsize=1)(lambda: specshapes.load()))


def test_without_a_cut_the_client_is_the_full_one(monkeypatch):
    monkeypatch.setenv("PULUMI_HYPERPOD_MODEL_CACHE", "0")
    fresh_cut(monkeypatch)
    assert readclient.cut_shapes() is None
    client = connect("aws", region="us-west-2", reads=True)
    assert not getattr(client.meta, "hyperpod_cut", False)
    assert "create_cluster" in dir(type(client))


def test_the_aws_cut_client_builds_requests_as_the_full_one(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "example-secret")
    sent: dict[str, list] = {"cut": [], "full": []}

    def capture(into):
        def handler(request, **_):
            into.append((request.url, request.headers.get("X-Amz-Target"), request.body))
            raise RuntimeError("stop")  # nothing leaves this machine

        return handler

    for kind in sent:
        client = connect("aws", region="eu-west-1", reads=kind == "cut", max_attempts=1)
        client.meta.events.register("before-send.sagemaker", capture(sent[kind]))
        with pytest.raises(RuntimeError):
            client.list_cluster_nodes(ClusterName="c", MaxResults=100)
    assert sent["cut"] == sent["full"] and sent["cut"][0][1] == b"SageMaker.ListClusterNodes"


DIFF = """
import json, sys
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.provider import register_simulator
from pulumi_hyperpod.provider.provider import ClusterProvider
path, props = json.loads(sys.stdin.read())
sim = Simulator(path)
register_simulator("world", sim)
provider = ClusterProvider(simulator="world")
inputs = provider.check(props, props).inputs
result = provider.diff("arn", inputs, inputs)
servicemodel = sys.modules["pulumi_hyperpod.aws.servicemodel"]
print(json.dumps({"changes": result.changes, "whole_model": bool(servicemodel.service_model.cache_info().currsize),
                  "calls": [c for c, _ in sim.calls]}))
"""


def test_a_fresh_processs_diff_reads_through_the_cut_and_never_loads_the_whole_model(tmp_path):
    path = tmp_path / "world.sqlite"
    sim = settled_world(path, workers=1)
    spec = slurm_spec(workers=1)
    sim.reset_calls()
    props = {"spec": spec, "backend": "fake"}
    result = json.loads(run_fresh(DIFF, json.dumps([str(path), props]), cwd=tmp_path))
    assert result["changes"] is False
    assert "DescribeCluster" in result["calls"] and set(result["calls"]) <= set(specshapes.READ_OPERATIONS), result["calls"]
    assert result["whole_model"] is False  # client, simulator checks and planner limits: all on the cut


def test_the_cut_entry_damaged_or_stale_is_cut_again_and_the_client_still_reads(tmp_path, monkeypatch):
    monkeypatch.setenv("PULUMI_HYPERPOD_CACHE", str(tmp_path))
    fresh_cut(monkeypatch)
    readclient.cut_shapes()
    [entry] = list(cache_dir().glob(specshapes.PREFIX + "*"))
    entry.write_bytes(b"not marshal data")
    fresh_cut(monkeypatch)
    sim = Simulator(seed=5)
    sim.client().create_cluster(**slurm_spec(workers=1))
    sim.advance(900)
    client = connect("fake", simulator=sim, reads=True)
    assert getattr(client.meta, "hyperpod_cut", False)
    assert observe(client, "demo-cluster") is not None
    assert specshapes._valid(marshal.loads(entry.read_bytes())) is not None  # written whole again
