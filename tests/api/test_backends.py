"""`connect(backend=...)` resolves every backend through one registry (core/backends.py): name →
factory, for each cloud; "fake" (and its alias "sim") is the simulator, the other the real cloud."""

from __future__ import annotations

import ast
import inspect
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pulumi_hyperpod.core import backends

REPO = Path(__file__).resolve().parents[2]


def test_each_cloud_offers_its_service_and_its_simulator():
    assert backends.names("aws") == ("aws", "fake") and backends.names("gcp") == ("gcp", "fake")
    assert [b.simulated for b in backends.REGISTRY] == [False, True, False, True]
    for backend in backends.REGISTRY:
        assert callable(backend.load()), backend.factory


@pytest.mark.parametrize("name", ["fake", "sim"])
def test_the_simulator_answers_a_hyperpod_client_by_either_name(name):
    from pulumi_hyperpod import Simulator, connect

    sim = Simulator(seed=0)
    client = connect(backend=name, simulator=sim)
    assert type(client).__module__ == "botocore.client" and client.list_clusters()["ClusterSummaries"] == []
    assert [operation for operation, _ in sim.calls] == ["ListClusters"]


@pytest.mark.parametrize("name", ["fake", "sim"])
def test_the_simulator_answers_a_google_cloud_client_by_either_name(name):
    from pulumi_hyperpod.gcp.client import connect
    from pulumi_hyperpod.sim.gcp import GcpSimulator

    client = connect(name, simulator=GcpSimulator())
    assert client.backend == "fake" and client.poll_seconds == 0.0


def test_the_alias_polls_as_the_simulator_does():
    from pulumi_hyperpod.aws.client import default_poll_seconds

    assert default_poll_seconds("sim") == default_poll_seconds("fake") != default_poll_seconds("aws")


@pytest.mark.parametrize(("cloud", "expected"), [("aws", "aws, fake"), ("gcp", "gcp, fake")])
def test_an_unknown_backend_is_one_line_naming_the_choices(cloud, expected):
    from pulumi_hyperpod.aws.client import connect as aws_connect
    from pulumi_hyperpod.gcp.client import connect as gcp_connect

    with pytest.raises(ValueError) as error:
        (aws_connect if cloud == "aws" else gcp_connect)(backend="moto")
    assert str(error.value) == f"backend must be one of {expected}; got 'moto'"


@pytest.mark.parametrize("module", ["pulumi_hyperpod.aws.client", "pulumi_hyperpod.gcp.client"])
def test_connect_names_no_backend_itself(module):
    """No `backend == "fake"` chain in connect: what each name means is the registry's."""
    import importlib

    tree = ast.parse(inspect.getsource(importlib.import_module(module).connect))
    named = [
        node.value
        for compare in ast.walk(tree)
        if isinstance(compare, ast.Compare)
        for node in [compare.left, *compare.comparators]
        if isinstance(node, ast.Constant) and node.value in ("aws", "gcp", "fake", "sim")
    ]
    assert named == []


def test_the_real_cloud_loads_no_simulator():
    code = (
        "import json, sys\nfrom pulumi_hyperpod import connect\nconnect('aws', 'us-west-2')\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pulumi_hyperpod.sim'))))"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "AWS_ACCESS_KEY_ID": "x", "AWS_SECRET_ACCESS_KEY": "y"}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout.splitlines()[-1]) == []


def test_a_simulator_given_to_the_real_cloud_is_an_error_not_an_aws_client():
    from pulumi_hyperpod import Simulator, connect

    with pytest.raises(ValueError, match="simulator= is answered by backend='fake'"):
        connect(simulator=Simulator())
