"""A cloud, defined once (core/cloud.py) and one apply contract (core/contract.py): the registry
finds both clouds, each implements the interface, a spec document names its cloud, both clouds'
apply raise and return the contract's own types, and the options are checked once."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pulumi_hyperpod.core import cloud, contract

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_the_registry_finds_both_clouds_and_each_implements_the_interface():
    assert cloud.names() == ("aws", "gcp")
    for name in cloud.names():
        found = cloud.get(name)
        assert isinstance(found, cloud.Cloud) and found.name == name and found.title
    with pytest.raises(cloud.UnknownCloud, match="the clouds are aws, gcp"):
        cloud.get("azure")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("specs/seed004-initial.json", "aws"),
        ("specs/seed001-eks-continuous.json", "aws"),
        ("gcp-training-cluster/cluster.json", "gcp"),
    ],
)
def test_a_spec_document_names_its_cloud(spec, expected):
    assert cloud.for_document(json.loads((EXAMPLES / spec).read_text())).name == expected
    assert cloud.for_document("not a mapping").name == "aws"  # whose loader explains the error


def test_both_clouds_apply_under_one_contract():
    from pulumi_hyperpod.aws import apply as aws_apply
    from pulumi_hyperpod.gcp import apply as gcp_apply

    for name in ("PlanRefused", "PlanStale", "ApplyError", "ApplyResult", "ApplyOptions"):
        assert getattr(aws_apply, name) is getattr(contract, name) is getattr(gcp_apply, name), name
    assert not issubclass(contract.PlanStale, contract.PlanRefused)  # a stale plan is re-planned, not a guard's verdict
    assert issubclass(contract.ConcurrentChange, contract.ApplyError)


def test_one_wait_vocabulary():
    from pulumi_hyperpod.aws.apply.waiters import WAIT_POLICIES

    assert tuple(WAIT_POLICIES) == contract.WAITS  # AWS maps each to a botocore waiter
    assert not contract.ApplyOptions(wait="none").waits and contract.ApplyOptions().waits


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"wait": "forever"}, "wait must be one of none, InService, MinCount, Target"),
        ({"timeout": 0}, "timeout must be more than 0"),
        ({"timeout": float("inf")}, "timeout must be more than 0"),
    ],
)
def test_apply_options_are_checked_once(options, message):
    with pytest.raises(ValueError, match=message):
        contract.ApplyOptions(**options)


def test_prepare_offline_says_the_preflight_was_skipped_for_either_cloud():
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.gcp.spec import ClusterSpec as GcpSpec
    from pulumi_hyperpod.plan.policy import Policy

    for name, spec in (
        ("aws", ClusterSpec.from_file(str(EXAMPLES / "specs/seed004-initial.json"))),
        ("gcp", GcpSpec.from_file(str(EXAMPLES / "gcp-training-cluster/cluster.json"))),
    ):
        prepared = cloud.prepare(cloud.get(name), None, spec, Policy(), observed=None, skip_preflight="offline")
        assert prepared.cloud == name and prepared.plan.action == "create"
        assert prepared.plan.preflight.skipped == "offline" and prepared.plan.cost is not None
