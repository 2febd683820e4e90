"""Test code run in a fresh Python process with this checkout first on its path: what a provider
process imports and does, seen where nothing was imported before it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from tests.support.paths import REPO


def warm_caches() -> None:
    """Make the on-disk caches a provider process reads (the cut model, the parsed model files a
    client is built from) in this process's environment, as any earlier process on the machine
    would have: a fresh process is then measured as every preview but a machine's very first sees
    it, whatever ran before the test (or another checkout's writes to the shared cache)."""
    from pulumi_hyperpod.aws import servicemodel, specshapes

    specshapes.load()
    loader = servicemodel.botocore_session().get_component("data_loader")
    loader.load_data("endpoints")
    for type_name in ("service-2", "endpoint-rule-set-1", "paginators-1", "waiters-2"):
        loader.load_service_model("sagemaker", type_name)


def run_fresh(code: str, stdin: str | None = None, cwd: Path = REPO) -> str:
    """The last line `code` printed, run with the caches warm (`warm_caches`); the test fails with
    the process's stderr when it exits non-zero."""
    warm_caches()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    proc = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[-1]


# A program declaring the demo cluster (root __main__.py) under Pulumi's mocks, as a fresh process
# runs it: the resource types registered are in `mocks.registered`.
DECLARE_DEMO = """
import json, sys
import pulumi
from pulumi.runtime.mocks import MockMonitor

class Mocks(pulumi.runtime.Mocks):
    registered = []
    def new_resource(self, args):
        self.registered.append(args.typ)
        return args.name + "-id", dict(args.inputs)
    def call(self, args):
        return {}, None

mocks = Mocks()
pulumi.runtime.set_mocks(mocks, project="demo", stack="dev", preview=True, monitor=MockMonitor(mocks))
from pulumi_hyperpod.components import (ComputeGroupArgs, ConnectionArgs, InstanceGroupArgs, LifecycleArgs,
                                        SlurmCluster, SlurmClusterArgs, VpcArgs)

@pulumi.runtime.test
def declared():
    cluster = SlurmCluster("demo", SlurmClusterArgs(
        cluster_name="demo-cluster",
        controller=InstanceGroupArgs("controller", 1, instance_type="ml.m5.xlarge"),
        compute=[ComputeGroupArgs("workers", 1, instance_type="ml.g5.xlarge", partitions=["dev"])],
        lifecycle=LifecycleArgs(s3_uri="s3://sagemaker-demo-lifecycle/lifecycle-scripts/src/"),
        execution_role_arn="arn:aws:iam::111122223333:role/demo-hyperpod-execution",
        vpc=VpcArgs(subnets=["subnet-0123456789abcdef0"], security_group_ids=["sg-0123456789abcdef0"]),
        connection=ConnectionArgs(backend="fake")))
    return cluster.arn

declared()
"""
