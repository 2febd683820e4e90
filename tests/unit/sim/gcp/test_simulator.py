"""The simulator behind the real client: lifecycle on the virtual clock, google.rpc.Status errors,
update-mask rules, pagination, and one world shared through SQLite."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.gcp.client import (
    GcpApiError,
    OperationFailed,
    OperationTimeout,
    connect,
)
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.gcp.spec.keys import to_camel
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.spec import ClusterSpec

from tests.support.gcp import NAME, a4

PARENT = NAME.rsplit("/", 2)[0]


def create(client, doc, cluster_id="llmtrain", wait=True):
    spec = ClusterSpec.from_document(doc)
    operation = client.create_cluster(PARENT, cluster_id, spec.body())
    return client.wait_operation(operation, 3600) if wait else operation


def api_error(call) -> GcpApiError:
    with pytest.raises(GcpApiError) as caught:
        call()
    return caught.value


def test_create_provisions_then_runs(client, doc):
    operation = create(client, doc, wait=False)
    assert operation["name"].startswith(NAME + "/operations/") and not operation.get("done")
    state = observe(client, NAME)
    assert state.state == "PROVISIONING"
    assert {p.id: [n[2] for n in p.nodes] for p in state.pools} == {"login": ["PREPARING"], "a4": ["PREPARING"] * 2}
    done = client.wait_operation(operation, 3600)
    assert done["done"] and done["response"]["clusterStatus"]["state"] == "RUNNING"
    assert done["response"]["@type"].endswith("ModelDevelopmentCluster")
    state = observe(client, NAME)
    assert state.state == "RUNNING" and {p.id: p.running for p in state.pools} == {"login": 1, "a4": 2}
    resource = client.get_cluster(NAME)
    assert resource["startTime"] and resource["runtimeSpec"]["serviceAccount"].endswith("gserviceaccount.com")
    assert resource["clusterStatus"]["nodesStatus"][0]["nodePoolType"] == "NODE_POOL_TYPE_LOGIN"
    # proto3 JSON: a field at its zero value is left out (a4's enable_public_ips is false)
    assert resource["nodePools"][0]["enablePublicIps"] is True and "enablePublicIps" not in resource["nodePools"][1]


def test_create_twice_is_already_exists(client, doc):
    create(client, doc)
    error = api_error(lambda: create(client, doc))
    assert (error.status, error.http_status) == ("ALREADY_EXISTS", 409)


def test_invalid_body_names_the_field(client, doc):
    a4(doc)["scaling_spec"] = {"min_node_count": 2, "max_node_count": 2}
    body = to_camel(ClusterSpec.from_document(doc).body())
    body["nodePools"][1]["scalingSpec"]["minNodeCount"] = 3
    error = api_error(lambda: client.create_cluster(PARENT, "llmtrain", body))
    assert error.status == "INVALID_ARGUMENT" and error.http_status == 400
    assert error.field_violations[0][0] == "node_pools[1].scaling_spec.min_node_count"
    assert "node_pools[1].scaling_spec.min_node_count" in str(error)


def test_bad_cluster_id_is_invalid(client, doc):
    error = api_error(lambda: create(client, doc, cluster_id="llm-train"))
    assert error.status == "INVALID_ARGUMENT" and "model_development_cluster_id" in str(error)


def test_patch_while_provisioning_is_failed_precondition(client, doc):
    create(client, doc, wait=False)
    error = api_error(lambda: client.patch_cluster(NAME, ["display_name"], {"display_name": "x"}))
    assert error.status == "FAILED_PRECONDITION" and "PROVISIONING" in error.message


@pytest.mark.parametrize(
    "mask, words",
    [
        (["network"], "network is immutable"),
        (["orchestratorSpec.slurmSpec.homeDirectoryStorage"], "home_directory_storage is immutable"),
        (["node_pools.scaling_spec"], "not a field that can be updated"),
        ([], "required"),
    ],
)
def test_mask_rules(client, doc, mask, words):
    create(client, doc)
    error = api_error(lambda: client.patch_cluster(NAME, mask, {"display_name": "x"}))
    assert error.status == "INVALID_ARGUMENT" and words in error.message
    assert error.field_violations[0][0] == "update_mask"


def test_a_pool_sent_under_its_id_with_another_machine_spec_is_refused_and_nothing_changes(client, doc):
    """machineSpec is immutable (magic-modules): the service refuses the PATCH; no node is touched."""
    create(client, doc)
    before = observe(client, NAME)
    pools = to_camel(ClusterSpec.from_document(doc).body())["nodePools"]
    pools[1]["machineSpec"] = {"machineType": "a3-megagpu-8g"}
    pools[1]["provisioningModel"] = "ON_DEMAND"
    error = api_error(lambda: client.patch_cluster(NAME, ["node_pools"], {"nodePools": pools}))
    assert error.status == "INVALID_ARGUMENT" and "node_pools[1].machine_spec" in error.message and "immutable" in error.message
    after = observe(client, NAME)
    assert after.pool("a4").machine_type == before.pool("a4").machine_type and after.pool("a4").nodes == before.pool("a4").nodes


def test_an_autoscaled_pool_starts_at_its_minimum_and_stays_in_range(client, doc):
    a4(doc)["scaling_spec"] = {"min_node_count": 1, "max_node_count": 3}
    create(client, doc)
    assert len(observe(client, NAME).pool("a4").nodes) == 1
    body = ClusterSpec.from_document(doc).body()
    body["node_pools"][1]["scaling_spec"] = {"min_node_count": 2, "max_node_count": 4}
    client.wait_operation(client.patch_cluster(NAME, ["node_pools"], {"node_pools": body["node_pools"]}), 3600)
    pool = observe(client, NAME).pool("a4")
    assert len(pool.nodes) == 2 and pool.target == 4 and pool.minimum == 2 and pool.autoscaled


def test_the_resource_has_no_etag_and_a_body_with_one_is_an_unknown_field(client, doc):
    """ModelDevelopmentCluster has no etag (magic-modules' ModelDevelopmentCluster.yaml lists none):
    the simulator shows none, and a body carrying one is refused as proto3 JSON refuses an unknown
    name, changing nothing."""
    create(client, doc)
    assert observe(client, NAME).etag is None and "etag" not in client.get_cluster(NAME)
    error = api_error(lambda: client.patch_cluster(NAME, ["display_name"], {"display_name": "second", "etag": 'W/"x"'}))
    assert error.status == "INVALID_ARGUMENT" and 'Unknown name "etag"' in error.message
    assert observe(client, NAME).body["display_name"] != "second"


def test_patch_updates_then_runs_and_the_service_picks_who_leaves(client, doc):
    create(client, doc)
    body = ClusterSpec.from_document(doc).body()
    body["node_pools"][1]["scaling_spec"] = {"min_node_count": 4, "max_node_count": 4}
    client.wait_operation(client.patch_cluster(NAME, ["node_pools"], {"node_pools": body["node_pools"]}), 3600)
    before = {n[0] for n in observe(client, NAME).pool("a4").nodes}
    body["node_pools"][1]["scaling_spec"] = {"min_node_count": 1, "max_node_count": 1}
    operation = client.patch_cluster(NAME, ["nodePools"], {"nodePools": to_camel(body["node_pools"])})
    during = observe(client, NAME)
    assert during.state == "UPDATING"
    assert sorted(n[2] for n in during.pool("a4").nodes) == ["RUNNING", "UPDATING", "UPDATING", "UPDATING"]
    client.wait_operation(operation, 3600)
    after = observe(client, NAME).pool("a4")
    assert len(after.nodes) == 1 and after.running == 1 and after.nodes[0][0] in before
    assert after.nodes[0][0] == min(before)  # the oldest stays: the service removes the newest


def test_patch_keeps_fields_out_of_the_mask(client, doc):
    create(client, doc)
    client.wait_operation(client.patch_cluster(NAME, ["display_name"], {"displayName": "renamed", "labels": {"a": "b"}}), 3600)
    resource = client.get_cluster(NAME)
    assert resource["displayName"] == "renamed" and "labels" not in resource


def test_delete_stops_then_is_gone(client, doc):
    create(client, doc)
    operation = client.delete_cluster(NAME)
    assert observe(client, NAME).state == "STOPPING"
    assert api_error(lambda: client.delete_cluster(NAME)).status == "FAILED_PRECONDITION"
    done = client.wait_operation(operation, 3600)
    assert done["response"]["@type"].endswith("google.protobuf.Empty")
    assert observe(client, NAME) is None
    assert api_error(lambda: client.get_cluster(NAME)).http_status == 404


def test_list_pages_through_every_cluster(client, sim, doc):
    for cluster_id in ("c1", "c2", "c3"):
        create(client, doc, cluster_id=cluster_id, wait=False)
    found = [c["name"].rsplit("/", 1)[1] for c in client.list_clusters(PARENT, page_size=1)]
    assert found == ["c1", "c2", "c3"]
    listed = [path for method, path in sim.adapter.requests if method == "GET" and "pageSize=1" in path]
    assert len(listed) == 3 and "pageToken=" in listed[-1]
    assert list(client.list_clusters("projects/my-project/locations/europe-west4")) == []


def test_bad_page_token_is_invalid(client):
    error = api_error(lambda: client._call("GET", PARENT + "/modelDevelopmentClusters", params={"pageToken": "zz"}))
    assert error.status == "INVALID_ARGUMENT"


def test_wait_gives_up_at_the_deadline(sim, doc):
    ticks = iter(range(0, 10_000, 100))
    client = connect("fake", simulator=sim, poll_seconds=0)
    client.monotonic = lambda: float(next(ticks))
    operation = create(client, doc, wait=False)
    with pytest.raises(OperationTimeout, match="not done after 250s"):
        client.wait_operation(operation, 250)


def test_two_simulators_on_one_file_share_the_world(tmp_path, doc):
    path = tmp_path / "gcp.sqlite"
    first = connect("fake", simulator=GcpSimulator(path), poll_seconds=0)
    create(first, doc)
    second = connect("fake", simulator=GcpSimulator(path), poll_seconds=0)
    assert observe(second, NAME).state == "RUNNING"


def test_not_enough_capacity_fails_a_create_into_error(doc):
    client = connect("fake", simulator=GcpSimulator(capacity={"a4-highgpu-8g": 1}), poll_seconds=0)
    operation = create(client, doc, wait=False)
    with pytest.raises(OperationFailed, match=r"RESOURCE_EXHAUSTED.*a4-highgpu-8g capacity.*need 2 node\(s\), 1 available"):
        client.wait_operation(operation, 3600)
    state = observe(client, NAME)
    assert state.state == "ERROR" and "capacity" in state.detail
    assert [n[2] for n in state.pool("a4").nodes] == ["ERROR", "ERROR"] and state.pool("login").running == 1


def test_not_enough_capacity_rolls_an_update_back(doc):
    client = connect("fake", simulator=GcpSimulator(capacity={"a4-highgpu-8g": 3}), poll_seconds=0)
    create(client, doc)
    body = ClusterSpec.from_document(doc).body()
    body["node_pools"][1]["scaling_spec"] = {"min_node_count": 4, "max_node_count": 4}
    operation = client.patch_cluster(NAME, ["node_pools"], {"node_pools": body["node_pools"]})
    with pytest.raises(OperationFailed, match="RESOURCE_EXHAUSTED"):
        client.wait_operation(operation, 3600)
    state = observe(client, NAME)
    assert state.state == "RUNNING" and "rolled back" in state.detail
    assert (state.pool("a4").target, state.pool("a4").running, len(state.pool("a4").nodes)) == (2, 2, 2)
