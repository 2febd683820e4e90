"""Several accounts in one simulated world (sim/aws/accounts.py): a request acts as the account its
access key names — a 12-digit key id is that account, the scenario's `accounts` map other keys, any
other key is the default account — and clusters, ARNs, list calls and Service Quotas are per account
and region. A world stored before accounts were simulated still loads."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import boto3
import pytest
from botocore.exceptions import ClientError

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.aws.accounts import access_key_id
from pulumi_hyperpod.sim.aws.quotas import type_quota_name
from tests.support.sim_helpers import eks_request, group, nodes_of

DATA = Path(__file__).parent / "data"
ALICE, BOB, CAROL, DEFAULT = "111111111111", "222222222222", "333333333333", "123456789012"
C5 = type_quota_name("ml.c5.xlarge")


def as_key(sim: Simulator, key: str, service: str = "sagemaker", region: str = "us-west-2"):
    """A boto3 client signing with access key id `key`, answered by `sim` in process."""
    client = boto3.client(service, region_name=region, aws_access_key_id=key, aws_secret_access_key="not-checked")
    return sim.attach(client)


def request(name: str = "a", count: int = 2) -> dict:
    return eks_request(name, [group("workers", count)])


def names_and_arns(client) -> list[tuple[str, str]]:
    return [(c["ClusterName"], c["ClusterArn"]) for c in client.list_clusters()["ClusterSummaries"]]


def test_two_accounts_each_have_their_own_cluster_of_one_name_in_one_region():
    sim = Simulator(seed=1)
    alice, bob = as_key(sim, ALICE), as_key(sim, BOB)
    alice_arn = alice.create_cluster(**request("a"))["ClusterArn"]
    bob_arn = bob.create_cluster(**request("a"))["ClusterArn"]
    assert alice_arn.startswith(f"arn:aws:sagemaker:us-west-2:{ALICE}:cluster/")
    assert bob_arn.startswith(f"arn:aws:sagemaker:us-west-2:{BOB}:cluster/")
    assert names_and_arns(alice) == [("a", alice_arn)] and names_and_arns(bob) == [("a", bob_arn)]
    assert names_and_arns(sim.client()) == [], "the default account has no cluster"
    with pytest.raises(ClientError) as refused:
        alice.describe_cluster(ClusterName=bob_arn)
    assert refused.value.response["Error"]["Code"] == "ResourceNotFound"
    with pytest.raises(ClientError) as again:
        alice.create_cluster(**request("a"))
    assert "already exists" in again.value.response["Error"]["Message"]

    sim.advance(1800)
    alice_nodes = {n["InstanceId"] for n in nodes_of(alice, "a")}
    bob_nodes = {n["InstanceId"] for n in nodes_of(bob, "a")}
    assert len(alice_nodes) == len(bob_nodes) == 2 and not alice_nodes & bob_nodes, "node ids are unique across accounts"
    events = alice.list_cluster_events(ClusterName="a")["Events"]
    assert events and all(bob_nodes.isdisjoint([e.get("InstanceId")]) for e in events)
    bob.delete_cluster(ClusterName="a")
    assert alice.describe_cluster(ClusterName="a")["ClusterStatus"] != "Deleting"


def test_unsigned_and_other_keys_are_the_default_account():
    sim = Simulator(seed=2)
    arn = as_key(sim, "AKIAIOSFODNN7EXAMPLE").create_cluster(**request())["ClusterArn"]
    assert f":{DEFAULT}:cluster/" in arn
    assert names_and_arns(sim.client()) == [("a", arn)], "the simulator's own clients are the default account"
    assert access_key_id({}) is None
    assert access_key_id({"Authorization": "AWS4-HMAC-SHA256 Credential=210987654321/20261205/us-west-2/sagemaker/aws4_request, "}) == (
        "210987654321"
    )


def test_a_scenario_maps_other_key_ids_to_its_accounts():
    scenario = {"accounts": {"444455556666": {"access_keys": ["AKIAEXAMPLEKEY000001"]}}}
    sim = Simulator(seed=3, scenario=scenario)
    mapped = as_key(sim, "AKIAEXAMPLEKEY000001")
    arn = mapped.create_cluster(**request())["ClusterArn"]
    assert ":444455556666:cluster/" in arn
    assert names_and_arns(as_key(sim, "444455556666")) == [("a", arn)], "the key and the account's own id are one account"
    assert names_and_arns(as_key(sim, "AKIAEXAMPLEKEY000002")) == [], "an unlisted key is the default account"
    assert [sim.account_of(key) for key in ("AKIAEXAMPLEKEY000001", "210987654321", "AKIAEXAMPLEKEY000002", None)] == [
        "444455556666",
        "210987654321",
        DEFAULT,
        DEFAULT,
    ]


@pytest.mark.parametrize(
    ("accounts", "says"),
    [
        ({"12345": {}}, "accounts.12345"),
        ({"444455556666": {"access_keys": ["short"]}}, "accounts.444455556666.access_keys.0"),
        ({"444455556666": {"access_keys": ["AKIA EXAMPLE KEY 0001"]}}, "accounts.444455556666.access_keys.0"),
        ({"444455556666": {"quotas": [{"quota_name": C5, "value": 1, "region": "mars-north-9"}]}}, "not an AWS region"),
        (
            {"444455556666": {"access_keys": ["AKIAEXAMPLEKEY000001"]}, "777788889999": {"access_keys": ["AKIAEXAMPLEKEY000001"]}},
            "listed under both 444455556666 and 777788889999",
        ),
        ({"444455556666": {"acess_keys": []}}, "acess_keys"),
    ],
)
def test_a_bad_accounts_entry_is_one_error_naming_it(accounts, says):
    with pytest.raises(ValueError) as refused:
        Simulator(scenario={"accounts": accounts})
    message = str(refused.value)
    assert message.startswith("invalid simulator scenario:") and says in message and "\n" not in message


def test_quotas_values_and_usage_are_per_account_and_region():
    scenario = {
        "quotas": [{"quota_name": C5, "value": 2}],  # every account's
        "accounts": {
            BOB: {"account": "new"},  # a new account: AWS's defaults (0 of every instance type) under the scenario's quotas
            CAROL: {"quotas": [{"quota_name": C5, "value": 0, "region": "us-east-1"}]},
        },
    }
    sim = Simulator(seed=4, scenario=scenario)
    alice, bob, carol = as_key(sim, ALICE), as_key(sim, BOB), as_key(sim, CAROL)
    alice.create_cluster(**request("a", 2))
    carol.create_cluster(**request("a", 2))  # Alice's 2 do not count against Carol's 2
    as_key(sim, ALICE, region="us-east-1").create_cluster(**request("a", 2))  # nor against her own in another region
    alice.create_cluster(**eks_request("big", [group("workers", 1, "ml.c5.2xlarge")]))
    refusals = [
        (alice, request("b", 1)),  # over her 2 in us-west-2
        (bob, eks_request("big", [group("workers", 1, "ml.c5.2xlarge")])),  # a new account's 0
        (as_key(sim, CAROL, region="us-east-1"), request("a", 1)),  # her 0 in us-east-1
    ]
    for client, refused_request in refusals:
        with pytest.raises(ClientError) as refused:
            client.create_cluster(**refused_request)
        assert refused.value.response["Error"]["Code"] == "ResourceLimitExceeded"

    def applied(key: str, region: str = "us-west-2") -> dict[str, float]:
        pages = as_key(sim, key, "service-quotas", region).get_paginator("list_service_quotas").paginate(ServiceCode="sagemaker")
        quotas = [quota for page in pages for quota in page["Quotas"]]
        assert quotas and all(f":{region}:{key}:sagemaker/" in q["QuotaArn"] for q in quotas), "a quota's ARN names its account"
        return {q["QuotaName"]: q["Value"] for q in quotas}

    big = type_quota_name("ml.c5.2xlarge")
    assert (applied(ALICE)[C5], applied(ALICE)[big]) == (2, 10000)
    assert applied(BOB) == {C5: 2}, "a new account lists only what was applied to it"
    assert (applied(CAROL)[C5], applied(CAROL, "us-east-1")[C5]) == (2, 0)


def test_set_quota_of_one_account_leaves_the_others():
    sim = Simulator(seed=5)
    sim.set_quota(0, name=C5, account=BOB)
    as_key(sim, ALICE).create_cluster(**request("a", 1))
    with pytest.raises(ClientError) as refused:
        as_key(sim, BOB).create_cluster(**request("a", 1))
    assert refused.value.response["Error"]["Code"] == "ResourceLimitExceeded"
    sim.set_quota(5, name=C5, account=BOB, region="us-west-2")
    as_key(sim, BOB).create_cluster(**request("a", 1))


def test_a_world_stored_before_accounts_loads_and_serves_its_account(tmp_path):
    """data/world-before-accounts.sql: a persistent world written by the simulator before this change
    (an EKS Continuous cluster `hp-eks-continuous` of 2 running ml.c5.2xlarge nodes, a quota of 4 of
    them applied, its events), dumped by sqlite3's iterdump with its header marker."""
    path = tmp_path / "fake.sqlite"
    with sqlite3.connect(path) as conn:
        conn.executescript((DATA / "world-before-accounts.sql").read_text())
    conn.close()
    sim = Simulator(path)
    client = sim.client()
    arn = client.describe_cluster(ClusterName="hp-eks-continuous")["ClusterArn"]
    assert f":{DEFAULT}:cluster/" in arn
    assert [n["InstanceStatus"]["Status"] for n in nodes_of(client, "hp-eks-continuous")] == ["Running", "Running"]
    assert client.list_cluster_events(ClusterName=arn)["Events"]
    other = as_key(sim, ALICE)
    assert names_and_arns(other) == []
    big = eks_request("hp-eks-continuous", [group("ig-1", 3, "ml.c5.2xlarge")])
    with pytest.raises(ClientError) as refused:  # the stored quota of 4 applies to every account, usage to each its own
        client.create_cluster(**{**big, "ClusterName": "second"})
    assert refused.value.response["Error"]["Code"] == "ResourceLimitExceeded"
    other.create_cluster(**big)
    assert {arn.split(":")[4] for _, arn in names_and_arns(other) + names_and_arns(client)} == {ALICE, DEFAULT}
    assert len(names_and_arns(Simulator(path).client())) == 1, "the second account's cluster was stored, and stays its own"
