"""Issue 12, item 3: the same field in both spellings is refused, naming both keys — at any level,
through the CLI, the Python API and the Pulumi provider's spec_file."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError
from tests.support.input_cli import SPECS, run


def _seed() -> dict:
    return json.loads((SPECS / "seed000-create-cluster.json").read_text())


def _groups_twice(data):
    data["instance_groups"] = data["InstanceGroups"][:2]
    return "InstanceGroups: is given twice, as 'InstanceGroups' and as 'instance_groups'"


def _name_twice(data):
    data["cluster_name"] = "another-cluster"
    return "ClusterName: is given twice, as 'ClusterName' and as 'cluster_name'"


def _snake_first(data):
    groups = data.pop("InstanceGroups")
    rest = dict(data)
    data.clear()
    data.update({"instance_groups": groups[:1], **rest, "InstanceGroups": groups})
    return "InstanceGroups: is given twice, as 'instance_groups' and as 'InstanceGroups'"


def _count_twice(data):
    data["InstanceGroups"][2]["instance_count"] = 2
    return "InstanceGroups[2].InstanceCount: is given twice, as 'InstanceCount' and as 'instance_count'"


def _deep_twice(data):
    data["InstanceGroups"][2]["LifeCycleConfig"]["on_create"] = "other.sh"
    return "InstanceGroups[2].LifeCycleConfig.OnCreate: is given twice, as 'OnCreate' and as 'on_create'"


def _two_snake_spellings(data):
    data["InstanceGroups"][2]["min_instance_count"] = 1
    data["InstanceGroups"][2]["MIN_INSTANCE_COUNT"] = 2
    return "InstanceGroups[2].MinInstanceCount: is given twice, as 'min_instance_count' and as 'MIN_INSTANCE_COUNT'"


CASES = [_groups_twice, _name_twice, _snake_first, _count_twice, _deep_twice, _two_snake_spellings]


@pytest.mark.parametrize("change", CASES, ids=[c.__name__ for c in CASES])
def test_python_api(change):
    data = _seed()
    expected = change(data)
    with pytest.raises(SpecError) as raised:
        ClusterSpec.from_dict(data)
    assert expected in str(raised.value)


@pytest.mark.parametrize("change", CASES, ids=[c.__name__ for c in CASES])
def test_cli_plan(world, tmp_path, change):
    data = _seed()
    expected = change(data)
    (tmp_path / "spec.json").write_text(json.dumps(data))
    result = run("plan", "-f", str(tmp_path / "spec.json"))
    assert result.code == 1 and expected in result.output, result.output


def test_provider_spec_file(tmp_path):
    from pulumi_hyperpod.provider.props import canonical_spec
    from pulumi_hyperpod.provider.resource import ClusterArgs, build_spec

    data = _seed()
    _groups_twice(data)
    (tmp_path / "spec.json").write_text(json.dumps(data))
    _, failures = canonical_spec(build_spec(ClusterArgs(spec_file=str(tmp_path / "spec.json"))))
    assert any("InstanceGroups" in prop and "'instance_groups'" in reason for prop, reason in failures), failures


def test_one_spelling_either_way_is_fine():
    data = _seed()
    snake = {
        "cluster_name": data["ClusterName"],
        "instance_groups": data["InstanceGroups"],
        "node_provisioning_mode": "Continuous",
        "orchestrator": data["Orchestrator"],
        "vpc_config": data["VpcConfig"],
    }
    assert ClusterSpec.from_dict(snake).to_api() == ClusterSpec.from_dict(data).to_api()
