"""Cluster extensions in the simulator (sim/aws/extensions.py), through the real botocore client: the
lifecycle in simulated time, the errors the model names, the versions the scenario offers, and a
world that keeps its extensions (and one written before extensions still loading)."""

from __future__ import annotations

import json

import botocore.exceptions
import pytest

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.sim_helpers import eks_request, group, seed000_request

OBS = "sagemaker-observability"
OFFERS = {
    "cluster_extensions": {
        OBS: {
            "versions": ["1.0.0", "1.2.0", "1.10.0"],
            "default_configuration": {"metricsProvider": {"nodeMetrics": {"level": "BASIC"}}, "logs": True},
        },
    },
    "speed": 0,
}


def _slurm(make_sim, scenario=OFFERS):
    sim, client = make_sim(scenario)
    client.create_cluster(**seed000_request("slurm", workers=2))
    sim.advance(1200)
    return sim, client, client.describe_cluster(ClusterName="slurm")["ClusterArn"]


def _code(error: pytest.ExceptionInfo) -> str:
    return error.value.response["Error"]["Code"]


def _describe(client, cluster: str, arn: str) -> dict:
    return client.describe_cluster_extension(ClusterArn=cluster, ExtensionArn=arn)


def _listed(client, cluster: str) -> list[tuple[str, str, str]]:
    return [
        (e["ExtensionName"], e["ExtensionVersion"], e["Status"]) for e in client.list_cluster_extensions(ClusterArn=cluster)["Extensions"]
    ]


def test_an_extension_is_created_then_active_then_updated_then_deleted_and_gone(make_sim):
    sim, client, cluster = _slurm(make_sim)
    arn = client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS)["ExtensionArn"]
    assert arn.startswith(f"arn:aws:sagemaker:us-west-2:123456789012:extension/{OBS}/")
    creating = _describe(client, cluster, arn)
    assert creating["ExtensionDetails"]["Status"] == "Creating"
    assert creating["ExtensionDetails"]["ExtensionVersion"] == "1.10.0"  # no version: the latest (10 > 2: numeric, not text)
    assert creating["NodeSummary"]["ActiveCount"] < creating["NodeSummary"]["TotalCount"] == 4  # controller, login, 2 workers
    assert json.loads(creating["ExtensionDetails"]["ConfigurationValues"]) == OFFERS["cluster_extensions"][OBS]["default_configuration"]
    sim.advance(299)
    assert _listed(client, cluster) == [(OBS, "1.10.0", "Creating")]
    sim.advance(1)
    active = _describe(client, cluster, arn)
    assert active["ExtensionDetails"]["Status"] == "Active"
    assert active["NodeSummary"] == {"TotalCount": 4, "ActiveCount": 4}
    assert active["Health"] == {"Issues": []}

    change = {"metricsProvider": {"nodeMetrics": {"level": "ADVANCED"}}, "logs": None}
    client.update_cluster_extension(ClusterArn=cluster, ExtensionArn=arn, ConfigurationValues=json.dumps(change))
    updating = _describe(client, cluster, arn)["ExtensionDetails"]
    assert updating["Status"] == "Updating"
    # given settings change, a null one goes back to its default
    assert json.loads(updating["ConfigurationValues"]) == {"metricsProvider": {"nodeMetrics": {"level": "ADVANCED"}}, "logs": True}
    sim.advance(300)
    client.delete_cluster_extension(ClusterArn=cluster, ExtensionArn=arn)
    assert _listed(client, cluster) == [(OBS, "1.10.0", "Deleting")]
    sim.advance(120)
    assert _listed(client, cluster) == []
    with pytest.raises(botocore.exceptions.ClientError) as gone:
        _describe(client, cluster, arn)
    assert _code(gone) == "ResourceNotFound"


def test_one_extension_of_a_name_per_cluster_and_a_new_one_after_deletion_has_a_new_arn(make_sim):
    sim, client, cluster = _slurm(make_sim)
    first = client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS, ExtensionVersion="1.0.0")["ExtensionArn"]
    with pytest.raises(botocore.exceptions.ClientError) as twice:
        client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS)
    assert _code(twice) == "ConflictException"
    with pytest.raises(botocore.exceptions.ClientError) as busy:
        client.delete_cluster_extension(ClusterArn=cluster, ExtensionArn=first)  # still Creating
    assert _code(busy) == "ResourceInUse"
    sim.advance(300)
    client.delete_cluster_extension(ClusterArn=cluster, ExtensionArn=first)
    with pytest.raises(botocore.exceptions.ClientError) as deleting:
        client.update_cluster_extension(ClusterArn=cluster, ExtensionArn=first, ExtensionVersion="1.2.0")
    assert _code(deleting) == "ConflictException"
    sim.advance(120)
    second = client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS)["ExtensionArn"]
    assert second != first


def test_versions_are_offered_highest_first_and_only_forward(make_sim):
    sim, client, cluster = _slurm(make_sim)
    versions = client.list_cluster_extension_versions(ExtensionName=OBS)["ExtensionVersions"]
    assert [v["ExtensionVersion"] for v in versions] == ["1.10.0", "1.2.0", "1.0.0"]
    page = client.list_cluster_extension_versions(ExtensionName=OBS, MaxResults=2)
    rest = client.list_cluster_extension_versions(ExtensionName=OBS, NextToken=page["NextToken"])
    assert [v["ExtensionVersion"] for v in page["ExtensionVersions"] + rest["ExtensionVersions"]] == ["1.10.0", "1.2.0", "1.0.0"]
    assert client.list_cluster_extension_versions(ExtensionName="sagemaker-unknown")["ExtensionVersions"] == []

    arn = client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS, ExtensionVersion="1.2.0")["ExtensionArn"]
    sim.advance(300)
    for version in ("1.0.0", "1.1.0"):  # earlier; not offered
        with pytest.raises(botocore.exceptions.ClientError) as refused:
            client.update_cluster_extension(ClusterArn=cluster, ExtensionArn=arn, ExtensionVersion=version)
        assert _code(refused) == "ValidationException"
    client.update_cluster_extension(ClusterArn=cluster, ExtensionArn=arn, ExtensionVersion="1.10.0")
    assert _listed(client, cluster) == [(OBS, "1.10.0", "Updating")]


def test_the_default_scenario_offers_sagemaker_observability(make_sim):
    _, client = make_sim()
    assert client.list_cluster_extension_versions(ExtensionName=OBS)["ExtensionVersions"] == [{"ExtensionVersion": "1.0.0"}]


def test_clusters_that_cannot_take_extensions_and_bad_requests_are_refused(make_sim):
    sim, client, cluster = _slurm(make_sim)
    client.create_cluster(**eks_request("eks", [group("g", 1)]))
    client.create_cluster(**_all_or_nothing())
    sim.advance(1200)
    for name in ("eks", "batch"):
        with pytest.raises(botocore.exceptions.ClientError) as refused:
            client.create_cluster_extension(ClusterArn=client.describe_cluster(ClusterName=name)["ClusterArn"], ExtensionName=OBS)
        assert _code(refused) == "ConflictException"
        assert "Slurm" in refused.value.response["Error"]["Message"]
    cases = [
        ({"ExtensionName": "sagemaker-unknown"}, "ResourceNotFound"),
        ({"ExtensionName": OBS, "ConfigurationValues": "[1]"}, "ValidationException"),
        ({"ExtensionName": "Not_A_Name"}, "ValidationException"),  # the model's pattern
        ({"ExtensionName": OBS, "ExtensionVersion": "2.0.0"}, "ValidationException"),
    ]
    for request, code in cases:
        with pytest.raises(botocore.exceptions.ClientError) as refused:
            client.create_cluster_extension(ClusterArn=cluster, **request)
        assert _code(refused) == code, request
    missing = cluster[:-1] + ("a" if cluster[-1] != "a" else "b")
    with pytest.raises(botocore.exceptions.ClientError) as no_cluster:
        client.list_cluster_extensions(ClusterArn=missing)
    assert _code(no_cluster) == "ResourceNotFound"
    assert _listed(client, cluster) == []  # nothing was created by a refused request


def _all_or_nothing() -> dict:
    request = seed000_request("batch", workers=1)
    request.pop("NodeProvisioningMode")
    for item in request["InstanceGroups"]:
        item.pop("MinInstanceCount", None)
    return request


def test_a_client_token_repeats_the_first_answer_and_refuses_other_parameters(make_sim):
    _, client, cluster = _slurm(make_sim)
    first = client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS, ClientToken="t-1")["ExtensionArn"]
    again = client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS, ClientToken="t-1")["ExtensionArn"]
    assert again == first
    with pytest.raises(botocore.exceptions.ClientError) as other:
        client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS, ExtensionVersion="1.0.0", ClientToken="t-1")
    assert _code(other) == "ValidationException"


def test_list_filters_on_creation_time(make_sim):
    sim, client, cluster = _slurm(
        make_sim, {"cluster_extensions": {OBS: {"versions": ["1.0.0"]}, "sagemaker-other": {"versions": ["0.1.0"]}}, "speed": 0}
    )
    client.create_cluster_extension(ClusterArn=cluster, ExtensionName=OBS)
    sim.advance(60)
    later = sim.now()
    client.create_cluster_extension(ClusterArn=cluster, ExtensionName="sagemaker-other")

    def names(**filters) -> list[str]:
        return [e["ExtensionName"] for e in client.list_cluster_extensions(ClusterArn=cluster, **filters)["Extensions"]]

    assert names() == [OBS, "sagemaker-other"]
    assert names(CreationTimeAfter=later) == ["sagemaker-other"]
    assert names(CreationTimeBefore=later) == [OBS, "sagemaker-other"]  # at or before
    first = client.list_cluster_extensions(ClusterArn=cluster, MaxResults=1)
    assert [e["ExtensionName"] for e in client.list_cluster_extensions(ClusterArn=cluster, NextToken=first["NextToken"])["Extensions"]] == [
        "sagemaker-other"
    ]


def test_a_persistent_world_keeps_its_extensions_and_one_written_before_extensions_still_loads(tmp_path):
    path = tmp_path / "w.sqlite"
    sim = Simulator(path, scenario={"speed": 0})
    client = sim.client()
    client.create_cluster(**seed000_request("old", workers=1))
    client.create_cluster(**seed000_request("new", workers=1))
    sim.advance(1200)
    rows = dict(sim._store.conn.execute("SELECT json_extract(data, '$.name'), data FROM clusters").fetchall())
    assert all("extensions" not in json.loads(row) for row in rows.values())  # a world without any stores as before
    # a world written before extensions: no `cluster_extensions` in its scenario either
    sim._store.conn.execute("UPDATE meta SET value = json_remove(value, '$.cluster_extensions') WHERE key = 'scenario'")
    reader = Simulator(path)
    arn = reader.client().describe_cluster(ClusterName="new")["ClusterArn"]
    assert reader.client().list_cluster_extensions(ClusterArn=arn)["Extensions"] == []
    created = reader.client().create_cluster_extension(ClusterArn=arn, ExtensionName=OBS)["ExtensionArn"]
    later = Simulator(path)
    later.advance(300)
    assert _describe(later.client(), arn, created)["ExtensionDetails"]["Status"] == "Active"
