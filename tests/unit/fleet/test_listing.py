"""The fleet listing's fan-out (fleet/listing.py) over a stand-in `list_one`: every account × region
the stacks name, once each, read concurrently and bounded; a region that fails is its own line."""

from __future__ import annotations

import threading

from pulumi_hyperpod.fleet.listing import RegionListing, failures, fleet_rows, list_fleet, places
from pulumi_hyperpod.fleet.spec import parse_fleet

A, B = "111122223333", "444455556666"


def stacks():
    return parse_fleet(
        {
            "stacks": [
                {"name": "a-west", "project": ".", "stack": "s1", "account": A, "region": "us-west-2"},
                {"name": "a-west-2", "project": ".", "stack": "s2", "account": A, "region": "us-west-2"},
                {"name": "b-east", "project": ".", "stack": "s3", "account": B, "region": "us-east-1"},
                {"name": "plain", "project": ".", "stack": "s4", "region": "us-west-2"},
            ]
        },
        "fleet.yaml",
    ).stacks


def test_each_account_and_region_once_in_fleet_order_with_its_first_stack():
    found = places(stacks())
    assert list(found) == [(A, "us-west-2"), (B, "us-east-1"), ("default", "us-west-2")]
    assert [stack.name for stack in found.values()] == ["a-west", "b-east", "plain"]


def test_rows_carry_their_account_and_region_and_a_failed_region_is_one_line():
    def list_one(account, region):
        if account == B:
            raise PermissionError("AccessDenied: not allowed to ListClusters")
        return [{"name": f"c-{account[:3]}-{region}"}]

    listings = list_fleet(list(places(stacks())), list_one, parallel=2)
    assert [(listing.account, listing.region, listing.error is None) for listing in listings] == [
        (A, "us-west-2", True),
        (B, "us-east-1", False),
        ("default", "us-west-2", True),
    ]
    assert fleet_rows(listings) == [
        {"account": A, "region": "us-west-2", "name": "c-111-us-west-2"},
        {"account": "default", "region": "us-west-2", "name": "c-def-us-west-2"},
    ]
    assert failures(listings) == [f"account {B} region us-east-1: AccessDenied: not allowed to ListClusters"]


def test_the_error_is_worded_by_the_given_function():
    def list_one(account, region):
        raise RuntimeError("no credentials")

    [listing] = list_fleet([(A, "eu-west-1")], list_one, word=lambda error: f"worded {error}")
    assert listing == RegionListing(A, "eu-west-1", error="worded no credentials")


def test_regions_are_read_at_once_up_to_the_bound():
    """Each read waits until `bound` reads are under way (a barrier): sequential reads would never
    meet it; no more than `bound` are ever in flight."""
    bound = 3
    barrier = threading.Barrier(bound, timeout=10)
    lock = threading.Lock()
    flying, most = [0], [0]

    def list_one(account, region):
        with lock:
            flying[0] += 1
            most[0] = max(most[0], flying[0])
        barrier.wait()
        with lock:
            flying[0] -= 1
        return [{"name": region}]

    where = [(A, f"region-{i}") for i in range(2 * bound)]
    listings = list_fleet(where, list_one, parallel=bound)
    assert [listing.error for listing in listings] == [None] * len(where)
    assert [row["name"] for row in fleet_rows(listings)] == [region for _, region in where]
    assert most[0] == bound


def test_an_empty_fleet_lists_nothing():
    assert list_fleet([], lambda account, region: [{"name": "x"}]) == []
