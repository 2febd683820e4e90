"""The CrossGuard pack (policies/crossguard) under the real engine: `pulumi preview --policy-pack`
on the YAML example's native cluster, on the simulator. The provider's preview returns the plan as
the resource's `plan` output, the pack hands it to the Rego rules through the real opa, and a
mandatory violation fails the preview — here against the stack's own resource policy, which allows
three quarters of a group to go where the organisation's pack allows half.

One flow: create 4 workers → scale-in to 1 denied (75% > 50%) → to 3 allowed → the same with the
removed node protected, denied → a scale-out over the cost ceiling denied → `up` under the pack
applies an allowed change.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.support.policy_tools import PACK, opa_path, policy_venv

from .conftest import REPO, STACK, EngineProject, copy_yaml_project, engine_env, require_yaml_host
from .stack import World

pytestmark = pytest.mark.engine

NAME = "yaml-training"


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    require_yaml_host(pulumi_cli)
    base = tmp_path_factory.mktemp("policy-pack")
    copy_yaml_project(REPO / "examples" / "yaml-cluster", base / "project")
    env = engine_env(base)
    env["HYPERPOD_OPA"] = opa_path()
    return EngineProject(root=base / "project", env=env)


@pytest.fixture(scope="module")
def pack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of policies/ whose pack runs in the cached virtualenv with pulumi-policy."""
    root = tmp_path_factory.mktemp("policies") / "policies"
    shutil.copytree(REPO / "policies", root, ignore=shutil.ignore_patterns("venv", "__pycache__"))
    settings = yaml.safe_load((PACK / "PulumiPolicy.yaml").read_text())
    settings["runtime"]["options"]["virtualenv"] = str(policy_venv())
    (root / "crossguard" / "PulumiPolicy.yaml").write_text(yaml.safe_dump(settings, sort_keys=False))
    return root / "crossguard"


@pytest.fixture(scope="module")
def world(project: EngineProject) -> World:
    return World(project)


def preview(project: EngineProject, pack: Path, workers: int, config: dict[str, Any] | None = None):
    project.config_set("workerCount", str(workers))
    args = ["preview", "--policy-pack", str(pack)]
    if config is not None:
        path = project.root.parent / f"pack-config-{len(project.results)}.json"
        path.write_text(json.dumps(config))
        args += ["--policy-pack-config", str(path)]
    return project.run(*args, check=False)


def violations(output: str) -> list[str]:
    return [line.strip() for line in output.splitlines() if line.strip().startswith("cluster yaml-training:")]


def test_1_create_four_workers(project: EngineProject, world: World) -> None:
    project.run("stack", "init", STACK)
    project.config_set("workerCount", "4")
    project.run("up", "--yes", "--skip-preview")
    assert world.targets(NAME) == {"controller": 1, "workers": 4}


def test_2_a_scale_in_of_three_quarters_is_denied_by_the_pack(project: EngineProject, pack: Path, world: World) -> None:
    result = preview(project, pack, 1)
    assert result.returncode != 0, result.describe()
    assert "hyperpod-scale-in-share" in result.output and "[mandatory]" in result.output, result.describe()
    assert violations(result.output) == [
        "cluster yaml-training: workers: removes 3 of 4 nodes (75%), more than the allowed share (50%) [scale-in-share]"
    ], result.describe()
    assert world.targets(NAME)["workers"] == 4  # a preview changes nothing


def test_3_a_scale_in_of_one_quarter_is_allowed(project: EngineProject, pack: Path) -> None:
    result = preview(project, pack, 3)
    assert result.returncode == 0, result.describe()
    assert "hyperpod-plan" in result.output and not violations(result.output), result.describe()


def test_4_the_same_scale_in_with_its_victim_protected_is_denied(project: EngineProject, pack: Path, world: World) -> None:
    workers = sorted(world.node_ids(NAME, "workers"))
    assert len(workers) == 4
    result = preview(project, pack, 3, {"hyperpod-protected-nodes": {"protected_node_ids": workers}})
    assert result.returncode != 0, result.describe()
    [line] = violations(result.output)
    assert "the plan removes protected node i-" in line and line.endswith("[protected-node]"), result.describe()
    assert any(node in line for node in workers)


def test_5_a_scale_out_over_the_cost_ceiling_is_denied(project: EngineProject, pack: Path) -> None:
    result = preview(project, pack, 6, {"hyperpod-cost-ceiling": {"max_hourly_cost_increase": 1.0}})
    assert result.returncode != 0, result.describe()
    [line] = violations(result.output)
    assert "the cluster's cost rises by 2.82 USD/hour, more than the ceiling of 1" in line, result.describe()
    allowed = preview(project, pack, 6, {"hyperpod-cost-ceiling": {"max_hourly_cost_increase": 5.0}})
    assert allowed.returncode == 0 and not violations(allowed.output), allowed.describe()


def test_6_up_under_the_pack_applies_an_allowed_change(project: EngineProject, pack: Path, world: World) -> None:
    project.config_set("workerCount", "3")
    project.run("up", "--yes", "--policy-pack", str(pack))
    assert world.targets(NAME)["workers"] == 3
    [state] = [r for r in project.export()["deployment"]["resources"] if r["type"] == "hyperpod:index:Cluster"]
    assert "plan" not in state.get("outputs", {})  # only previews carry the plan
