"""Cluster extensions through the dynamic provider under the real engine (issue 41): a Python program
whose spec adds an extension, then removes it (`Extensions: []`); each `pulumi up` makes the extension
call the plan shows, and the preview after each is empty."""

from __future__ import annotations

import pytest

from pulumi_hyperpod import connect
from pulumi_hyperpod.sim.aws import Simulator

from .conftest import STACK, EngineProject, copy_demo_project, engine_env, with_spec_helpers

pytestmark = pytest.mark.engine

OBS = "sagemaker-observability"
PROGRAM = """
from pulumi_hyperpod.provider import Cluster

@@SPEC_HELPERS@@

wanted = spec("extensions-engine", 1)
wanted.update(NodeProvisioningMode="Continuous", Orchestrator={"Slurm": {}}, Extensions=EXTENSIONS)
Cluster("demo", spec=wanted, backend="fake")
"""


def _program(extensions: str) -> str:
    return with_spec_helpers(PROGRAM).replace("EXTENSIONS", extensions)


def _installed(project: EngineProject) -> list[str]:
    client = connect(backend="fake", simulator=Simulator(path=project.world_path))
    arn = client.describe_cluster(ClusterName="extensions-engine")["ClusterArn"]
    return [e["ExtensionName"] for e in client.list_cluster_extensions(ClusterArn=arn)["Extensions"]]


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    base = tmp_path_factory.mktemp("extensions")
    copy_demo_project(base / "project")
    project = EngineProject(root=base / "project", env=engine_env(base))
    project.run("stack", "init", STACK)
    return project


def test_a_cluster_created_with_an_extension_then_previewed_empty(project: EngineProject) -> None:
    project.write_program(_program(f'[{{"ExtensionName": "{OBS}"}}]'))
    up = project.run("up", "--yes", timeout=600)
    assert "CreateClusterExtension" in up.output, up.describe()
    assert _installed(project) == [OBS]
    preview = project.run("preview", "--diff")
    assert "CreateClusterExtension" not in preview.output and "~ " not in preview.output, preview.describe()


def test_the_extension_removed_then_previewed_empty(project: EngineProject) -> None:
    project.write_program(_program("[]"))
    preview = project.run("preview")
    assert "DeleteClusterExtension" in preview.output, preview.describe()
    project.run("up", "--yes", timeout=600)
    assert _installed(project) == []
    again = project.run("preview", "--diff")
    assert "DeleteClusterExtension" not in again.output and "~ " not in again.output, again.describe()
