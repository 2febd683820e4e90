"""A Slurm spec rendered for HyperPod: SlurmConfig, the bundle, the hook that installs it, the CLI."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.slurm import SlurmSpec, SlurmSpecError
from pulumi_hyperpod.aws.slurm.render import render_hyperpod, script_names
from pulumi_hyperpod.aws.spec import ClusterSpec
from tests.support.slurm_examples import example_cluster, example_slurm, group, legacy_cluster
from tests.support.cli import hyperpod


def slurm(**changes) -> SlurmSpec:
    return SlurmSpec.from_dict({**example_slurm(), **changes}, partition_names=partition_names())


def legacy_slurm(home: str) -> SlurmSpec:
    """The Slurm spec of `legacy_cluster()` (its controller, login and one worker group), with `home`
    as its shared home."""
    document = {
        "partitions": [{"id": "partition-1", "node_pool_ids": ["worker-group-1"]}],
        "login_node_pool_id": "login-group",
        "controller_node_pool_id": "controller-machine",
        "home_directory_storage": home,
    }
    return SlurmSpec.from_dict(document, partition_names=partition_names())


def problems(cluster, spec) -> list[str]:
    with pytest.raises(SlurmSpecError) as caught:
        render_hyperpod(cluster, spec)
    return [str(v) for v in caught.value.violations]


# ---- SlurmConfig and provisioning_parameters.json ------------------------------------------------


def test_a_continuous_cluster_gets_slurm_config_from_the_slurm_spec():
    rendering = render_hyperpod(example_cluster(), slurm(), lifecycle_uri="s3://b/p/")
    assert rendering.mode == "SlurmConfig"
    groups = {g["InstanceGroupName"]: g for g in rendering.cluster_spec["InstanceGroups"]}
    assert groups["controller"]["SlurmConfig"] == {"NodeType": "Controller"}
    assert groups["login"]["SlurmConfig"] == {"NodeType": "Login"}
    assert groups["a4"]["SlurmConfig"] == {"NodeType": "Compute", "PartitionNames": ["a4"]}
    assert all(g["LifeCycleConfig"] == {"SourceS3Uri": "s3://b/p/", "OnCreate": "on_create.sh"} for g in groups.values())
    ClusterSpec.from_dict(rendering.cluster_spec)  # the completed request is a valid cluster spec


def test_a_legacy_cluster_gets_its_roles_in_provisioning_parameters_in_base_config_format():
    spec = legacy_slurm("fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com:/fsx")
    rendering = render_hyperpod(legacy_cluster(), spec)
    assert rendering.mode == "provisioning_parameters"
    assert all("SlurmConfig" not in g for g in rendering.cluster_spec["InstanceGroups"])
    assert json.loads(rendering.files["provisioning_parameters.json"]) == {
        "version": "1.0.0",
        "workload_manager": "slurm",
        "controller_group": "controller-machine",
        "login_group": "login-group",
        "worker_groups": [{"instance_group_name": "worker-group-1", "partition_name": "partition-1"}],
        "fsx_openzfs_dns_name": "fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com",
    }


def test_a_legacy_clusters_lustre_home_is_fsx_dns_name_and_mountname():
    spec = legacy_slurm("fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com@tcp:/abcdefgh")
    params = json.loads(render_hyperpod(legacy_cluster(), spec).files["provisioning_parameters.json"])
    assert (params["fsx_dns_name"], params["fsx_mountname"]) == ("fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com", "abcdefgh")


def test_an_api_driven_cluster_gets_fsx_in_instance_storage_configs_and_no_provisioning_parameters():
    """Issue 23: AWS's API-driven Slurm configuration mounts FSx from the API payload
    (InstanceStorageConfigs) and needs no provisioning_parameters.json."""
    rendering = render_hyperpod(example_cluster(), slurm())
    assert rendering.mode == "SlurmConfig" and "provisioning_parameters.json" not in rendering.files
    lustre = {
        "FsxLustreConfig": {"DnsName": "fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com", "MountName": "abcdefgh", "MountPath": "/fsx"}
    }
    for instance_group in rendering.cluster_spec["InstanceGroups"]:
        assert instance_group["InstanceStorageConfigs"].count(lustre) == 1
    ClusterSpec.from_dict(rendering.cluster_spec)  # valid against the model
    again = render_hyperpod(rendering.cluster_spec, slurm())  # rendering its own output: one mount, not two
    assert again.cluster_spec == rendering.cluster_spec
    document = json.loads(rendering.files["slurm-spec.json"])
    assert document["home_storage"]["mounted_by"] == "InstanceStorageConfigs"
    assert document["roles"] == {"controller": "Controller", "login": "Login", "a4": "Compute"}
    openzfs = render_hyperpod(example_cluster(), slurm(home_directory_storage="fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com:/fsx"))
    assert openzfs.cluster_spec["InstanceGroups"][0]["InstanceStorageConfigs"][-1] == {
        "FsxOpenZfsConfig": {"DnsName": "fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com", "MountPath": "/home"}
    }


def test_an_api_driven_home_must_be_a_dns_name_the_model_accepts():
    with pytest.raises(SlurmSpecError, match="InstanceStorageConfigs, whose DnsName must match"):
        render_hyperpod(example_cluster(), slurm(home_directory_storage="files.example.com@tcp:/abcdefgh"))


def test_slurm_config_already_in_the_cluster_spec_must_agree():
    cluster = example_cluster()
    cluster["InstanceGroups"][2]["SlurmConfig"] = {"NodeType": "Compute", "PartitionNames": ["other"]}
    assert problems(cluster, slurm()) == [
        "InstanceGroups[2].SlurmConfig.PartitionNames: is ['other'] but the Slurm spec puts 'a4' in ['a4']"
    ]


def test_continuous_clusters_cannot_take_roles_from_provisioning_parameters():
    with pytest.raises(SlurmSpecError, match="NodeProvisioningMode: is Continuous"):
        render_hyperpod(ClusterSpec.from_dict(render_hyperpod(example_cluster(), slurm()).cluster_spec), slurm(), slurm_config=False)


# ---- HyperPod's rules ----------------------------------------------------------------------------


def test_unknown_groups_are_named_with_the_slurm_spec_path():
    assert problems(example_cluster(), slurm(login_node_pool_id="logon")) == [
        "slurm.login_node_pool_id: 'logon' is not an instance group of the cluster (did you mean 'login'?)"
    ]


def test_the_controller_must_be_known():
    spec = slurm()
    cluster = legacy_cluster()
    bare = SlurmSpec.from_dict(
        {"partitions": [{"id": "p", "node_pool_ids": ["worker-group-1"]}], "login_node_pool_id": "login-group"},
        partition_names=partition_names(),
    )
    assert problems(cluster, bare)[0].startswith("slurm.controller_node_pool_id: is required on HyperPod")
    assert spec.controller_node_pool_id == "controller"


def test_a_group_in_two_partitions_cannot_be_expressed_on_hyperpod():
    spec = slurm(partitions=[{"id": "a4", "node_pool_ids": ["a4"]}, {"id": "all", "node_pool_ids": ["a4"]}])
    found = problems(example_cluster(), spec)
    assert found == [
        "slurm.partitions[0].node_pool_ids[0]: instance group 'a4' is in 2 partitions (a4, all); on HyperPod a "
        "group belongs to at most 1 (SlurmConfig.PartitionNames, provisioning_parameters.json worker_groups)"
    ]


def test_a_filestore_home_is_refused_on_hyperpod():
    found = problems(example_cluster(), slurm(home_directory_storage="projects/p/locations/l/instances/i"))
    assert found[0].startswith("slurm.home_directory_storage: is a Filestore instance")


def test_every_group_needs_a_role():
    cluster = example_cluster()
    cluster["InstanceGroups"].append(group("spare"))
    cluster["NodeProvisioningMode"] = None
    del cluster["NodeProvisioningMode"]
    assert problems(cluster, slurm()) == [
        "InstanceGroups[3]: instance group 'spare' has no Slurm role: add it to a partition of the Slurm spec, "
        "or name it login_node_pool_id or controller_node_pool_id"
    ]


# ---- the bundle ----------------------------------------------------------------------------------


def test_bundle_is_deterministic_and_content_addressed():
    one, two = render_hyperpod(example_cluster(), slurm()), render_hyperpod(example_cluster(), slurm())
    assert one.files == two.files and one.digest == two.digest and one.prefix.startswith("slurm-bundles/")
    reordered = slurm(config=dict(reversed(list(example_slurm()["config"].items()))))
    assert render_hyperpod(example_cluster(), reordered).files["slurm-spec.conf"] == one.files["slurm-spec.conf"]
    changed = render_hyperpod(example_cluster(), slurm(config={**example_slurm()["config"], "PreemptMode": "CANCEL"}))
    assert changed.digest != one.digest


def test_include_has_the_config_lines_and_prolog_epilog_globs():
    text = render_hyperpod(example_cluster(), slurm()).files["slurm-spec.conf"].decode()
    body = [line for line in text.splitlines() if not line.startswith("#")]
    assert body == [
        "AccountingStorageEnforce=associations,limits,qos",
        "PreemptExemptTime=00:10:00",
        "PreemptMode=REQUEUE",
        "PreemptType=preempt/partition_prio",
        "PriorityType=priority/multifactor",
        "PriorityWeightAge=1000",
        "PriorityWeightFairshare=10000",
        "Prolog=/opt/slurm/etc/prolog.d/*",
        "Epilog=/opt/slurm/etc/epilog.d/*",
    ]
    assert "Default partition: a4" in text


def test_scripts_run_in_list_order_under_slurms_reverse_alphabetical_rule():
    names = script_names("prolog", 12)
    assert sorted(names, reverse=True) == names
    files = render_hyperpod(example_cluster(), slurm(prolog_bash_scripts=["echo one"])).files
    assert files["prolog.d/99-prolog-1.sh"] == b"#!/bin/bash\necho one\n"


# ---- the hook, run for real against a fake root --------------------------------------------------

SLURM_CONF = """ClusterName=a4-training
SlurmctldHost=ip-10-1-0-10
NodeName=ip-10-1-0-20 NodeAddr=10.1.0.20 State=CLOUD
PartitionName=dev Nodes=ALL Default=YES MaxTime=INFINITE State=UP
PartitionName=a4 Nodes=ip-10-1-0-20 Default=NO MaxTime=INFINITE State=UP
"""


def hook_dry_run(bundle, root, address: str) -> str:
    """The bundle's node hook run for real in dry-run mode against a fake root, as the node at `address`."""
    command = [sys.executable, str(bundle / "slurm_spec_hook.py"), "--root", str(root), "--dry-run"]
    command += ["--address", address, "--wait-seconds", "0"]
    result = subprocess.run(command, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert result.returncode == 0, result.stderr
    return result.stdout


def run_hook(tmp_path, address: str, runs: int = 1) -> tuple[str, object]:
    bundle = tmp_path / "bundle"
    render_hyperpod(example_cluster(), slurm()).write(bundle)
    root = tmp_path / "root"
    (root / "opt/slurm/etc").mkdir(parents=True, exist_ok=True)
    (root / "opt/slurm/etc/slurm.conf").write_text(SLURM_CONF)
    (root / "opt/ml/config").mkdir(parents=True, exist_ok=True)
    (root / "opt/ml/config/resource_config.json").write_text(
        json.dumps(
            {
                "InstanceGroups": [
                    {"Name": "controller", "Instances": [{"CustomerIpAddress": "10.1.0.10"}]},
                    {"Name": "a4", "Instances": [{"CustomerIpAddress": "10.1.0.20"}]},
                ]
            }
        )
    )
    for _ in range(runs):
        stdout = hook_dry_run(bundle, root, address)
    return stdout, root


def test_hook_on_the_controller_includes_the_spec_and_marks_the_default_partition(tmp_path):
    output, root = run_hook(tmp_path, "10.1.0.10", runs=2)
    conf = (root / "opt/slurm/etc/slurm.conf").read_text().splitlines()
    assert conf.count("Include /opt/slurm/etc/slurm-spec.conf") == 1  # idempotent
    assert "PartitionName=dev Nodes=ALL MaxTime=INFINITE State=UP Default=NO" in conf
    assert "PartitionName=a4 Nodes=ip-10-1-0-20 MaxTime=INFINITE State=UP Default=YES" in conf
    assert (root / "opt/slurm/etc/slurm-spec.conf").read_text().count("PreemptMode=REQUEUE") == 1
    # API-driven: HyperPod mounted Lustre on /fsx (InstanceStorageConfigs); the hook only binds the home
    assert "home storage mounted by HyperPod (InstanceStorageConfigs)" in output
    assert "mount -t lustre" not in output and "+ mount --bind /fsx/home /home" in output
    assert "controller node" in output
    assert "? systemctl is-active --quiet slurmctld" in output  # reconfigures only a running slurmctld


def test_hook_on_a_compute_node_installs_scripts_and_leaves_slurm_conf(tmp_path):
    output, root = run_hook(tmp_path, "10.1.0.20")
    assert sorted(p.name for p in (root / "opt/slurm/etc/prolog.d").iterdir()) == ["98-prolog-2.sh", "99-prolog-1.sh"]
    assert (root / "opt/slurm/etc/epilog.d/99-epilog-1.sh").stat().st_mode & 0o111
    assert (root / "opt/slurm/etc/slurm.conf").read_text() == SLURM_CONF
    assert "compute node" in output and "scontrol" not in output


# ---- CLI -----------------------------------------------------------------------------------------


def test_cli_render_writes_the_bundle_and_says_what_goes_where(tmp_path):
    from tests.support.slurm_examples import EXAMPLE

    output = hyperpod(
        "slurm",
        "render",
        "-f",
        str(EXAMPLE / "cluster.json"),
        "--slurm",
        str(EXAMPLE / "slurm.json"),
        "--out",
        str(tmp_path / "out"),
        "--lifecycle-uri",
        "s3://bucket/slurm/",
    )
    assert "provisioning_parameters.json" not in output and "aws s3 sync" in output
    assert (tmp_path / "out/lifecycle/on_create.sh").exists()
    cluster = json.loads((tmp_path / "out/cluster.json").read_text())
    assert cluster["InstanceGroups"][2]["SlurmConfig"] == {"NodeType": "Compute", "PartitionNames": ["a4"]}
    assert cluster["InstanceGroups"][2]["InstanceStorageConfigs"][-1]["FsxLustreConfig"]["MountPath"] == "/fsx"
    assert not (tmp_path / "out/lifecycle/provisioning_parameters.json").exists()
    data = json.loads(
        hyperpod(
            "slurm",
            "render",
            "-f",
            str(EXAMPLE / "cluster.json"),
            "--slurm",
            str(EXAMPLE / "slurm.json"),
            "--out",
            str(tmp_path / "out2"),
            "--json",
        )
    )
    assert data["roles"] == {"controller": "Controller", "login": "Login", "a4": "Compute"}


def test_cli_render_bad_input_exits_1_naming_file_and_field(tmp_path):
    from tests.support.slurm_examples import EXAMPLE

    bad = tmp_path / "slurm.json"
    bad.write_text(json.dumps({**example_slurm(), "login_node_pool_id": "logn"}))
    output = hyperpod("slurm", "render", "-f", str(EXAMPLE / "cluster.json"), "--slurm", str(bad), "--out", str(tmp_path / "o"), code=1)
    assert "slurm.login_node_pool_id: 'logn' is not an instance group" in output and str(bad) in output
    assert not (tmp_path / "o").exists()


def test_writing_over_a_directory_with_other_files_is_refused(tmp_path):
    rendering = render_hyperpod(example_cluster(), slurm())
    rendering.write(tmp_path)
    rendering.write(tmp_path)  # the same bundle again: fine
    fewer = render_hyperpod(example_cluster(), slurm(prolog_bash_scripts=["echo one"]))
    with pytest.raises(FileExistsError, match=re.escape("prolog.d/98-prolog-2.sh")):
        fewer.write(tmp_path)


def test_cli_usage_errors_exit_1(tmp_path):
    from tests.support.slurm_examples import EXAMPLE

    output = hyperpod("slurm", "render", "-f", str(EXAMPLE / "cluster.json"), "--out", str(tmp_path), code=1)
    assert "--slurm" in output
    hyperpod("slurm", "render", "--bogus", code=1)


def test_a_bundle_built_on_base_config_runs_its_on_create_first(tmp_path):
    base = tmp_path / "base-config"
    (base / "utils").mkdir(parents=True)
    (base / "on_create.sh").write_text("#!/bin/bash\npython3 -u lifecycle_script.py\n")
    (base / "lifecycle_script.py").write_text("print('base-config')\n")
    (base / "utils" / "motd.sh").write_text("echo motd\n")
    (base / "provisioning_parameters.json").write_text('{"controller_group": "old"}')
    rendering = render_hyperpod(example_cluster(), slurm(), base_dir=base)
    assert rendering.files["on_create_base.sh"].startswith(b"#!/bin/bash\npython3")
    assert rendering.files["utils/motd.sh"] == b"echo motd\n"
    assert "provisioning_parameters.json" not in rendering.files  # the base's is dropped: the cluster is API-driven
    assert b"bash on_create_base.sh" in rendering.files["on_create.sh"]
    assert rendering.digest != render_hyperpod(example_cluster(), slurm()).digest
    (base / "slurm_spec_hook.py").write_text("")
    with pytest.raises(SlurmSpecError, match=re.escape("files the Slurm bundle writes itself: slurm_spec_hook.py")):
        render_hyperpod(example_cluster(), slurm(), base_dir=base)
    with pytest.raises(SlurmSpecError, match="does not exist"):
        render_hyperpod(example_cluster(), slurm(), base_dir=tmp_path / "missing")


def test_hook_on_a_legacy_cluster_mounts_lustre_itself(tmp_path):
    spec = legacy_slurm("fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com@tcp:/abcdefgh")
    bundle = tmp_path / "bundle"
    render_hyperpod(legacy_cluster(), spec).write(bundle)
    root = tmp_path / "root"
    (root / "opt/ml/config").mkdir(parents=True)
    (root / "opt/ml/config/resource_config.json").write_text(
        json.dumps({"InstanceGroups": [{"Name": "worker-group-1", "Instances": [{"CustomerIpAddress": "10.1.0.20"}]}]})
    )
    stdout = hook_dry_run(bundle, root, "10.1.0.20")
    assert "+ mount -t lustre -o relatime,flock fs-0123456789abcdef0.fsx.us-west-2.amazonaws.com@tcp:/abcdefgh /fsx" in stdout
