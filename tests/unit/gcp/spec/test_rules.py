"""Fields as Google documents them: accelerators accepted and carried, every number bounded (the
simulator refuses beyond the bound instead of allocating), patterns and strict types — one error
per problem, naming the field path."""

from __future__ import annotations


import pytest

from pulumi_hyperpod.gcp.spec import limits
from pulumi_hyperpod.gcp.client import GcpApiError
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError

from tests.support.gcp import NAME, a4
from tests.support.paths import DATA

DATA = DATA / "gcp"
PARENT = NAME.rsplit("/", 2)[0]


def violations(doc) -> list[tuple[str, str]]:
    with pytest.raises(GcpSpecError) as caught:
        ClusterSpec.from_document(doc)
    return [(v.path, v.rule) for v in caught.value.violations]


def paths(doc) -> list[str]:
    return [path for path, _ in violations(doc)]


# ---- accelerators (every GPU example of the create-cluster page) ---------------------------------
def test_accelerators_are_accepted_sent_and_read_back(client):
    spec = ClusterSpec.from_file(DATA / "docs_gpu_filestore.json")
    machine = spec.body()["node_pools"][1]["machine_spec"]
    assert machine["accelerator_type"] == "NVIDIA_B200" and machine["accelerator_count"] == 8
    client.create_cluster(spec.resource_name().parent, spec.resource_name().cluster_id, spec.body())
    stored = observe(client, spec.name).pool_body("a4")["machine_spec"]
    assert stored["accelerator_type"] == "NVIDIA_B200" and stored["accelerator_count"] == 8


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("accelerator_type", "NVIDIA_B300X"),
        ("accelerator_count", 0),
        ("accelerator_count", limits.MAX_ACCELERATORS + 1),
        ("accelerator_count", "8.0"),
        ("accelerator_count", True),
    ],
)
def test_bad_accelerators_name_the_field(doc, field, value):
    a4(doc)["machine_spec"].update(accelerator_type="NVIDIA_B200", accelerator_count=8)
    a4(doc)["machine_spec"][field] = value
    assert paths(doc) == [f"node_pools[1].machine_spec.{field}"]


def test_accelerator_type_and_count_go_together(doc):
    a4(doc)["machine_spec"]["accelerator_type"] = "NVIDIA_H100_80GB"
    assert paths(doc) == ["node_pools[1].machine_spec"]


# ---- upper bounds ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("where", "value"),
    [
        (("scaling_spec", "min_node_count"), 10**12),
        (("scaling_spec", "max_node_count"), limits.MAX_POOL_NODES + 1),
        (("boot_disk", "boot_disk_size_gb"), 10**9),
        (("boot_disk", "boot_disk_size_gb"), 9),
    ],
)
def test_numbers_have_documented_bounds(doc, where, value):
    a4(doc).setdefault(where[0], {})[where[1]] = value
    assert f"node_pools[1].{where[0]}.{where[1]}" in paths(doc)


def test_the_simulator_refuses_a_huge_pool_instead_of_allocating(client, sim, doc):
    body = ClusterSpec.from_document(doc).body()
    body["node_pools"][1]["scaling_spec"] = {"min_node_count": 10**12, "max_node_count": 10**12}
    with pytest.raises(GcpApiError) as caught:
        client.create_cluster(PARENT, "llmtrain", body)
    assert caught.value.status == "INVALID_ARGUMENT" and "max_node_count" in str(caught.value)
    assert observe(client, NAME) is None


# ---- patterns, places and strict types ----------------------------------------------------------
@pytest.mark.parametrize(
    ("change", "path"),
    [
        (lambda d: a4(d)["machine_spec"].update(machine_type="[red]x"), "node_pools[1].machine_spec.machine_type"),
        (lambda d: a4(d).update(zone="europe-west4-a"), "node_pools[1].zone"),
        (lambda d: a4(d).update(zone="[b]us-central1-a"), "node_pools[1].zone"),
        (lambda d: d["network"].update(network="[bold]n"), "network.network"),
        (lambda d: d.update(network=None), "network"),
        (lambda d: d.update(labels={"Team": "a"}), "labels.Team"),
        (lambda d: d.update(labels={"team": "x" * 64}), "labels.team"),
        (lambda d: a4(d).update(enable_public_ips="no"), "node_pools[1].enable_public_ips"),
        (lambda d: a4(d).update(enable_public_ips="True"), "node_pools[1].enable_public_ips"),
        (lambda d: a4(d)["scaling_spec"].update(min_node_count="2.0", max_node_count="2"), "node_pools[1].scaling_spec.min_node_count"),
        (lambda d: a4(d)["scaling_spec"].update(min_node_count=True, max_node_count=True), "node_pools[1].scaling_spec.min_node_count"),
        (lambda d: d.update(display_name="a\x1b[31mb"), "display_name"),
        (
            lambda d: a4(d)["machine_spec"]["reservation_affinity"].update(values=["[red]r"]),
            "node_pools[1].machine_spec.reservation_affinity.values[0]",
        ),
    ],
)
def test_values_the_service_would_reject_name_their_path(doc, change, path):
    change(doc)
    assert path in paths(doc)


def test_proto3_json_string_forms_of_bools_and_integers_are_read_as_such(doc):
    """Google's pages write `"enable_public_ips": "true"`; proto3 JSON accepts a bool as "true" and a
    32/64-bit integer as a decimal string: the spec reads them as the service does."""
    a4(doc).update(enable_public_ips="true")
    a4(doc)["scaling_spec"].update(min_node_count="0", max_node_count="2")
    a4(doc)["boot_disk"]["boot_disk_size_gb"] = "300"
    body = ClusterSpec.from_document(doc).body()["node_pools"][1]
    assert body["enable_public_ips"] is True
    assert body["scaling_spec"] == {"min_node_count": 0, "max_node_count": 2}
    assert body["boot_disk"]["boot_disk_size_gb"] == 300


def test_a_bad_boolean_is_one_problem_saying_what_is_accepted(doc):
    a4(doc).update(enable_public_ips="yes")
    [(path, rule)] = violations(doc)
    assert path == "node_pools[1].enable_public_ips" and '"true"' in rule and "'yes'" in rule


def test_pool_ids_differing_only_in_case_are_refused(doc):
    doc["node_pools"].append({**a4(doc), "id": "A4"})
    assert "node_pools[2].id" in paths(doc)
