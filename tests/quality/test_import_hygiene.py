"""What a Pulumi preview's two Python processes import (issue 16): each module costs start-up and
exit time in both, so the program (which imports the components to declare the resource) and the
provider process (which unpickles `ClusterProvider` before `check`) load no more than they run.

Checked in fresh interpreters by `sys.modules`, never by timing: robust on a loaded machine.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from tests.support.fresh import DECLARE_DEMO as DECLARE_DEMO_UNDER_MOCKS, run_fresh
from tests.support.paths import REPO


# What neither process needs before it does real work: rendering (rich), the apply executor, deep
# comparison, the AWS SDK for Pulumi, the CLI, and the planner/observe/cost/preflight/simulator
# stack (the provider loads those in check/diff, the program never).
NEVER_AT_IMPORT = (
    "rich",
    "deepdiff",
    "pulumi_aws",
    "click",
    "pulumi_hyperpod.aws.apply.executor",
    "pulumi_hyperpod.cli",
    "pulumi_hyperpod.aws.pipeline",
    "pulumi_hyperpod.aws.saved",  # saved plans: only `plan --out` and `apply --plan` read or write one
    "pulumi_hyperpod.aws.planner.rules",
    "pulumi_hyperpod.plans.render",
    "pulumi_hyperpod.aws.observe.reader",
    "pulumi_hyperpod.aws.cost.estimate",
    "pulumi_hyperpod.aws.cost.metering",
    "pulumi_hyperpod.aws.preflight",
    "pulumi_hyperpod.sim.aws",
    "pulumi_hyperpod.aws.spec.models",
)

REPORT = """
import json, sys
loaded = sorted(name for name in {watched!r} if name in sys.modules)
servicemodel = sys.modules.get("pulumi_hyperpod.aws.servicemodel")
model_loaded = bool(servicemodel and servicemodel.service_model.cache_info().currsize)
print(json.dumps({{"loaded": loaded, "service_model": model_loaded, "modules": sorted(sys.modules)}}))
"""


def run(code: str, stdin: bytes | None = None) -> dict:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    proc = subprocess.run(
        [sys.executable, "-c", code + REPORT.format(watched=NEVER_AT_IMPORT)],
        input=stdin,
        capture_output=True,
        env=env,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    return json.loads(proc.stdout.decode().splitlines()[-1])


def test_importing_the_package_loads_none_of_it():
    """Only the old-paths finder (`_moved`: a table and a finder, no cloud module) comes with it."""
    found = run("import pulumi_hyperpod")
    ours = [name for name in found["modules"] if name.startswith("pulumi_hyperpod.")]
    assert ours == ["pulumi_hyperpod._moved"] and "botocore" not in found["modules"] and "pydantic" not in found["modules"]


def test_the_public_names_are_the_flow_s_functions_and_types():
    """docs/DESIGN.md's flow, spec → observe → plan → apply: the names are plain functions (no
    module standing in for one), and the packages they come from stay packages."""
    found = run(
        "import inspect, types, pulumi_hyperpod\n"
        "from pulumi_hyperpod import ClusterSpec, ClusterState, Plan, Policy, Simulator, SpecError, ApplyResult, apply, connect, observe, plan\n"
        "assert all(isinstance(f, types.FunctionType) for f in (apply, connect, observe, plan))\n"
        "assert [f.__module__ for f in (plan, observe, apply)] == ['pulumi_hyperpod.aws.planner.rules', "
        "'pulumi_hyperpod.aws.observe.reader', 'pulumi_hyperpod.aws.apply.executor']\n"
        "assert list(inspect.signature(plan).parameters)[:3] == ['desired', 'observed', 'policy']\n"
        "assert list(inspect.signature(observe).parameters)[:2] == ['client', 'name']\n"
        "assert list(inspect.signature(apply).parameters)[:2] == ['client', 'plan']\n"
        "import pulumi_hyperpod.aws.apply.waiters, pulumi_hyperpod.aws.observe.state\n"
        "assert isinstance(pulumi_hyperpod.aws.apply, types.ModuleType) and not callable(pulumi_hyperpod.aws.apply)\n"
        "assert isinstance(pulumi_hyperpod.aws.observe, types.ModuleType) and not callable(pulumi_hyperpod.aws.observe)\n"
        "assert type(pulumi_hyperpod.aws.apply) is types.ModuleType and type(pulumi_hyperpod) is types.ModuleType  # no class swap\n"
        "assert pulumi_hyperpod.plan is plan and pulumi_hyperpod.apply is apply  # the names stay the functions\n"
        "assert Plan.__module__ == 'pulumi_hyperpod.plans.model' and ClusterSpec.__name__ == 'ClusterSpec'\n"
        "assert Simulator.__module__ == 'pulumi_hyperpod.sim.aws.simulator'\n"
        "from pulumi_hyperpod.provider import Cluster, ClusterProvider, Settings, register_simulator\n"
    )
    assert "pulumi_hyperpod.aws.apply.executor" in found["modules"]


@pytest.mark.parametrize(
    "path", ["pulumi_hyperpod.aws.observe.reader", "pulumi_hyperpod.plans.render", "pulumi_hyperpod.aws.apply.executor"]
)
def test_dotted_paths_through_the_subpackages_resolve(path):
    """`import a.b.c as m`, mock.patch and pkgutil.resolve_name walk attributes from the top: a
    function standing in the subpackage's place made all three fail."""
    run(
        f"import {path} as module\n"
        f"import pkgutil, sys\nfrom unittest import mock\n"
        f"assert module is sys.modules[{path!r}]\n"
        f"assert pkgutil.resolve_name({path!r}) is module\n"
        f"with mock.patch({path + '.__doc__'!r}, 'patched'):\n    assert module.__doc__ == 'patched'\n"
    )


@pytest.mark.parametrize("module", ["pulumi_hyperpod.provider", "pulumi_hyperpod.components"])
def test_the_program_side_imports_only_what_declaring_a_cluster_needs(module):
    found = run(f"import {module}\nimport pulumi_hyperpod.provider.resource")
    assert found["loaded"] == []
    assert not found["service_model"]  # read when the first spec is converted, not at import


def test_unpickling_the_provider_loads_only_its_module():
    """What the provider process's `check` does first: dill.loads of the provider in the state."""
    pickled = subprocess.run(
        [
            sys.executable,
            "-c",
            "import dill, pickle, sys\nfrom pulumi_hyperpod.provider.provider import ClusterProvider\n"
            "sys.stdout.buffer.write(dill.dumps(ClusterProvider(), protocol=pickle.DEFAULT_PROTOCOL, recurse=True))",
        ],
        capture_output=True,
        check=True,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
    ).stdout
    found = run(
        "import dill, sys, pulumi.dynamic\nprovider = dill.loads(sys.stdin.buffer.read())\n"
        "assert type(provider).__name__ == 'ClusterProvider'",
        stdin=pickled,
    )
    assert found["loaded"] == [] and not found["service_model"]


# What the program process never needs to declare a cluster: the provider's `check` spells and
# validates the spec in its own process.
PROGRAM_NEVER = ("botocore", "boto3", "pydantic", "regex", "pulumi_hyperpod.aws.servicerules", "pulumi_hyperpod.core.documents")

DECLARE_DEMO = DECLARE_DEMO_UNDER_MOCKS + "print(sorted(m for m in NEVER if m in sys.modules))\n"


def test_declaring_the_demo_cluster_loads_no_botocore_pydantic_or_model():
    assert run_fresh(f"NEVER = {PROGRAM_NEVER!r}\n" + DECLARE_DEMO) == "[]"


@pytest.mark.parametrize("backend", ["fake", "aws"])
def test_making_a_client_loads_neither_boto3_nor_s3transfer(backend, tmp_path):
    """Clients are botocore's client class (what `boto3.client` returns), made by botocore itself:
    boto3 brings s3transfer along, 0.05-0.15 s of every process that makes a client."""
    found = run(
        "import os\n"
        f"os.environ['HYPERPOD_FAKE_STATE'] = {str(tmp_path / 'fake.sqlite')!r}\n"
        "from pulumi_hyperpod.aws.client import connect\n"
        f"client = connect({backend!r}, 'us-west-2')\n"
        "assert type(client).__module__ == 'botocore.client' and type(client).__name__ == 'SageMaker'\n"
        "assert client.meta.region_name == 'us-west-2' and client.can_paginate('list_cluster_nodes')\n"
    )
    assert "botocore" in found["modules"]
    assert "boto3" not in found["modules"] and "s3transfer" not in found["modules"]
