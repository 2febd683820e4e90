"""The member table (pulumi_hyperpod/members) against its sources: every model member has a row
(request and DescribeCluster shapes alike), every row a member, a read-back path DescribeCluster has,
a source that decides its verdict or what is missing, no verdict the newest CloudFormation schema
contradicts, every documented cross-field sentence a verdict; docs/members.md is written from it."""

from __future__ import annotations

import copy

import botocore.model
import pytest

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.members import CHANGES, MEMBERS, cfn_schema, coverage, counts, member
from pulumi_hyperpod.aws.members import sources as src
from pulumi_hyperpod.aws.members.docs import render
from pulumi_hyperpod.aws.members.table import FILLED, SENTENCES, UNVERIFIED, decided_by
from tests.support.paths import REPO

ROOT = REPO


def test_every_member_of_the_model_has_a_row_and_every_row_a_member():
    assert coverage.missing() == []
    assert coverage.stale() == []


def test_every_member_read_with_describe_cluster_is_in_its_output_shape():
    assert coverage.unread() == []


def test_every_describe_cluster_member_is_read_back_by_a_row_or_listed_as_the_service_s():
    assert coverage.unaccounted() == []
    assert coverage.unlisted_read_only() == []  # every readOnlyProperties entry of the newest schema is listed


def test_every_documented_cross_field_sentence_has_a_verdict():
    assert coverage.sentences() == []
    assert coverage.stale_sentences() == []
    assert all(s.judgement != "rule" or s.rule for s in SENTENCES)
    assert all(s.judgement == "rule" or s.why for s in SENTENCES)


def newer_model(monkeypatch, change) -> None:
    raw = copy.deepcopy(servicemodel.botocore_session().get_component("data_loader").load_service_model("sagemaker", "service-2"))
    change(raw["shapes"])
    newer = botocore.model.ServiceModel(raw, "sagemaker")
    monkeypatch.setattr(servicemodel, "shape", newer.shape_for)


def test_a_member_a_later_botocore_adds_fails_here_not_a_user(monkeypatch):
    def change(shapes):
        shapes["ClusterInstanceGroupSpecification"]["members"]["WarpDrive"] = {"shape": "String"}
        shapes["ClusterOrchestratorSlurmConfig"]["members"]["Munge"] = {"shape": "String"}
        shapes["ClusterInstanceGroupDetails"]["members"]["WarpStatus"] = {"shape": "String"}
        shapes["DescribeClusterResponse"]["members"]["ClusterHealth"] = {"shape": "String"}

    newer_model(monkeypatch, change)
    assert coverage.missing() == ["cluster:Orchestrator.Slurm.Munge", "group:WarpDrive"]
    assert coverage.unaccounted() == ["cluster:ClusterHealth", "cluster:Orchestrator.Slurm.Munge", "group:WarpStatus"]


def test_a_cross_field_sentence_a_later_botocore_documents_fails_here(monkeypatch):
    def change(shapes):
        shapes["ClusterInstanceGroupSpecification"]["members"]["ThreadsPerCore"]["documentation"] = (
            "<p>Threads per core.</p> <p>Valid only when <code>InstanceType</code> supports multithreading.</p>"
        )

    newer_model(monkeypatch, change)
    assert coverage.sentences() == [
        "ClusterInstanceGroupSpecification.ThreadsPerCore: Valid only when InstanceType supports multithreading."
    ]


def test_each_row_has_one_known_verdict_a_rule_for_omission_and_a_deciding_source_or_what_is_missing():
    assert {m.change for m in MEMBERS} <= set(CHANGES)
    assert all(m.omitted in ("cleared", "kept") for m in MEMBERS)
    assert len({(m.scope, m.path) for m in MEMBERS}) == len(MEMBERS)
    assert coverage.undecided() == []
    tally = counts()
    assert tally["members"] == len(MEMBERS) == sum(v for k, v in tally.items() if k != "members")
    assert tally[UNVERIFIED] == sum(1 for m in MEMBERS if m.unverified) > 0


def test_no_verdict_contradicts_the_newest_cloudformation_schema_unless_a_page_decides():
    assert coverage.against_schema() == []
    assert cfn_schema.CREATE_ONLY == ("/properties/ClusterName", "/properties/VpcConfig", "/properties/Orchestrator/Eks")


@pytest.mark.parametrize("path", ["ExecutionRole", "ThreadsPerCore", "OverrideVpcConfig"])
def test_the_members_a_superseded_schema_called_create_only_change_in_place(path):
    # issue 37 item 6: the newest schema marks only ClusterName, VpcConfig and the EKS orchestrator create-only
    row = member("group", path)
    assert row.change == "UpdateCluster" and decided_by(row) == "cloudformation"
    assert src.cfn_of(row).status == "updatable" and src.model_of(row).in_update


def test_instance_type_is_decided_by_the_page_where_the_schema_says_otherwise():
    row = member("group", "InstanceType")
    assert row.change == "new group name" and decided_by(row) == "page" and src.cfn_of(row).status == "updatable"
    assert member("cluster", "VpcConfig").change == "replacement" and src.cfn_of(member("cluster", "VpcConfig")).status == "create-only"
    assert src.cfn_of(member("cluster", "Orchestrator.Eks.ClusterArn")).listed == "/properties/Orchestrator/Eks"


def test_next_patch_date_is_the_service_s_and_the_request_takes_it():
    [patch] = [f for f in FILLED if f.request]
    assert (patch.scope, patch.request) == ("group", "AutoPatchConfig.PatchSchedule.NextPatchDate")
    assert src.cfn_status(src.cfn_pointer("group", patch.request)).status == "read-only"


def test_docs_members_md_is_the_table_as_generated():
    # regenerate with: python -m pulumi_hyperpod.aws.members --write
    text = (ROOT / "docs" / "members.md").read_text()
    assert text == render()
    assert "## Unverified rows" in text and "| unverified | 2 |" in text
    assert cfn_schema.SCHEMA["path"] in text and cfn_schema.SCHEMA["changed"][:12] in text
