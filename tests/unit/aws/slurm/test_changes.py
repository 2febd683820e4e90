"""Slurm changes on a running cluster: per key, what each takes on HyperPod, restarts, refusals."""

from __future__ import annotations

from pulumi_hyperpod.aws.slurm.changes import changes_text, diff_slurm
from tests.support.slurm_examples import example_slurm
from tests.support.slurm_examples import _running_example_with_its_bundle, config, spec


def test_no_change():
    assert diff_slurm(spec(), spec()).empty
    assert diff_slurm(None, spec()).empty  # nothing known to compare with


def test_a_config_key_change_is_shown_per_key_with_what_it_takes():
    changes = diff_slurm(spec(config=config(PreemptMode="CANCEL")), spec())
    assert [str(c) for c in changes.changes] == ["~ PreemptMode: CANCEL → REQUEUE"]
    change = changes.changes[0]
    assert "LifeCycleConfig.SourceS3Uri" in change.takes and "nodes created after" in change.applies
    assert change.restart is None and not changes.refusals
    steps = changes.steps()
    assert steps[0].startswith("upload the new lifecycle bundle") and "scontrol reconfigure" in steps[-1]


def test_added_and_removed_keys():
    before = spec(config={k: v for k, v in config().items() if k != "PreemptExemptTime"})
    after = spec(config={k: v for k, v in config().items() if k != "PriorityWeightAge"})
    assert [str(c) for c in diff_slurm(before, after).changes] == ["+ PreemptExemptTime: 00:10:00", "- PriorityWeightAge: 1000"]
    assert "Slurm's default" in diff_slurm(before, after).changes[1].applies


def test_keys_that_need_a_daemon_restart_are_flagged():
    changes = diff_slurm(spec(), spec(config=config(CommunicationParameters="NoInAddrAny")))
    assert changes.changes[0].restart.startswith("slurmctld and slurmd restart")
    assert "restart" in changes.steps()[-1]


def test_partition_changes_on_a_slurm_config_cluster_are_an_update_cluster():
    before = spec(partitions=[{"id": "a4", "node_pool_ids": ["a4"]}])
    after = spec(partitions=[{"id": "a4", "node_pool_ids": ["a4"]}, {"id": "big", "node_pool_ids": ["b200"]}])
    changes = diff_slurm(before, after)
    assert [str(c) for c in changes.changes] == ["+ partition big: [b200]"]
    assert changes.partition_updates == {"b200": ("big",)}
    assert not changes.needs_bundle
    assert changes.steps() == [
        "UpdateCluster SlurmConfig.PartitionNames: b200 → ['big'] (HyperPod rewrites the partition lines, merge mode)"
    ]


def test_partition_changes_on_a_legacy_cluster_reach_new_nodes_only():
    before = spec(partitions=[{"id": "a4", "node_pool_ids": ["a4"]}])
    after = spec(partitions=[{"id": "gpu", "node_pool_ids": ["a4"]}])
    changes = diff_slurm(before, after, mode="provisioning_parameters")
    assert [str(c) for c in changes.changes] == ["- partition a4: [a4]", "+ partition gpu: [a4]", "~ default partition: a4 → gpu"]
    assert "only nodes created after" in changes.changes[0].applies
    assert changes.needs_bundle and changes.partition_updates == {}


def test_default_partition_change():
    two = [{"id": "a4", "node_pool_ids": ["a4"]}, {"id": "b", "node_pool_ids": ["b"]}]
    changes = diff_slurm(spec(partitions=two), spec(partitions=two, default_partition_id="b"))
    assert [str(c) for c in changes.changes] == ["~ default partition: a4 → b"]


def test_prolog_and_epilog_changes_are_per_script():
    changes = diff_slurm(
        spec(),
        spec(
            prolog_bash_scripts=["#!/bin/bash\necho 'First prolog script running'"],
            epilog_bash_scripts=["#!/bin/bash\necho cleanup\nrm -rf /tmp/job"],
        ),
    )
    assert [str(c) for c in changes.changes] == [
        "- prolog_bash_scripts[1]: echo 'Second prolog script running'",
        "~ epilog_bash_scripts[0]: echo 'Epilog script running' → echo cleanup …(2 lines)",
    ]


def test_home_storage_change_is_refused_with_the_reason():
    changes = diff_slurm(spec(), spec(home_directory_storage="fs-0fedcba9876543210.fsx.us-west-2.amazonaws.com:/fsx"))
    assert changes.refusals and "no data is moved" in changes.refusals[0].refused
    assert changes.steps() == []


def test_login_pool_change_is_left_to_the_cluster_plan():
    changes = diff_slurm(spec(), spec(login_node_pool_id="login2"))
    assert [str(c) for c in changes.changes] == ["~ login pool: login → login2"]
    assert not changes.refusals


def test_rendering_shows_every_change_and_step():
    text = changes_text(diff_slurm(spec(config=config(PreemptMode="OFF", PreemptType="preempt/none")), spec()), width=400)
    assert "~ PreemptMode: OFF → REQUEUE" in text and "~ PreemptType: preempt/none → preempt/partition_prio" in text
    assert "1. upload the new lifecycle bundle" in text
    assert changes_text(diff_slurm(spec(), spec())).strip() == "Slurm: no changes"


def test_to_dict_is_plain_data():
    import json

    data = diff_slurm(spec(config=config(PreemptMode="CANCEL")), spec()).to_dict()
    assert json.loads(json.dumps(data))["changes"][0]["text"] == "~ PreemptMode: CANCEL → REQUEUE"


def test_the_running_clusters_spec_is_read_back_from_its_bundle(tmp_path):
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.aws.slurm.observed import read_bundle_spec, read_dir_spec
    from pulumi_hyperpod.aws.slurm.render import render_hyperpod
    from pulumi_hyperpod.aws.slurm.upload import upload_bundle
    from tests.support.slurm_examples import example_cluster

    before = spec(config=config(PreemptMode="CANCEL"))
    rendering = render_hyperpod(example_cluster(), before)
    rendering.write(tmp_path)
    assert read_dir_spec(tmp_path) == before
    s3 = connect("fake", simulator=Simulator(seed=3), service="s3")
    uri = f"s3://bundles-bucket/{rendering.prefix}"
    upload_bundle(s3, rendering.files, uri, create_bucket=True)
    observed = read_bundle_spec(s3, uri)
    assert [str(c) for c in diff_slurm(observed, spec()).changes] == ["~ PreemptMode: CANCEL → REQUEUE"]
    assert read_bundle_spec(s3, "s3://bundles-bucket/other/") is None


def test_cli_diff_against_the_running_clusters_bundle(tmp_path, monkeypatch):
    import json as jsonlib

    from tests.support.cli import hyperpod

    _running_example_with_its_bundle(tmp_path, monkeypatch)
    wanted = tmp_path / "wanted.json"
    wanted.write_text(jsonlib.dumps({**example_slurm(), "config": config(PreemptMode="CANCEL")}))
    output = hyperpod("slurm", "diff", "a4-training", "--slurm", str(wanted), "--json")
    assert jsonlib.loads(output)["changes"][0]["text"] == "~ PreemptMode: REQUEUE → CANCEL"
    wanted.write_text(jsonlib.dumps({**example_slurm(), "home_directory_storage": "fs-0fedcba9876543210.fsx.us-west-2.amazonaws.com:/fsx"}))
    refused = hyperpod("slurm", "diff", "a4-training", "--slurm", str(wanted), code=2)
    assert "refused: home_directory_storage" in refused


def test_the_plan_section_reads_the_running_spec_and_compares(tmp_path):
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.aws.observe import observe
    from pulumi_hyperpod.aws.slurm.render import render_hyperpod
    from pulumi_hyperpod.aws.slurm.section import slurm_section
    from pulumi_hyperpod.aws.slurm.upload import upload_bundle
    from tests.support.slurm_examples import example_cluster

    sim = Simulator(seed=5)
    sagemaker, s3 = connect("fake", simulator=sim), connect("fake", simulator=sim, service="s3")
    uri = "s3://bundles-bucket/a4/"
    rendering = render_hyperpod(example_cluster(), spec(), lifecycle_uri=uri)
    upload_bundle(s3, rendering.files, uri, create_bucket=True)
    sagemaker.create_cluster(**rendering.cluster_spec)
    state = observe(sagemaker, "a4-training")
    section = slurm_section(spec(config=config(PreemptMode="CANCEL")), state, s3_client=s3)
    assert section.source == uri and [str(c) for c in section.changes.changes] == ["~ PreemptMode: REQUEUE → CANCEL"]
    assert "~ PreemptMode: REQUEUE → CANCEL" in section.text(400)
    unknown = slurm_section(spec(), state)
    assert unknown.changes is None and "no S3 client" in unknown.notes[0]
    assert slurm_section(spec(), None).changes.empty


def test_cli_plan_with_a_slurm_spec_shows_each_key_and_refuses_what_needs_a_new_cluster(tmp_path, monkeypatch):
    """`hyperpod plan -f CLUSTER --slurm SLURM_SPEC`: the Slurm section per key (also in --json and a
    saved plan); a change HyperPod cannot make in place is a refusal (exit 2)."""
    import json as jsonlib

    from tests.support.cli import hyperpod

    rendering = _running_example_with_its_bundle(tmp_path, monkeypatch)
    cluster = tmp_path / "cluster.json"
    cluster.write_text(jsonlib.dumps(rendering.cluster_spec))
    wanted = tmp_path / "wanted.json"
    wanted.write_text(jsonlib.dumps({**example_slurm(), "config": config(PreemptMode="CANCEL")}))

    shown = hyperpod("plan", "-f", str(cluster), "--slurm", str(wanted), "--no-preflight")
    assert "~ PreemptMode: REQUEUE → CANCEL" in shown and "Slurm changes" in shown
    data = jsonlib.loads(hyperpod("plan", "-f", str(cluster), "--slurm", str(wanted), "--json", "--out", str(tmp_path / "p.json")))
    assert [c["text"] for c in data["slurm"]["changes"]["changes"]] == ["~ PreemptMode: REQUEUE → CANCEL"]
    saved = jsonlib.loads((tmp_path / "p.json").read_text())["plan"]["slurm"]
    assert saved["changes"]["changes"][0]["key"] == "PreemptMode"

    wanted.write_text(jsonlib.dumps({**example_slurm(), "home_directory_storage": "fs-0fedcba9876543210.fsx.us-west-2.amazonaws.com:/fsx"}))
    refused = jsonlib.loads(hyperpod("plan", "-f", str(cluster), "--slurm", str(wanted), "--json", code=2))
    assert [r["rule"] for r in refused["refusals"]] == ["slurm-change"] and refused["steps"] == []


def test_a_saved_plans_slurm_section_is_made_again_from_its_inputs(tmp_path, monkeypatch):
    """Issue 36, item 4: `apply --plan` shows the Slurm section its saved inputs (the bundle's spec,
    the wanted one) make, never the file's own; a resealed section is refused, nothing sent."""
    import json as jsonlib

    from pulumi_hyperpod.core.planfile import digest
    from tests.support.cli import hyperpod

    rendering = _running_example_with_its_bundle(tmp_path, monkeypatch)
    cluster = tmp_path / "cluster.json"
    cluster.write_text(jsonlib.dumps(rendering.cluster_spec))
    wanted = tmp_path / "wanted.json"
    wanted.write_text(jsonlib.dumps({**example_slurm(), "config": config(PreemptMode="CANCEL")}))
    saved = tmp_path / "p.json"
    hyperpod("plan", "-f", str(cluster), "--slurm", str(wanted), "--no-preflight", "--out", str(saved))
    data = jsonlib.loads(saved.read_text())
    assert data["slurm_inputs"]["wanted"]["config"]["PreemptMode"] == "CANCEL"
    shown = hyperpod("apply", "--plan", str(saved), "--yes")
    assert "~ PreemptMode: REQUEUE → CANCEL" in shown

    hyperpod("plan", "-f", str(cluster), "--slurm", str(wanted), "--no-preflight", "--out", str(saved))
    data = jsonlib.loads(saved.read_text())
    data["plan"]["slurm"]["changes"]["changes"] = []  # "reviewed: no Slurm change"
    body = {k: v for k, v in data.items() if k != "integrity"}
    saved.write_text(jsonlib.dumps({**body, "integrity": digest(body)}))
    refused = hyperpod("apply", "--plan", str(saved), "--yes", code=1)
    assert "its Slurm section is not the one its Slurm spec and the cluster's bundle make" in refused

    data = jsonlib.loads(saved.read_text())
    data.pop("slurm_inputs")
    body = {k: v for k, v in data.items() if k != "integrity"}
    saved.write_text(jsonlib.dumps({**body, "integrity": digest(body)}))
    assert "has no slurm_inputs" in hyperpod("apply", "--plan", str(saved), "--yes", code=1)
