"""Fleet moves (pulumi_hyperpod/fleet/moves.py): a cluster's scale-in and another's scale-out of the
same instance type, in one account and region, EKS + Continuous, pair into MoveClusterNodes of the
scale-in's own Running victims, at most min(removed, added); anything else pairs into nothing."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pulumi_hyperpod import ClusterSpec, Policy
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.fleet import moves
from pulumi_hyperpod.fleet.summary import StackPlans, fleet_plan
from tests.support.factories import group, observed_from

P5, G5 = "ml.p5.48xlarge", "ml.g5.xlarge"
ACCOUNT, REGION = "111122223333", "us-west-2"


def eks(name: str, count: int, *, kind: str = P5, continuous: bool = True, orchestrator: str = "Eks", **extra: Any) -> ClusterSpec:
    data: dict[str, Any] = {
        "ClusterName": name,
        "InstanceGroups": [group("workers", count, None, InstanceType=kind, **extra)],
    }
    if orchestrator == "Eks":
        data["Orchestrator"] = {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/my-eks-cluster"}}
        data["VpcConfig"] = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]}
    if continuous:
        data["NodeProvisioningMode"] = "Continuous"
    return ClusterSpec.from_dict(data)


class Fleet:
    """Clusters as observed, their plans as the stacks' previews would write them, and the pairing."""

    def __init__(self) -> None:
        self.states: dict[tuple[str, str], Any] = {}
        self.stacks: list[StackPlans] = []
        self.waves: dict[str, str] = {}

    def stack(self, name: str, before: ClusterSpec, after: ClusterSpec, *, account: str = ACCOUNT, region: str = REGION,
              wave: str = "all", policy: Policy | None = None, **observed: Any) -> Fleet:  # fmt: skip
        state = observed_from(before, **observed)
        state = dataclasses.replace(state, arn=state.arn.replace(ACCOUNT, account).replace(REGION, region))
        self.states[name, before.name] = state
        document = json.loads(plan(after, state, policy).to_json())  # as the provider writes it
        self.stacks.append(StackPlans(name, account, region, (document,)))
        self.waves[name] = wave
        return self

    def pair(self) -> tuple[list[moves.FleetMove], list[str]]:
        return moves.pair(self.stacks, self.waves, lambda stack, cluster: self.states[stack, cluster])


def victims_of(fleet: Fleet, stack: str) -> list[str]:
    (stack_plans,) = [s for s in fleet.stacks if s.stack == stack]
    return [v["node_id"] for p in stack_plans.plans for step in p["steps"] for v in step["victims"]]


def test_a_scale_in_and_a_scale_out_of_one_type_in_one_account_and_region_move_the_victims() -> None:
    fleet = Fleet().stack("east", eks("a", 4), eks("a", 2)).stack("west", eks("b", 1), eks("b", 3))
    (move,), notes = fleet.pair()
    assert notes == []
    assert (str(move.source), str(move.target), move.instance_type) == ("east/a/workers", "west/b/workers", P5)
    assert [n.node_id for n in move.nodes] == victims_of(fleet, "east"), "the victim rules' own choice, in their order"
    assert all(n.reason.startswith("moves to west/b/workers; ") for n in move.nodes)
    assert (move.source.arn, move.target.arn) == (fleet.states["east", "a"].arn, fleet.states["west", "b"].arn)


def test_never_more_than_min_of_removed_and_added() -> None:
    fewer_added = Fleet().stack("east", eks("a", 5), eks("a", 1)).stack("west", eks("b", 1), eks("b", 3))
    ((move,), _) = fewer_added.pair()
    assert len(move.nodes) == 2 and [n.node_id for n in move.nodes] == victims_of(fewer_added, "east")[:2]
    fewer_removed = Fleet().stack("east", eks("a", 4), eks("a", 3)).stack("west", eks("b", 1), eks("b", 5))
    ((move,), _) = fewer_removed.pair()
    assert len(move.nodes) == 1
    two_targets = (
        Fleet().stack("east", eks("a", 4), eks("a", 1)).stack("west", eks("b", 1), eks("b", 2)).stack("north", eks("c", 1), eks("c", 2))
    )
    found, _ = two_targets.pair()
    assert [(str(m.target), len(m.nodes)) for m in found] == [("west/b/workers", 1), ("north/c/workers", 1)]
    assert len({n.node_id for m in found for n in m.nodes}) == 2, "a node moves once"


def test_other_accounts_regions_types_or_clusters_pair_into_nothing() -> None:
    for target in (
        {"account": "444455556666"},
        {"region": "us-east-1"},
        {"kind": G5},
    ):
        kind = target.pop("kind", P5)
        fleet = Fleet().stack("east", eks("a", 4), eks("a", 2)).stack("west", eks("b", 1, kind=kind), eks("b", 3, kind=kind), **target)
        assert fleet.pair()[0] == [], target
    one_cluster = Fleet().stack("east", eks("a", 4), eks("a", 2))
    assert one_cluster.pair() == ([], [])


def test_only_eks_continuous_clusters_move_and_the_note_says_why() -> None:
    provisioned = (
        Fleet().stack("east", eks("a", 4, continuous=False), eks("a", 2, continuous=False)).stack("west", eks("b", 1), eks("b", 3))
    )
    found, (note,) = provisioned.pair()
    assert found == [] and "does not use NodeProvisioningMode Continuous" in note and note.startswith("east/a/workers → west/b/workers")
    slurm = (
        Fleet()
        .stack("east", eks("a", 4), eks("a", 2))
        .stack("west", eks("b", 1, orchestrator="Slurm", continuous=False), eks("b", 3, orchestrator="Slurm", continuous=False))
    )
    found, (note,) = slurm.pair()
    assert found == [] and "needs Amazon EKS" in note


def test_the_source_keeps_its_min_count_and_only_running_victims_move() -> None:
    fleet = Fleet().stack("east", eks("a", 4), eks("a", 2), mins={"workers": 3}).stack("west", eks("b", 1), eks("b", 3))
    ((move,), _) = fleet.pair()
    assert len(move.nodes) == 1, "4 Running, MinCount 3: one may leave"
    failed = observed_from(eks("a", 4)).nodes[3].key
    broken = Fleet().stack("east", eks("a", 4), eks("a", 2), statuses={failed: "Failure"}).stack("west", eks("b", 1), eks("b", 3))
    ((move,), _) = broken.pair()
    assert failed in victims_of(broken, "east") and failed not in {n.node_id for n in move.nodes}


def test_stacks_of_different_waves_do_not_move_and_the_note_says_why() -> None:
    fleet = Fleet().stack("east", eks("a", 4), eks("a", 2), wave="one").stack("west", eks("b", 1), eks("b", 3), wave="two")
    found, (note,) = fleet.pair()
    assert found == [] and "different waves (one, two)" in note


def test_the_moves_section_and_the_quota_preflight_net_of_the_moved_nodes() -> None:
    """Refused as delete + add (east's release does not make room for west's add), it fits as a move."""
    fleet = Fleet().stack("east", eks("a", 4), eks("a", 2)).stack("west", eks("b", 1), eks("b", 3))
    for stack in fleet.stacks:  # the headroom the plans' own preflight read: 1 more P5 in the account
        for document in stack.plans:
            adds = sum(g["delta"] for g in document["groups"] if g["delta"] > 0)
            document["preflight"] = {"quotas": {"checks": [{"quota_name": f"{P5} for cluster usage", "instance_type": P5,
                                                            "quota": 6.0, "in_use": 5, "adds": adds}]}}  # fmt: skip
    found, notes = fleet.pair()
    refused = fleet_plan(fleet.stacks)
    assert refused["refused"] and refused["quotas"][0]["adds"] == 2
    moved = fleet_plan(fleet.stacks, moves.section(found, notes, True))
    assert not moved["refused"] and moved["quotas"] == [], "nothing is added: both nodes move"
    section = moved["moves"]
    assert section["kept"] == [f"2 × {P5} moved, not released and re-requested"]
    assert [n["node_id"] for n in section["moves"][0]["nodes"]] == victims_of(fleet, "east")
    assert section["moves"][0]["source"]["stack"] == "east" and section["moves"][0]["target"]["cluster"] == "b"


def test_the_switch_off_proposes_no_move() -> None:
    off = moves.section([], [], False)
    assert off == {"enabled": False, "moves": [], "kept": [], "cost": None, "notes": []}
    assert fleet_plan([], None)["moves"]["enabled"] is False


def named(name: str, train: int, serve: int) -> ClusterSpec:
    from tests.support.moves import spec

    return ClusterSpec.from_dict({**spec(train, serve).to_api(), "ClusterName": name})


def two_clusters() -> tuple[Any, moves.Observer, list[moves.FleetMove]]:
    """On the simulator, clusters a and b (EKS + Continuous, groups train 3 and serve 1): stack east
    lowers a's train to 1, stack west raises b's serve to 3; the world, the observer, the pairing."""
    from tests.support.moves import World

    world = World()
    for name in ("a", "b"):
        world.build(named(name, 3, 1))
    world.sim.advance(3600)
    observer = moves.Observer([], client_for=lambda stack: world.sagemaker)
    observer.by_name.update(east="east", west="west")
    stacks = [
        StackPlans("east", ACCOUNT, REGION, (json.loads(world.planned(named("a", 1, 1)).to_json()),)),
        StackPlans("west", ACCOUNT, REGION, (json.loads(world.planned(named("b", 3, 3)).to_json()),)),
    ]
    found, notes = moves.pair(stacks, {"east": "all", "west": "all"}, observer)
    assert notes == []
    world.sim.calls.clear()
    return world, observer, found


def test_apply_moves_the_nodes_into_the_other_cluster_and_its_plans_are_then_empty() -> None:
    """On the simulator: the moves a fleet plan proposes are made by the project's executor (one
    MoveClusterNodes, the hand-off waited for), and nothing is deleted or added; afterwards the two
    clusters are at their specs: their plans (what the stacks' ups would do) have no step."""
    from pulumi_hyperpod import observe

    world, observer, found = two_clusters()
    (move,) = found
    moving = {n.node_id for n in move.nodes}
    assert len(moving) == 2 and moving <= {n.instance_id for n in observer.states["east", "a"].nodes}

    (result,) = moves.apply_moves(found, observer, sleep=world.sim.advance, monotonic=lambda: world.sim.now().timestamp())

    assert (result.gate, result.stack, result.cluster, result.outcome) == ("moves", "east", "a", "passed"), result.detail
    assert world.sent("MoveClusterNodes", "BatchDeleteClusterNodes", "BatchAddClusterNodes") == ["MoveClusterNodes"]
    assert moving <= {n.instance_id for n in observe(world.sagemaker, "b").nodes if n.group == "serve"}
    world.sim.advance(3600)
    for name, desired in (("a", named("a", 1, 1)), ("b", named("b", 3, 3))):
        assert world.planned(desired).steps == (), f"cluster {name} is at its spec after the move"


def test_a_source_cluster_changed_since_the_plan_is_not_moved() -> None:
    world, observer, found = two_clusters()
    world.apply(world.planned(named("a", 3, 2)))  # another writer grows a's serve group meanwhile
    world.sim.calls.clear()
    (result,) = moves.apply_moves(found, observer, sleep=world.sim.advance, monotonic=lambda: world.sim.now().timestamp())
    assert result.outcome == "failed"
    assert (
        result.detail
        == "2 to west/b/serve: cluster a changed since the plan was made: serve: TargetCount 1 → 2. Nothing was changed; make the plan again"
    )
    assert world.sent("MoveClusterNodes") == []
