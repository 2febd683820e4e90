"""Every member of the task governance create requests has a verdict read from botocore's model
(aws/governance/kinds.py), so a botocore release that adds one fails here, not a user; what the
service sets is every Describe member the create does not take."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.governance.kinds import KINDS, QUOTA, SCHEDULER, _verdicts


@pytest.mark.parametrize("kind", KINDS, ids=lambda kind: kind.noun)
def test_every_create_member_has_a_verdict_and_every_update_member_is_one_of_them(kind):
    create = set(servicemodel.input_shape(kind.operation("Create")).members)
    assert set(kind.verdicts()) == create
    update = set(servicemodel.input_shape(kind.operation("Update")).members) - {kind.id_member, "TargetVersion"}
    assert update == {name for name, verdict in kind.verdicts().items() if verdict == "in place"}
    assert "TargetVersion" in servicemodel.input_shape(kind.operation("Update")).required_members


def test_the_service_set_members_are_never_the_specs():
    assert set(QUOTA.service_set()) >= {"ComputeQuotaArn", "ComputeQuotaId", "ComputeQuotaVersion", "Status", "CreationTime", "CreatedBy"}
    assert "StatusDetails" in SCHEDULER.service_set()
    for kind in KINDS:
        assert not set(kind.service_set()) & set(kind.create_members())


def test_a_member_without_a_verdict_stops_the_planner(monkeypatch):
    original = QUOTA.create_members()
    monkeypatch.setattr(type(QUOTA), "create_members", lambda self: (*original, "NewMember"))
    _verdicts.cache_clear()
    try:
        with pytest.raises(LookupError, match=r"CreateComputeQuota\.NewMember has no verdict"):
            QUOTA.verdicts()
    finally:
        monkeypatch.undo()
        _verdicts.cache_clear()


def test_the_step_kinds_complete_on_the_resources_status_and_take_no_node_down():
    from pulumi_hyperpod.plans import steps

    for kind in ("create-resource", "update-resource", "delete-resource"):
        declared = steps.declaration(kind)
        assert declared.completion == "resource-status" and declared.disruption.effect == "none"
    assert "acted" in steps.declaration("update-resource").premise and "configuration" in steps.declaration("update-resource").premise
