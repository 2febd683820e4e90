"""A spec's `Extensions` (aws/spec/extensions.py): taken out of the CreateCluster request before its
model check, each entry checked against CreateClusterExtension's input, one line per problem naming
the field and the rule."""

from __future__ import annotations

from typing import Any

import pytest

from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError
from pulumi_hyperpod.aws.spec.request import checked_request
from tests.support.factories import slurm_spec

OBS = "sagemaker-observability"


def _spec(extensions: Any, **changes: Any) -> dict[str, Any]:
    data = slurm_spec().to_api()
    data.update(changes)
    data["Extensions"] = extensions
    return data


def _problems(data: dict[str, Any]) -> list[str]:
    with pytest.raises(SpecError) as error:
        ClusterSpec.from_dict(data, source="cluster.json")
    return str(error.value).splitlines()


def test_extensions_are_not_sent_with_create_cluster_and_kept_in_the_spec_document() -> None:
    spec = ClusterSpec.from_dict(
        _spec(
            [
                {
                    "extension_name": OBS,
                    "ExtensionVersion": "1.0.0",
                    "ConfigurationValues": '{"logs": true}',
                    "Tags": [{"Key": "k", "Value": "v"}],
                }
            ]
        )
    )
    assert [e.name for e in spec.extensions] == [OBS] and spec.extensions[0].extension_version == "1.0.0"
    assert "Extensions" not in spec.to_api("CreateCluster")
    assert spec.to_spec()["Extensions"] == [
        {"ExtensionName": OBS, "ExtensionVersion": "1.0.0", "ConfigurationValues": '{"logs": true}', "Tags": [{"Key": "k", "Value": "v"}]}
    ]
    assert ClusterSpec.from_dict(spec.to_spec()) == spec  # a saved plan's spec reads back the same


def test_no_key_is_none_and_an_empty_list_is_none_wanted() -> None:
    assert slurm_spec().extensions is None
    assert "Extensions" not in slurm_spec().to_spec()
    assert ClusterSpec.from_dict(_spec([])).extensions == ()


@pytest.mark.parametrize(
    "extensions, line",
    [
        (
            [{"ExtensionName": OBS, "Version": "1.0.0"}],
            "cluster.json: Extensions[0].Version: is not a known field (allowed: ExtensionName, ExtensionVersion, ConfigurationValues, Tags)",
        ),
        (
            [{"ExtensionName": OBS}, {"extension_name": OBS}],
            f"cluster.json: Extensions[1].ExtensionName: {OBS} is also Extensions[0]: a cluster has one extension of a name",
        ),
        ([{"ExtensionName": OBS, "ExtensionVersion": 1}], "cluster.json: Extensions[0].ExtensionVersion: must be a string, got 1"),
        (
            [{"ExtensionName": OBS, "ExtensionVersion": "1.0"}],
            "cluster.json: Extensions[0].ExtensionVersion: '1.0' does not match the pattern",
        ),
        (
            [{"ExtensionName": OBS, "ConfigurationValues": "[1]"}],
            "cluster.json: Extensions[0].ConfigurationValues: must be a JSON object serialized as a string",
        ),
        ([{"ExtensionName": OBS, "ClientToken": "t"}], "cluster.json: Extensions[0].ClientToken: is set by the plan, not the spec"),
        ([{"ExtensionVersion": "1.0.0"}], "cluster.json: Extensions[0].ExtensionName: is required"),
        ([{"ExtensionName": OBS, "Tags": [{"Key": "k"}]}], "cluster.json: Extensions[0].Tags[0].Value: is required"),
        ("sagemaker-observability", "cluster.json: Extensions: must be a list of extensions, got str"),
        (["x"], "cluster.json: Extensions[0]: must be an object, got str"),
    ],
)
def test_each_problem_is_one_line_naming_the_file_the_field_and_the_rule(extensions: Any, line: str) -> None:
    assert any(problem.startswith(line) for problem in _problems(_spec(extensions))), _problems(_spec(extensions))


@pytest.mark.parametrize(
    "changes",
    [{"NodeProvisioningMode": None}, {"Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/k"}}}],
    ids=["not-continuous", "eks"],
)
def test_an_extension_on_a_cluster_the_service_refuses_is_refused(changes: dict[str, Any]) -> None:
    data = _spec([{"ExtensionName": OBS}], **changes)
    data = {k: v for k, v in data.items() if v is not None}
    _, problems = checked_request(data)
    assert ("Extensions", "extensions go only on a Slurm cluster with NodeProvisioningMode Continuous (CreateClusterExtension)") in problems
    _, problems = checked_request({**data, "Extensions": []})
    assert not [p for p in problems if p.path == "Extensions"]  # none wanted is no extension to refuse


def test_the_create_cluster_check_never_sees_extensions() -> None:
    """Before the split, the model check called `Extensions` an unknown CreateCluster member."""
    request, problems = checked_request(_spec([{"ExtensionName": OBS}]))
    assert problems == [] and request["Extensions"] == [{"ExtensionName": OBS}]
