"""The spec: seed 002's body loads in either spelling; every documented rule names its field path."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pulumi_hyperpod.gcp.spec import keys
from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError

from tests.support.gcp import NAME, a4, slurm


def violations(doc, **kw) -> list[tuple[str, str]]:
    with pytest.raises(GcpSpecError) as caught:
        ClusterSpec.from_document(doc, **kw)
    return caught.value.violations


def paths(doc, **kw) -> list[str]:
    return [path for path, _ in violations(doc, **kw)]


def test_seed_002_spec_loads_and_mixes_spellings(doc):
    spec = ClusterSpec.from_document(doc)
    assert spec.name == NAME
    assert [p.id for p in spec.node_pools] == ["login", "a4"]
    assert spec.slurm["config"]["PreemptMode"] == "REQUEUE"  # map keys kept as written
    assert spec.slurm["partitions"][0]["node_pool_ids"] == ["a4"]
    assert spec.body()["orchestrator_spec"]["slurm_spec"]["login_node_pool_id"] == "login"


def test_lower_camel_everywhere_is_the_same_spec(doc):
    camel = keys.to_camel(ClusterSpec.from_document(doc).body())
    assert "nodePools" in camel and "slurmSpec" in camel["orchestratorSpec"]
    again = ClusterSpec.from_document({**camel, "name": NAME})
    assert again == ClusterSpec.from_document(doc)


def test_one_field_in_both_spellings_is_an_error(doc):
    a4(doc)["machineSpec"] = a4(doc)["machine_spec"]
    found = violations(doc)
    assert found[0][0] == "node_pools[1].machine_spec" and "twice" in found[0][1]


def test_unknown_field_is_named(doc):
    a4(doc)["scaling_spec"]["autoscale"] = True
    assert violations(doc) == [("node_pools[1].scaling_spec.autoscale", "unknown field (see the ModelDevelopmentCluster REST reference)")]


def test_min_may_not_be_above_max(doc):
    a4(doc)["scaling_spec"] = {"min_node_count": 4, "max_node_count": 1}
    ((path, rule),) = violations(doc)
    assert path == "node_pools[1].scaling_spec.min_node_count" and "is above" in rule


def test_an_autoscaling_range_is_a_valid_pool(doc):
    """Google's flex-start example: min 0, max 2 — the service's autoscaling range."""
    a4(doc)["scaling_spec"] = {"min_node_count": 0, "max_node_count": 2}
    assert ClusterSpec.from_document(doc).pool("a4").scaling_spec.min_node_count == 0


def test_a4x_pools_come_in_blocks_of_18(doc):
    pool = a4(doc)
    pool["machine_spec"]["machine_type"] = "a4x-highgpu-4g"
    pool["scaling_spec"] = {"min_node_count": 20, "max_node_count": 20}
    assert paths(doc) == ["node_pools[1].scaling_spec.max_node_count"]
    pool["scaling_spec"] = {"min_node_count": 36, "max_node_count": 36}
    ClusterSpec.from_document(doc)


@pytest.mark.parametrize("cluster_id", ["llm-train", "Llm", "1llm", "waytoolongid", ""])
def test_cluster_id_pattern_with_a_slurm_spec(doc, cluster_id):
    doc["name"] = NAME.rsplit("/", 1)[0] + "/" + cluster_id
    assert "name" in paths(doc)


def test_bare_id_needs_project_and_location(doc):
    doc["name"] = "llmtrain"
    ((path, rule),) = violations(doc)
    assert path == "name" and "--project and --location" in rule
    spec = ClusterSpec.from_document(doc, project="p1", location="us-central1")
    assert spec.name == "projects/p1/locations/us-central1/modelDevelopmentClusters/llmtrain"


def test_name_and_flags_must_agree(doc):
    assert paths(doc, location="us-east4") == ["name"]


def test_login_pool_must_exist_and_have_a_node(doc):
    slurm(doc)["login_node_pool_id"] = "logins"
    assert paths(doc) == ["orchestrator_spec.slurm_spec.login_node_pool_id"]
    slurm(doc)["login_node_pool_id"] = "login"
    doc["node_pools"][0]["scaling_spec"] = {"min_node_count": 0, "max_node_count": 0}
    assert paths(doc) == ["node_pools[0].scaling_spec.max_node_count"]


def test_partitions_reference_pools_and_the_default_a_partition(doc):
    slurm(doc)["partitions"].append({"id": "cpu", "node_pool_ids": ["cpu"]})
    slurm(doc)["default_partition_id"] = "gpu"
    assert paths(doc) == ["orchestrator_spec.slurm_spec.default_partition_id"]
    slurm(doc)["default_partition_id"] = "cpu"
    ((path, rule),) = violations(doc)
    assert path == "orchestrator_spec.slurm_spec.partitions[1].node_pool_ids[0]" and "'cpu' is not a node pool" in rule


def test_shared_slurm_rules_apply(doc):
    slurm(doc)["config"]["PreemptMode"] = "OFF"  # not with PreemptType=preempt/partition_prio
    assert paths(doc) == ["orchestrator_spec.slurm_spec.config.PreemptMode"]
    slurm(doc)["config"]["PreemptMode"] = "REQUEUE"
    slurm(doc)["controller_node_pool_id"] = "login"  # the service runs the controller itself
    assert paths(doc) == ["orchestrator_spec.slurm_spec.controller_node_pool_id"]


def test_home_directory_storage_is_a_filestore_name(doc):
    slurm(doc)["home_directory_storage"] = "training-home"
    assert paths(doc) == ["orchestrator_spec.slurm_spec.home_directory_storage"]


def test_provisioning_model_and_reservation_affinity(doc):
    pool = a4(doc)
    pool["provisioning_model"] = "SPOT"
    assert paths(doc) == ["node_pools[1].machine_spec.reservation_affinity"]
    del pool["machine_spec"]["reservation_affinity"]
    del pool["provisioning_model"]
    ((path, rule),) = violations(doc)
    assert path == "node_pools[1].provisioning_model" and "GPU" in rule


def test_errors_name_the_file(tmp_path, doc):
    a4(doc)["scaling_spec"] = {"min_node_count": 4, "max_node_count": 1}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(GcpSpecError) as caught:
        ClusterSpec.from_file(path)
    assert str(caught.value).startswith(f"{path}: node_pools[1].scaling_spec.min_node_count: ")
    path.write_text("{not json")
    with pytest.raises(GcpSpecError, match="not valid JSON"):
        ClusterSpec.from_file(path)


_names = st.from_regex(r"[a-z]{1,6}(_[a-z]{1,6}){0,3}", fullmatch=True)


@given(
    st.recursive(
        st.dictionaries(_names, st.integers(), max_size=3), lambda inner: st.dictionaries(_names, inner, max_size=3), max_leaves=12
    )
)
def test_spelling_round_trips(document):
    assert keys.to_snake(keys.to_camel(document)) == document
