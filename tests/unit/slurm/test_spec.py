"""SlurmSpec: seed 002's slurmSpec block loads unchanged; every rule names its field path."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.slurm.spec import PartitionNames
from pulumi_hyperpod.slurm import (
    SlurmSpec,
    SlurmSpecError,
    check_references,
    reference_violations,
)
from pulumi_hyperpod.aws.spec import SpecError

SEED = Path(__file__).parent / "data" / "seed002_slurm_spec.json"


def seed() -> dict:
    return json.loads(SEED.read_text())


def problems(data, source=None) -> list[str]:
    with pytest.raises(SlurmSpecError) as caught:
        SlurmSpec.from_dict(data, source=source, partition_names=partition_names())
    return [str(v) for v in caught.value.violations]


def one_problem(data) -> str:
    found = problems(data)
    assert len(found) == 1, found
    return found[0]


def minimal(**extra) -> dict:
    return {"partitions": [{"id": "p", "node_pool_ids": ["a"]}], **extra}


# ---- the seed ------------------------------------------------------------------------------------


def test_seed_002_block_loads_unchanged():
    spec = SlurmSpec.from_file(SEED, partition_names=partition_names())
    assert [(p.id, p.node_pool_ids) for p in spec.partitions] == [("a4", ("a4",))]
    assert spec.default_partition == "a4"  # unset: the first partition
    assert spec.login_node_pool_id == "login"
    assert spec.home_storage.kind == "filestore"
    assert spec.config["PreemptMode"] == "REQUEUE"
    assert len(spec.prolog_bash_scripts) == 2 and len(spec.epilog_bash_scripts) == 1


def test_seed_002_document_with_orchestrator_spec_wrapper_loads(tmp_path):
    path = tmp_path / "cluster.yaml"
    path.write_text(json.dumps({"name": "c", "orchestratorSpec": {"slurmSpec": seed()}}))
    assert SlurmSpec.from_file(path, partition_names=partition_names()) == SlurmSpec.from_dict(seed(), partition_names=partition_names())


def test_lower_camel_spelling_gives_the_same_spec():
    spec = SlurmSpec.from_dict(seed(), partition_names=partition_names())
    camel = spec.to_dict("camel")
    assert "loginNodePoolId" in camel and "nodePoolIds" in camel["partitions"][0]
    assert SlurmSpec.from_dict(camel, partition_names=partition_names()) == spec
    assert SlurmSpec.from_dict(spec.to_dict(), partition_names=partition_names()) == spec


def test_yaml_numbers_are_accepted_as_slurm_values_but_yaml_booleans_are_not(tmp_path):
    path = tmp_path / "slurm.yaml"
    path.write_text("partitions: [{id: p, node_pool_ids: [a]}]\nconfig:\n  PriorityWeightAge: 1000\n  PriorityFavorSmall: true\n")
    with pytest.raises(SlurmSpecError) as caught:
        SlurmSpec.from_file(path, partition_names=partition_names())
    assert str(path) in str(caught.value)
    assert [str(v) for v in caught.value.violations] == [
        "config.PriorityFavorSmall: a slurm.conf value is a string (quote it in YAML); got bool True"
    ]


def test_a_slurm_spec_error_is_a_spec_error_and_says_slurm_spec():
    with pytest.raises(SpecError, match=re.escape("problem in the Slurm spec in s.json")):
        SlurmSpec.from_dict({}, source="s.json", partition_names=partition_names())


def test_unreadable_and_malformed_files(tmp_path):
    with pytest.raises(SlurmSpecError, match="no such file"):
        SlurmSpec.from_file(tmp_path / "missing.json", partition_names=partition_names())
    bad = tmp_path / "bad.json"
    bad.write_text('{"partitions": [], "partitions": []}')
    with pytest.raises(SlurmSpecError, match="appears twice"):
        SlurmSpec.from_file(bad, partition_names=partition_names())


# ---- field rules ---------------------------------------------------------------------------------


def test_both_spellings_of_one_field_name_both_keys():
    assert one_problem(minimal(login_node_pool_id="l", loginNodePoolId="l")) == (
        "loginNodePoolId: 'login_node_pool_id' and 'loginNodePoolId' are the same field spelled two ways; give it once"
    )
    found = one_problem({"partitions": [{"id": "p", "node_pool_ids": ["a"], "nodePoolIds": ["a"]}]})
    assert found.startswith("partitions[0].nodePoolIds: 'node_pool_ids' and 'nodePoolIds'")


def test_unknown_field_is_named_with_a_suggestion():
    assert one_problem(minimal(login_pool_id="l")).startswith("login_pool_id: is not a field of the Slurm spec (did you mean")


def test_partitions_are_required_and_non_empty():
    assert one_problem({}).startswith("partitions: is required")
    assert one_problem({"partitions": []}).startswith("partitions: must be a list of at least one partition")
    assert one_problem({"partitions": [{"id": "p"}]}) == "partitions[0].node_pool_ids: is required"


def test_partition_ids_are_unique():
    data = {"partitions": [{"id": "p", "node_pool_ids": ["a"]}, {"id": "p", "node_pool_ids": ["b"]}]}
    assert one_problem(data) == "partitions[1].id: 'p' is already the id of partitions[0]; partition ids must be unique"


@pytest.mark.parametrize("name", ["gpu_a", "-a", "a-", "a b", "é"])
def test_partition_names_follow_hyperpods_pattern(name):
    assert "is not a valid partition name" in one_problem({"partitions": [{"id": name, "node_pool_ids": ["a"]}]})


def test_the_partition_name_rule_is_the_loading_clouds():
    """The neutral layer holds no cloud's rule: the one passed decides, and its source is named."""
    data = {"partitions": [{"id": "gpu_a", "node_pool_ids": ["a"]}]}
    underscores = PartitionNames(pattern=r"[a-z_]+", maximum=8, words="lower-case letters and '_'", source="a test cloud's rule")
    assert SlurmSpec.from_dict(data, partition_names=underscores).partitions[0].id == "gpu_a"
    with pytest.raises(SlurmSpecError) as caught:
        SlurmSpec.from_dict({"partitions": [{"id": "far_too_long", "node_pool_ids": ["a"]}]}, partition_names=underscores)
    assert "at most 8 characters (a test cloud's rule [a-z_]+)" in str(caught.value)
    assert "HyperPod's PartitionName pattern" in one_problem(data)
    with pytest.raises(TypeError, match="partition-name rule"):
        SlurmSpec.model_validate(data)  # no rule: no cloud's is assumed


def test_default_is_a_reserved_partition_name():
    assert "reserved" in one_problem({"partitions": [{"id": "Default", "node_pool_ids": ["a"]}]})


def test_default_partition_must_be_one_of_the_partitions():
    assert one_problem(minimal(default_partition_id="q")) == "default_partition_id: 'q' is not one of the partitions ('p')"
    spec = SlurmSpec.from_dict(
        {"partitions": [{"id": "p", "node_pool_ids": ["a"]}, {"id": "q", "node_pool_ids": ["b"]}], "default_partition_id": "q"},
        partition_names=partition_names(),
    )
    assert spec.default_partition == "q"


def test_login_and_controller_pools_are_in_no_partition_and_differ():
    assert one_problem(minimal(login_node_pool_id="a")) == (
        "login_node_pool_id: 'a' is in partition partitions[0]; the login pool cannot be in a partition"
    )
    assert "controller pool cannot be in a partition" in one_problem(minimal(controller_node_pool_id="a"))
    assert "also the login pool" in one_problem(minimal(controller_node_pool_id="x", login_node_pool_id="x"))


def test_a_pool_listed_twice_in_one_partition():
    assert one_problem({"partitions": [{"id": "p", "node_pool_ids": ["a", "a"]}]}) == (
        "partitions[0].node_pool_ids: 'a' is listed more than once"
    )


@pytest.mark.parametrize(
    "value,kind",
    [
        ("projects/p/locations/us-central1-a/instances/home", "filestore"),
        ("fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com@tcp:/abcdefgh", "fsx_lustre"),
        ("fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com:/fsx", "fsx_openzfs"),
    ],
)
def test_home_directory_storage_forms(value, kind):
    assert SlurmSpec.from_dict(minimal(home_directory_storage=value), partition_names=partition_names()).home_storage.kind == kind


def test_home_directory_storage_of_no_known_form():
    assert one_problem(minimal(home_directory_storage="s3://bucket/home")).startswith(
        "home_directory_storage: 's3://bucket/home' is not a storage this can mount as /home"
    )


def test_scripts_are_non_empty_strings():
    assert one_problem(minimal(prolog_bash_scripts=["echo", ""])).startswith("prolog_bash_scripts[1]: must be the non-empty text")
    assert one_problem(minimal(epilog_bash_scripts="echo")).startswith("epilog_bash_scripts: must be a list")


def test_errors_inside_a_wrapper_carry_its_path():
    data = {"orchestratorSpec": {"slurmSpec": minimal(default_partition_id="zz")}}
    assert one_problem(data).startswith("orchestratorSpec.slurmSpec.default_partition_id: 'zz'")


# ---- config --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "key,reason",
    [
        ("SlurmctldHost", "controller"),
        ("NodeName", "nodes"),
        ("PartitionName", "partitions"),
        ("ClusterName", "names the Slurm cluster"),
        ("SlurmctldPort", "ports"),
        ("AuthType", "authentication"),
        ("AccountingStorageHost", "AccountingDatabase"),
        ("Prolog", "prolog_bash_scripts"),
    ],
)
def test_platform_owned_keys_are_refused_with_the_reason(key, reason):
    found = one_problem(minimal(config={key: "x"}))
    assert found.startswith(f"config.{key}: {key} cannot be set: ") and reason in found


def test_unknown_and_obsolete_keys():
    assert one_problem(minimal(config={"PreemptTipe": "x"})) == (
        "config.PreemptTipe: 'PreemptTipe' is not a slurm.conf parameter (did you mean PreemptType?)"
    )
    assert "obsolete" in one_problem(minimal(config={"FastSchedule": "1"}))


def test_keys_are_case_insensitive_like_slurmctld_and_canonicalized():
    spec = SlurmSpec.from_dict(minimal(config={"preempttype": "preempt/qos", "PREEMPTMODE": "cancel"}), partition_names=partition_names())
    assert spec.config == {"PreemptType": "preempt/qos", "PreemptMode": "cancel"}
    assert "same slurm.conf parameter" in one_problem(minimal(config={"MaxJobCount": "1", "maxjobcount": "2"}))


@pytest.mark.parametrize(
    "key,value",
    [
        ("PriorityType", "priority/fifo"),
        ("PreemptType", "preempt/none2"),
        ("PreemptMode", "REQUEUE,CANCEL"),
        ("PreemptMode", "SUSPEND"),
        ("PreemptMode", "GANG,WITHIN"),
        ("PreemptMode", "KILL"),
        ("PreemptExemptTime", "10m"),
        ("PreemptExemptTime", "1:2:3:4"),
        ("AccountingStorageEnforce", "limits,everything"),
        ("PriorityWeightAge", "-1"),
        ("PriorityWeightAge", "4294967296"),
        ("PriorityWeightFairshare", "1.5"),
        ("PriorityWeightTRES", "CPU"),
        ("MaxJobCount", "lots"),
        ("BatchStartTimeout", "65536"),
        ("DisableRootJobs", "maybe"),
        ("MaxJobCount", "1 # comment"),
        ("SchedulerParameters", "bf_continue SlurmctldHost=x"),
        ("MaxJobCount", "1\nNodeName=x"),
        ("MaxJobCount", ""),
    ],
)
def test_bad_values_are_refused(key, value):
    found = one_problem(minimal(config={key: value}))
    assert found.startswith(f"config.{key}: "), found


@pytest.mark.parametrize(
    "config",
    [
        {"PreemptType": "preempt/qos", "PreemptMode": "SUSPEND,GANG"},
        {"PreemptType": "preempt/partition_prio", "PreemptMode": "CANCEL"},
        {"PreemptMode": "GANG"},
        {"PreemptMode": "OFF"},
        {"PreemptExemptTime": "-1"},
        {"PreemptExemptTime": "2-12:30:00"},
        {"PreemptExemptTime": "90"},
        {"AccountingStorageEnforce": "all"},
        {"PriorityWeightAge": "0x10"},
        {"MaxJobCount": "10k"},
        {"PriorityWeightTRES": "CPU=1000,Mem=2000,GRES/gpu=3000"},
        {"DisableRootJobs": "YES"},
    ],
)
def test_good_values_are_accepted(config):
    assert SlurmSpec.from_dict(minimal(config=config), partition_names=partition_names()).config == config


def test_preemption_type_and_mode_must_agree():
    assert "needs PreemptMode set too" in one_problem(minimal(config={"PreemptType": "preempt/qos"}))
    assert "not compatible with PreemptType" in one_problem(minimal(config={"PreemptType": "preempt/qos", "PreemptMode": "OFF"}))
    assert "needs a PreemptType" in one_problem(minimal(config={"PreemptMode": "REQUEUE"}))


def test_priority_weights_that_overflow_are_refused():
    found = one_problem(minimal(config={"PriorityWeightAge": "4294967295", "PriorityWeightQOS": "1"}))
    assert found.startswith("config.PriorityWeightAge, config.PriorityWeightQOS: the priority weights add up to 4294967296")


_BASE = ["OFF", "CLUSTER", "CANCEL", "REQUEUE", "SUSPEND", "ON"]
_FLAGS = ["GANG", "WITHIN", "PRIORITY"]


def _slurm_accepts_preempt_mode(words: list[str]) -> bool:
    """A port of slurm_protocol_defs.c preempt_mode_num() plus read_config.c's SUSPEND-needs-GANG."""
    upper = [w.upper() for w in words]
    if any(w not in _BASE + _FLAGS for w in upper):
        return False
    base = [w for w in upper if w in _BASE]
    if len(base) > 1 or ("GANG" in upper and ("WITHIN" in upper or "PRIORITY" in upper)):
        return False
    return not (base and base[0] in ("SUSPEND", "ON") and "GANG" not in upper)


@given(st.lists(st.sampled_from(_BASE + _FLAGS + ["x"]).map(lambda w: w.lower() if len(w) % 2 else w), min_size=1, max_size=3))
def test_preempt_mode_values_match_slurms_parser(words):
    config = {"PreemptMode": ",".join(words)}
    mode_ok = _slurm_accepts_preempt_mode(words)
    base = [w.upper() for w in words if w.upper() in _BASE]
    needs_type = mode_ok and base and base[0] not in ("OFF", "CLUSTER")
    if mode_ok and not needs_type:
        SlurmSpec.from_dict(minimal(config=config), partition_names=partition_names())
    else:
        found = one_problem(minimal(config=config))
        assert found.startswith("config.PreemptMode: ")


# ---- references ----------------------------------------------------------------------------------


def test_references_against_a_clusters_pools():
    spec = SlurmSpec.from_dict({**minimal(login_node_pool_id="login", controller_node_pool_id="ctl")}, partition_names=partition_names())
    assert reference_violations(spec, ["a", "login", "ctl"]) == []
    found = [str(v) for v in reference_violations(spec, ["a", "logn"], kind="instance group", prefix="slurm")]
    assert found == [
        "slurm.login_node_pool_id: 'login' is not an instance group of the cluster (did you mean 'logn'?)",
        "slurm.controller_node_pool_id: 'ctl' is not an instance group of the cluster; its instance groups are 'a', 'logn'",
    ]
    with pytest.raises(
        SlurmSpecError, match=r"partitions\[0\].node_pool_ids\[0\]: 'a' is not a node pool of the cluster \(the cluster has no node pools\)"
    ):
        check_references(spec, [])
