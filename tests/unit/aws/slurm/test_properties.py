"""Properties over many Slurm specs: both spellings load to the same spec, rendering is
deterministic, and the bundle's roles agree with SlurmConfig."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.slurm import SlurmSpec
from pulumi_hyperpod.aws.slurm.changes import diff_slurm
from pulumi_hyperpod.aws.slurm.render import render_hyperpod
from tests.support.slurm_examples import group

NAME = st.from_regex(r"[a-z][a-z0-9]{0,6}(-[a-z0-9]{1,4})?", fullmatch=True)
CONFIG = st.dictionaries(
    st.sampled_from(["PriorityWeightAge", "PriorityWeightQOS", "MaxJobCount", "BatchStartTimeout"]),
    st.integers(0, 60000).map(str),
    max_size=3,
)


@st.composite
def slurm_specs(draw):
    pools = draw(st.lists(NAME, min_size=3, max_size=7, unique=True))
    controller, login, compute = pools[0], pools[1], pools[2:]
    partitions = draw(
        st.lists(NAME, min_size=len(compute), max_size=len(compute), unique=True).filter(lambda names: "default" not in names)
    )
    spec = {
        "partitions": [{"id": pid, "node_pool_ids": [pool]} for pid, pool in zip(partitions, compute, strict=True)],
        "controller_node_pool_id": controller,
        "login_node_pool_id": login,
        "config": draw(CONFIG),
        "prolog_bash_scripts": draw(st.lists(st.text("abc xyz\n", min_size=1, max_size=20).filter(str.strip), max_size=3)),
    }
    if draw(st.booleans()):
        spec["default_partition_id"] = draw(st.sampled_from(partitions))
    return spec


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(slurm_specs(), st.booleans())
def test_spellings_roundtrip_and_rendering_agrees_with_itself(data, continuous):
    spec = SlurmSpec.from_dict(data, partition_names=partition_names())
    assert (
        SlurmSpec.from_dict(spec.to_dict("camel"), partition_names=partition_names())
        == spec
        == SlurmSpec.from_dict(spec.to_dict(), partition_names=partition_names())
    )
    assert diff_slurm(spec, SlurmSpec.from_dict(spec.to_dict("camel"), partition_names=partition_names())).empty
    names = [spec.controller_node_pool_id, spec.login_node_pool_id, *spec.compute_pools()]
    cluster = {"ClusterName": "c", "InstanceGroups": [group(n) for n in names]}
    if continuous:
        cluster["NodeProvisioningMode"] = "Continuous"
    one, two = render_hyperpod(cluster, spec), render_hyperpod(json.loads(json.dumps(cluster)), spec)
    assert one.files == two.files and one.digest == two.digest
    assert json.loads(one.files["slurm-spec.json"])["default_partition"] == spec.default_partition
    expected = {pool: spec.partitions_of(pool)[0] for pool in spec.compute_pools()}
    if continuous:  # API-driven: roles in SlurmConfig, no provisioning_parameters.json
        assert "provisioning_parameters.json" not in one.files
        configs = {g["InstanceGroupName"]: g["SlurmConfig"] for g in one.cluster_spec["InstanceGroups"]}
        assert {name: c.get("PartitionNames", [None])[0] for name, c in configs.items() if c["NodeType"] == "Compute"} == expected
        assert json.loads(one.files["slurm-spec.json"])["roles"] == {n: c["NodeType"] for n, c in configs.items()}
    else:
        params = json.loads(one.files["provisioning_parameters.json"])
        assert params["controller_group"] == spec.controller_node_pool_id and params["login_group"] == spec.login_node_pool_id
        assert {w["instance_group_name"]: w["partition_name"] for w in params["worker_groups"]} == expected
        assert all("SlurmConfig" not in g for g in one.cluster_spec["InstanceGroups"])
