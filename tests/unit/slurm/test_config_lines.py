"""Issue 24 item 4: a slurm.conf value Slurm's parser would read differently — a trailing `\\` (a
line continuation: the next line, say `Prolog=`, vanishes into it), a newline, a `#` — is refused in
every place a config map is accepted: the Slurm spec (render, check, plan --slurm on AWS), GCP's
top-level `config`, and GCP's partition and node-set `config` (issue 24 item 14), which are
checked as strictly as the top level."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError
from pulumi_hyperpod.slurm import SlurmSpec, SlurmSpecError
from tests.support.gcp import EXAMPLE as GCP_EXAMPLE

from tests.support.slurm_examples import EXAMPLE, example_cluster, example_slurm

BAD_VALUES = ["/opt/x\\", "a\nPrologFlags=x", "a#b", "a\\"]


def gcp_doc() -> dict:
    return json.loads(GCP_EXAMPLE.read_text())


def gcp_problems(doc) -> list[tuple[str, str]]:
    with pytest.raises(GcpSpecError) as caught:
        ClusterSpec.from_document(doc)
    return [(v.path, v.rule) for v in caught.value.violations]


@pytest.mark.parametrize("value", BAD_VALUES)
def test_the_slurm_spec_refuses_a_value_slurm_would_read_differently(value):
    data = example_slurm()
    data["config"] = {"SchedulerParameters": value}
    with pytest.raises(SlurmSpecError) as caught:
        SlurmSpec.from_dict(data, partition_names=partition_names())
    [violation] = caught.value.violations
    assert violation.path == "config.SchedulerParameters"


def test_a_trailing_backslash_says_why():
    data = example_slurm()
    data["config"] = {"SchedulerParameters": "bf_continue\\"}
    with pytest.raises(SlurmSpecError, match="line continuation"):
        SlurmSpec.from_dict(data, partition_names=partition_names())


@pytest.mark.parametrize("command", ["render", "check"])
def test_render_and_check_refuse_it_before_writing(tmp_path, command):
    slurm = example_slurm()
    slurm["config"] = {"SchedulerParameters": "bf_continue\\"}
    (tmp_path / "slurm.json").write_text(json.dumps(slurm))
    (tmp_path / "cluster.json").write_text(json.dumps(example_cluster()))
    args = ["slurm", command, "-f", str(tmp_path / "cluster.json"), "--slurm", str(tmp_path / "slurm.json")]
    if command == "render":
        args += ["--out", str(tmp_path / "out")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 1 and "line continuation" in result.output
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", BAD_VALUES)
def test_gcp_top_level_config_refuses_it(value):
    doc = gcp_doc()
    doc["orchestratorSpec"]["slurmSpec"]["config"]["SchedulerParameters"] = value
    assert any(path == "orchestrator_spec.slurm_spec.config.SchedulerParameters" for path, _ in gcp_problems(doc))


@pytest.mark.parametrize("value", BAD_VALUES)
def test_gcp_partition_config_refuses_it(value):
    doc = gcp_doc()
    doc["orchestratorSpec"]["slurmSpec"]["partitions"][0]["config"] = {"MaxTime": value}
    assert "orchestrator_spec.slurm_spec.partitions[0].config.MaxTime" in [path for path, _ in gcp_problems(doc)]


@pytest.mark.parametrize("value", BAD_VALUES)
def test_gcp_node_set_config_refuses_it(value):
    doc = gcp_doc()
    doc["orchestratorSpec"]["slurmSpec"]["node_sets"] = [{"node_pool_id": "a4", "config": {"Features": value}}]
    assert "orchestrator_spec.slurm_spec.node_sets[0].config.Features" in [path for path, _ in gcp_problems(doc)]


@pytest.mark.parametrize(
    "where, config, rule",
    [
        ("partitions", {"MaxTme": "1-00:00:00"}, "is not a parameter of a partition"),
        ("partitions", {"Nodes": "a4-[1-2]"}, "node_pool_ids"),
        ("partitions", {"Default": "YES"}, "default_partition_id"),
        ("partitions", {"MaxTime": "forever"}, "must be a time"),
        ("partitions", {"PriorityTier": "70000"}, "at most 65535"),
        ("partitions", {"Hidden": "maybe"}, "YES or NO"),
        ("partitions", {"State": "OPEN"}, "UP, DOWN, DRAIN, INACTIVE"),
        ("node_sets", {"NodeAddr": "10.0.0.1"}, "cannot be set here"),
        ("node_sets", {"Weight": "-1"}, "whole number"),
        ("node_sets", {"SlurmctldHost": "x"}, "is not a parameter of a node set"),
    ],
)
def test_gcp_partition_and_node_set_config_are_checked_as_strictly_as_the_top_level(where, config, rule):
    doc = gcp_doc()
    slurm = doc["orchestratorSpec"]["slurmSpec"]
    if where == "partitions":
        slurm["partitions"][0]["config"] = config
    else:
        slurm["node_sets"] = [{"node_pool_id": "a4", "config": config}]
    key = next(iter(config))
    found = gcp_problems(doc)
    assert any(path.endswith(f"{where}[0].config.{key}") and rule in text for path, text in found), found


def test_good_partition_and_node_set_config_are_accepted():
    doc = gcp_doc()
    slurm = doc["orchestratorSpec"]["slurmSpec"]
    slurm["partitions"][0]["config"] = {
        "MaxTime": "2-00:00:00",
        "PriorityTier": "10",
        "OverSubscribe": "NO",
        "maxnodes": "UNLIMITED",
        "PreemptMode": "REQUEUE",
    }
    slurm["node_sets"] = [{"node_pool_id": "a4", "config": {"Features": "a4,gpu", "Weight": "10"}}]
    ClusterSpec.from_document(doc)


def test_the_example_files_still_pass():
    assert SlurmSpec.from_file(EXAMPLE / "slurm.json", partition_names=partition_names())
