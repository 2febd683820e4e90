"""The member table (pulumi_hyperpod/members): every model member has a row, every row a member, a
read-back path DescribeCluster has, and docs/members.md is written from it."""

from __future__ import annotations

import copy
from pathlib import Path

import botocore.model

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.members import CHANGES, MEMBERS, coverage, counts
from pulumi_hyperpod.members.docs import render

ROOT = Path(__file__).resolve().parents[2]


def test_every_member_of_the_model_has_a_row_and_every_row_a_member():
    assert coverage.missing() == []
    assert coverage.stale() == []


def test_every_member_read_with_describe_cluster_is_in_its_output_shape():
    assert coverage.unread() == []


def test_a_member_a_later_botocore_adds_fails_here_not_a_user(monkeypatch):
    raw = copy.deepcopy(servicemodel.botocore_session().get_component("data_loader").load_service_model("sagemaker", "service-2"))
    raw["shapes"]["ClusterInstanceGroupSpecification"]["members"]["WarpDrive"] = {"shape": "String"}
    raw["shapes"]["ClusterOrchestratorSlurmConfig"]["members"]["Munge"] = {"shape": "String"}
    newer = botocore.model.ServiceModel(raw, "sagemaker")
    monkeypatch.setattr(servicemodel, "shape", newer.shape_for)
    assert coverage.missing() == ["cluster:Orchestrator.Slurm.Munge", "group:WarpDrive"]


def test_each_row_has_one_known_verdict_a_rule_for_omission_and_a_source():
    assert {m.change for m in MEMBERS} <= set(CHANGES)
    assert all(m.omitted in ("cleared", "kept") and m.source for m in MEMBERS)
    assert len({(m.scope, m.path) for m in MEMBERS}) == len(MEMBERS)
    tally = counts()
    assert tally["members"] == len(MEMBERS) == sum(v for k, v in tally.items() if k != "members")


def test_the_issue_s_create_only_members_are_refused_in_place():
    verdicts = {m.path: m.change for m in MEMBERS if m.scope == "group"}
    assert {verdicts[k] for k in ("ExecutionRole", "ThreadsPerCore", "OverrideVpcConfig", "InstanceType")} == {"new group name"}
    assert verdicts["ImageId"] == verdicts["ImageReleaseVersion"] == "UpdateClusterSoftware"
    assert verdicts["AutoPatchConfig"] == verdicts["ScheduledUpdateConfig"] == verdicts["TrainingPlanArn"] == "UpdateCluster"


def test_docs_members_md_is_the_table_as_generated():
    # regenerate with: python -m pulumi_hyperpod.members --write
    assert (ROOT / "docs" / "members.md").read_text() == render()
