"""Errors the user can act on, under the real engine and the SDK's dynamic provider host: `pulumi up`
shows the provider's one-line message, no Python traceback (provider/errors.py). One flow: a
scale-in the policy refuses, then a create of a name another stack resource already holds.
"""

from __future__ import annotations

import pytest

from .conftest import STACK, EngineProject, copy_demo_project, engine_env, with_spec_helpers

pytestmark = pytest.mark.engine

PROGRAM = """
import pulumi
from pulumi_hyperpod.provider import Cluster

@@SPEC_HELPERS@@

WORKERS, TWIN = {workers}, {twin}
Cluster("errors", spec=spec("errors-cluster", WORKERS), backend="fake", wait="Target",
        policy={"max_scale_in_fraction": 0.5})
if TWIN:
    Cluster("twin", spec=spec("errors-cluster", 1), backend="fake")
"""


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    base = tmp_path_factory.mktemp("provider-errors")
    copy_demo_project(base / "project")
    return EngineProject(root=base / "project", env=engine_env(base))


def write(project: EngineProject, workers: int, twin: bool = False) -> None:
    project.write_program(with_spec_helpers(PROGRAM).replace("{workers}", str(workers)).replace("{twin}", str(twin)))


def error_lines(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if "error:" in line]


def test_refused_plan_and_existing_cluster_show_one_line_and_no_traceback(project: EngineProject) -> None:
    project.run("stack", "init", STACK)
    write(project, workers=4)
    project.run("up", "--yes", "--skip-preview")

    write(project, workers=1)  # 3 of 4 workers: over the policy's half
    refused = project.run("up", "--yes", "--skip-preview", check=False)
    assert refused.returncode != 0, refused.describe()
    assert "Traceback" not in refused.output, refused.describe()
    # the message as the provider words it: its first line, then one line per refusal
    assert "error: cluster errors-cluster: the plan is refused by policy:" in error_lines(refused.output), refused.describe()
    assert "  [max-scale-in-fraction] workers: removing 3 of 4 nodes (75%)" in refused.output, refused.describe()
    assert "ProviderError" not in refused.output, refused.describe()

    write(project, workers=4, twin=True)  # a second resource for the same cluster name
    taken = project.run("up", "--yes", "--skip-preview", check=False)
    assert taken.returncode != 0, taken.describe()
    assert "Traceback" not in taken.output, taken.describe()
    assert any("already exists" in line for line in error_lines(taken.output)), taken.describe()

    write(project, workers=4)
    project.run("destroy", "--yes")
