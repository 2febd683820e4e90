"""Task governance through a Python Pulumi program (the dynamic `ComputeQuota`, provider/governance.py)
under the real engine: a compute quota created, changed in one member (`pulumi up` updates it, one
UpdateComputeQuota), destroyed; after each `up`, `pulumi preview` shows no changes."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.paths import GOVERNANCE
from tests.support.sim_helpers import eks_request, group

from .conftest import STACK, EngineProject, copy_demo_project, engine_env

pytestmark = pytest.mark.engine

PROGRAM = """
import pulumi
from pulumi_hyperpod.provider import ComputeQuota

quota = ComputeQuota("team-a", spec={spec}, backend="fake")
pulumi.export("version", quota.version)
pulumi.export("arn", quota.arn)
"""


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    base = tmp_path_factory.mktemp("governance-python")
    copy_demo_project(base / "project")
    return EngineProject(root=base / "project", env=engine_env(base))


def _no_changes(project: EngineProject) -> None:
    preview = project.run("preview", "--expect-no-changes")
    assert "UpdateComputeQuota" not in preview.output and "CreateComputeQuota" not in preview.output, preview.describe()


def test_a_quota_created_changed_and_destroyed_each_re_preview_empty(project: EngineProject) -> None:
    world = Simulator(project.world_path, seed=0)
    client = world.client()
    client.create_cluster(**eks_request("ml", [group("workers", 2, "ml.g5.8xlarge")]))
    world.advance(1200)
    spec = json.loads((GOVERNANCE / "compute-quota.json").read_text())
    spec["ClusterArn"] = "ml"
    project.run("stack", "init", STACK)

    project.write_program(PROGRAM.format(spec=repr(spec)))
    up = project.run("up", "--yes")
    assert "+ 2 created" in up.output, up.describe()  # the stack and the quota
    assert project.run("stack", "output", "version").stdout.strip() == "1"
    _no_changes(project)

    spec["ComputeQuotaTarget"]["FairShareWeight"] = 20
    project.write_program(PROGRAM.format(spec=repr(spec)))
    preview = project.run("preview", "--diff")
    assert "~ 1 to update" in preview.output and "FairShareWeight" in preview.output, preview.describe()
    up = project.run("up", "--yes")
    assert "~ 1 updated" in up.output and "UpdateComputeQuota" in up.output, up.describe()
    assert project.run("stack", "output", "version").stdout.strip() == "2"
    quota_id = project.run("stack", "output", "arn").stdout.strip().rsplit("/", 1)[1]
    assert (
        Simulator(project.world_path).client().describe_compute_quota(ComputeQuotaId=quota_id)["ComputeQuotaTarget"]["FairShareWeight"]
        == 20
    )
    _no_changes(project)

    destroy = project.run("destroy", "--yes")
    assert "- 2 deleted" in destroy.output, destroy.describe()
    assert Simulator(project.world_path).client().list_compute_quotas()["ComputeQuotaSummaries"] == []
