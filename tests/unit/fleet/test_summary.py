"""The fleet plan over plan dicts (pulumi_hyperpod/fleet/summary.py): each cluster read from its
plan, and the fleet's preflight on quota summed per account × region × instance type."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.fleet.summary import FLEET_PLAN_FORMAT, StackPlans, cluster_summary, fleet_plan, quota_draws


def plan(name, adds=0, in_use=0, quota=4.0, kind="ml.g5.xlarge", *, refusals=(), victims=(), delta=None):
    return {
        "format": "hyperpod-plan/3",
        "cluster_name": name,
        "action": "update" if adds or victims else "none",
        "steps": [{"operation": "UpdateCluster", "victims": list(victims)}] if adds or victims else [],
        "refusals": [{"rule": "r", "reason": reason} for reason in refusals],
        "cost": {"currency": "USD", "cluster": {"delta_per_hour": delta}} if delta is not None else None,
        "empty": not (adds or victims or refusals),
        "preflight": {
            "verdict": "ok",
            "quotas": {
                "status": "checked",
                "checks": [
                    {
                        "quota_name": f"{kind} for cluster usage",
                        "quota": quota,
                        "instance_type": kind,
                        "in_use": in_use,
                        "adds": adds,
                        "after": in_use + adds,
                    }
                ],
            },
        },
    }


def test_two_scale_outs_that_fit_alone_but_not_together_are_refused_naming_both():
    stacks = [
        StackPlans("east", "111122223333", "us-west-2", (plan("a", adds=2, in_use=2),)),
        StackPlans("west", "111122223333", "us-west-2", (plan("b", adds=2, in_use=2),)),
    ]
    document = fleet_plan(stacks)
    assert document["format"] == FLEET_PLAN_FORMAT and document["refused"]
    (draw,) = document["quotas"]
    assert (draw["adds"], draw["headroom"], draw["stacks"], draw["over"]) == (4, 2.0, ["east", "west"], True)
    assert document["refusals"] == [
        "stacks east, west together add 4 ml.g5.xlarge in account 111122223333 region us-west-2; "
        "the quota 'ml.g5.xlarge for cluster usage' has room for 2"
    ]


def test_the_same_scale_outs_in_two_accounts_or_regions_pass():
    for where in (("111122223333", "us-west-2"), ("444455556666", "us-west-2"), ("111122223333", "us-east-1")):
        stacks = [
            StackPlans("east", "111122223333", "us-west-2", (plan("a", adds=2, in_use=2),)),
            StackPlans("west", *where, (plan("b", adds=2, in_use=2),)),
        ]
        assert fleet_plan(stacks)["refused"] is (where == ("111122223333", "us-west-2"))


def test_clusters_are_read_from_their_plans():
    victim = {"node_id": "i-0abc", "group": "workers", "reason": "the newest", "logical": False, "status": "Running"}
    summary = cluster_summary(plan("a", victims=[victim], delta=-1.5, refusals=("no",)))
    assert summary["steps"] == ["UpdateCluster"] and summary["victims"] == [
        {"node_id": "i-0abc", "group": "workers", "reason": "the newest"}
    ]
    assert (summary["cost_delta_per_hour"], summary["currency"], summary["refusals"]) == (-1.5, "USD", ["no"])
    document = fleet_plan([StackPlans("s", None, "us-west-2", (plan("a", refusals=("no",)),))])
    assert document["refused"] and document["refusals"] == []  # a plan's own refusal, no fleet one
    assert document["stacks"][0]["account"] is None


def test_errors_and_empty():
    document = fleet_plan([StackPlans("s", None, "us-west-2", error="boom"), StackPlans("t", None, "us-west-2", (plan("a"),))])
    assert document["errors"] == 1 and document["empty"] and not document["refused"]
    assert not fleet_plan([StackPlans("s", None, "us-west-2", changes={"update": 1})])["empty"]


def test_an_unread_quota_is_no_refusal():
    draws = quota_draws([StackPlans("s", None, "us-west-2", (plan("a", adds=50, quota=None),))])
    assert draws[0].headroom is None and not draws[0].over


ACCOUNTS = st.sampled_from(["111122223333", "444455556666", None])
REGIONS = st.sampled_from(["us-west-2", "us-east-1"])
KINDS = st.sampled_from(["ml.g5.xlarge", "ml.p5.48xlarge"])
# the world: per account × region × type, its quota and what is in use (every plan of it reads the same)
WORLD = st.dictionaries(st.tuples(ACCOUNTS, REGIONS, KINDS), st.tuples(st.integers(0, 20), st.integers(0, 20)), min_size=1)


@settings(max_examples=200, deadline=None)
@given(WORLD, st.data())
def test_the_fleet_refuses_exactly_when_some_sum_exceeds_its_headroom(world, data):
    keys = sorted(world, key=str)
    stacks = []
    for index in range(data.draw(st.integers(1, 6))):
        account, region, kind = data.draw(st.sampled_from(keys))
        quota, in_use = world[(account, region, kind)]
        adds = data.draw(st.integers(0, 10))
        stacks.append(
            StackPlans(f"s{index}", account, region, (plan(f"c{index}", adds=adds, in_use=in_use, quota=float(quota), kind=kind),))
        )
    sums: dict = {}
    for stack in stacks:
        check = stack.plans[0]["preflight"]["quotas"]["checks"][0]
        key = (stack.account, stack.region, check["instance_type"])
        sums[key] = sums.get(key, 0) + check["adds"]
    expected = any(total > world[key][0] - world[key][1] for key, total in sums.items() if total)
    document = fleet_plan(stacks)
    assert document["refused"] is expected
    assert bool(document["refusals"]) is expected
    for draw in document["quotas"]:
        assert draw["stacks"] and all(name in {s.stack for s in stacks} for name in draw["stacks"])


def test_the_per_cluster_quota_is_never_summed_over_the_fleet():
    from pulumi_hyperpod.aws.preflight.quotas import _ALIASES, PER_CLUSTER
    from pulumi_hyperpod.fleet.summary import PER_CLUSTER_QUOTA

    assert {PER_CLUSTER[0].lower(), PER_CLUSTER[1].lower(), *_ALIASES} == PER_CLUSTER_QUOTA
    each = plan("a", adds=8, in_use=2, quota=10.0, kind=None)
    each["preflight"]["quotas"]["checks"][0].update(quota_name=PER_CLUSTER[1], quota_code=PER_CLUSTER[0])
    stacks = [StackPlans("east", None, "us-west-2", (each,)), StackPlans("west", None, "us-west-2", (dict(each, cluster_name="b"),))]
    assert quota_draws(stacks) == [] and not fleet_plan(stacks)["refused"]
