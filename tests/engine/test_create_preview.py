"""A create's preview under the real engine (issue 39): `pulumi preview` of a program creating a
cluster whose name is already live in the simulated world fails — before any `up` — with the line
`up` would fail with, one line, no traceback; nothing is created or changed. The dynamic `Cluster`
(a Python program) says `adopt=True`; the native provider, from Pulumi YAML, names the input in
each SDK's spelling."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.core.messages import CLUSTER_NAME_TAKEN, NO_AWS_REGION

from tests.support.provider_specs import mutations, settled_world, slurm_spec

from .conftest import REPO, STACK, EngineProject, copy_demo_project, copy_yaml_project, engine_env, require_yaml_host, with_spec_helpers

pytestmark = pytest.mark.engine

PROGRAM = """
from pulumi_hyperpod.provider import Cluster

@@SPEC_HELPERS@@

Cluster("demo", spec=spec("demo-cluster", 2), backend="fake"{adopt})
"""


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    base = tmp_path_factory.mktemp("create-preview")
    copy_demo_project(base / "project")
    return EngineProject(root=base / "project", env=engine_env(base))


def test_preview_of_a_create_whose_name_is_live_fails_with_the_adopt_line(project: EngineProject) -> None:
    world = settled_world(project.world_path)  # demo-cluster, InService, made outside this stack
    live = world.client().describe_cluster(ClusterName="demo-cluster")
    before = len(mutations(world))
    project.run("stack", "init", STACK)
    project.write_program(with_spec_helpers(PROGRAM).replace("{adopt}", ""))

    preview = project.run("preview", check=False)
    assert preview.returncode != 0, preview.describe()
    line = CLUSTER_NAME_TAKEN.text(
        "python", name="demo-cluster", where="us-west-2 (simulator)", arn=live["ClusterArn"], status=live["ClusterStatus"]
    )
    assert f"error: {line}" in [text.strip() for text in preview.output.splitlines()], preview.describe()
    assert "Traceback" not in preview.output and "Plan for cluster demo-cluster: create" not in preview.output, preview.describe()
    assert len(mutations(world)) == before


def test_with_adopt_the_preview_shows_the_plan_against_the_live_cluster(project: EngineProject) -> None:
    spec = json.dumps(slurm_spec(workers=3))  # the live cluster's spec (a Python literal too), one more worker
    project.write_program(f"from pulumi_hyperpod.provider import Cluster\nCluster('demo', spec={spec}, backend='fake', adopt=True)\n")
    preview = project.run("preview")
    assert "adopting arn:aws:sagemaker:" in preview.output, preview.describe()
    assert "BatchAddClusterNodes" in preview.output and "CreateCluster" not in preview.output, preview.describe()


def test_with_no_region_the_preview_fails_with_the_region_line_not_a_plan_priced_elsewhere(project: EngineProject) -> None:
    project.write_program(with_spec_helpers(PROGRAM).replace('backend="fake"{adopt}', 'backend="aws"'))
    saved = dict(project.env)
    for name in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        project.env.pop(name, None)
    try:
        preview = project.run("preview", check=False)
    finally:
        project.env.clear()
        project.env.update(saved)
    assert preview.returncode != 0, preview.describe()
    assert f"error: {NO_AWS_REGION.text('python')}" in [text.strip() for text in preview.output.splitlines()], preview.describe()
    assert "Plan for cluster" not in preview.output, preview.describe()


@pytest.fixture(scope="module")
def yaml_project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    require_yaml_host(pulumi_cli)
    base = tmp_path_factory.mktemp("create-preview-yaml")
    copy_yaml_project(REPO / "examples" / "yaml-cluster", base / "project")
    return EngineProject(root=base / "project", env=engine_env(base))


def test_the_native_providers_preview_fails_with_its_own_adopt_line(yaml_project: EngineProject) -> None:
    world = settled_world(yaml_project.world_path)
    made = world.client().create_cluster(**slurm_spec(name="yaml-training"))  # the example's cluster name
    world.advance(900)
    live = world.client().describe_cluster(ClusterName=made["ClusterArn"])
    before = len(mutations(world))
    yaml_project.run("stack", "init", STACK)

    preview = yaml_project.run("preview", check=False)
    assert preview.returncode != 0, preview.describe()
    line = CLUSTER_NAME_TAKEN.text(
        "native", name="yaml-training", where="us-west-2 (simulator)", arn=live["ClusterArn"], status=live["ClusterStatus"]
    )
    assert f"error: {line}" in [text.strip() for text in preview.output.splitlines()], preview.describe()
    assert "Traceback" not in preview.output, preview.describe()
    assert len(mutations(world)) == before
