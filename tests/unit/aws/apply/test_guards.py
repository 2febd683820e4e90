"""apply re-checks the policy's guards on every step it sends, whatever the Plan object says: a plan
edited in memory (or loaded from a file someone resealed) never removes a Controller node, a Login
node unless allowed, or a protected node; never names a node or makes a step twice; and victims
re-chosen at apply time are net of the nodes earlier steps removed."""

from __future__ import annotations

import dataclasses

import pytest

from pulumi_hyperpod import ClusterSpec, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.apply import PlanRefused
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.plans import Plan, Policy, Step, Victim
from tests.support.slurm_groups import slurm_group
from tests.support.cli import MUTATING

ROLE = "arn:aws:iam::111122223333:role/hp"
LIFECYCLE = {"SourceS3Uri": "s3://bucket/lc/", "OnCreate": "on_create.sh"}
VPC = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]}


def slurm_spec(workers: int, login: int = 1) -> ClusterSpec:
    def group(name: str, node_type: str, count: int, **slurm) -> dict:
        return slurm_group(name, node_type, count, LIFECYCLE, ROLE, **slurm)

    groups = [
        group("controller", "Controller", 1),
        group("login", "Login", login),
        group("workers", "Compute", workers, PartitionNames=["p1"]),
    ]
    return ClusterSpec.from_dict(
        {
            "ClusterName": "gx",
            "NodeProvisioningMode": "Continuous",
            "Orchestrator": {"Slurm": {}},
            "VpcConfig": VPC,
            "InstanceGroups": [g for g in groups if g["InstanceCount"] or g["InstanceGroupName"] != "login"],
        }
    )


@pytest.fixture
def running():
    sim = Simulator(seed=5)
    client = connect(backend="fake", simulator=sim, max_attempts=1)
    apply(
        client,
        plan(slurm_spec(4, login=2), None),
        wait="Target",
        timeout=6 * 3600,
        sleep=sim.advance,
        monotonic=lambda: sim.now().timestamp(),
    )
    sim.reset_calls()
    return sim, client


def _sent(sim) -> list[str]:
    return [operation for operation, _ in sim.calls if operation in MUTATING]


def _run(sim, client, the_plan: Plan, policy: Policy | None = None, check_fresh: bool = True):
    return apply(client, the_plan, policy=policy, sleep=sim.advance, timeout=600, wait="none", check_fresh=check_fresh)


def _victim(state, group: str, index: int = 0) -> Victim:
    node = state.nodes_of(group)[index]
    return Victim(group, node.key, not node.launched, node.status, "edited in")


def _with_steps(the_plan: Plan, *steps: Step) -> Plan:
    return dataclasses.replace(the_plan, steps=tuple(steps), action="update")


def _delete(state, *victims: Victim) -> Step:
    return Step(
        "BatchDeleteClusterNodes",
        {"ClusterName": state.name, "NodeIds": [v.node_id for v in victims]},
        ("edited",),
        victims,
        kind="remove-nodes",
    )


def test_a_login_node_named_as_a_victim_is_refused_and_nothing_is_sent(running):
    sim, client = running
    state = observe(client, "gx")
    base = plan(slurm_spec(3, login=2), state)
    login = _victim(state, "login")

    with pytest.raises(PlanRefused, match="Login"):
        _run(sim, client, _with_steps(base, _delete(state, login)))

    assert _sent(sim) == []
    assert len(observe(client, "gx").nodes_of("login")) == 2


def test_a_login_node_may_go_when_the_policy_allows_it(running):
    sim, client = running
    state = observe(client, "gx")
    base = plan(slurm_spec(4, login=1), state, Policy(allow_login_scale_in=True))
    assert [s.operation for s in base.steps] == ["BatchDeleteClusterNodes"]

    _run(sim, client, base, Policy(allow_login_scale_in=True))

    assert _sent(sim) == ["BatchDeleteClusterNodes"]


def test_a_controller_node_named_as_a_victim_is_refused_even_when_controller_scale_in_is_allowed(running):
    sim, client = running
    state = observe(client, "gx")
    base = plan(slurm_spec(3, login=2), state)

    with pytest.raises(PlanRefused, match="Controller"):
        _run(sim, client, _with_steps(base, _delete(state, _victim(state, "controller"))), Policy(allow_controller_scale_in=True))

    assert _sent(sim) == []


def test_a_protected_node_named_as_a_victim_is_refused(running):
    sim, client = running
    state = observe(client, "gx")
    base = plan(slurm_spec(3, login=2), state)
    worker = _victim(state, "workers", 1)

    with pytest.raises(PlanRefused, match="protected"):
        _run(sim, client, _with_steps(base, _delete(state, worker)), Policy(protected_node_ids=frozenset({worker.node_id})))

    assert _sent(sim) == []


def test_an_update_that_deletes_the_login_group_is_refused(running):
    sim, client = running
    state = observe(client, "gx")
    base = plan(slurm_spec(3, login=2), state)
    inserted = Step("UpdateCluster", {"ClusterName": "gx", "InstanceGroupsToDelete": ["login"]}, ("looks harmless",), kind="update-cluster")

    with pytest.raises(PlanRefused, match="login"):
        _run(sim, client, _with_steps(base, inserted, *base.steps))

    assert _sent(sim) == []
    assert observe(client, "gx").group("login") is not None


def test_an_update_that_lowers_the_controller_count_is_refused_unless_allowed(running):
    sim, client = running
    state = observe(client, "gx")
    base = plan(slurm_spec(4, login=2), state)
    entry = slurm_spec(4).group("controller").to_api()
    lowered = Step(
        "UpdateCluster", {"ClusterName": "gx", "InstanceGroups": [{**entry, "InstanceCount": 0}]}, ("edited",), kind="update-cluster"
    )

    with pytest.raises(PlanRefused, match="controller"):
        _run(sim, client, _with_steps(base, lowered))

    assert _sent(sim) == []


def test_a_node_named_in_two_steps_is_refused_before_any_call(running):
    sim, client = running
    state = observe(client, "gx")
    base = plan(slurm_spec(3, login=2), state)
    [step] = base.steps

    with pytest.raises(PlanRefused, match="more than once"):
        _run(sim, client, _with_steps(base, step, step))

    assert _sent(sim) == []
    assert len([n for n in observe(client, "gx").nodes_of("workers") if n.status == "Running"]) == 4


def test_a_step_made_twice_is_refused(running):
    sim, client = running
    state = observe(client, "gx")
    base = plan(slurm_spec(4, login=2), state)
    update = Step(
        "UpdateCluster",
        {"ClusterName": "gx", "InstanceGroups": [slurm_spec(5).group("workers").to_api()]},
        ("edited",),
        kind="update-cluster",
    )

    with pytest.raises(PlanRefused, match="twice"):
        _run(sim, client, _with_steps(base, update, update))

    assert _sent(sim) == []


def test_victims_re_chosen_after_an_earlier_step_are_net_of_the_nodes_it_removed(running):
    """Two scale-in steps in one plan: when the second's victims changed state, the re-chosen ones
    never include a node the first step removed, and the total removed is what the plan showed."""
    sim, client = running
    state = observe(client, "gx")
    workers = [_victim(state, "workers", i) for i in range(2)]
    the_plan = _with_steps(plan(slurm_spec(2, login=2), state), _delete(state, workers[0]), _delete(state, workers[1]))
    sim.fail_node("gx", workers[1].node_id, retryable=True)  # the second victim changed: it is chosen again

    _run(sim, client, the_plan, check_fresh=False)

    sent = [params for operation, params in sim.calls if operation == "BatchDeleteClusterNodes"]
    named = [node for params in sent for node in params.get("NodeIds", []) + params.get("NodeLogicalIds", [])]
    assert len(named) == len(set(named)) == 2
    left = [n for n in observe(client, "gx").nodes_of("workers") if n.status not in ("ShuttingDown", "DetachInProgress")]
    assert len(left) >= 2


def test_every_node_of_a_group_whose_role_is_unknown_is_not_removed():
    """A legacy Slurm cluster (no SlurmConfig.NodeType, no roles): naming every node of a group
    could remove the controller; apply refuses it whatever the plan says."""
    sim = Simulator(seed=5)
    client = connect(backend="fake", simulator=sim, max_attempts=1)
    data = slurm_spec(2).to_api("CreateCluster")
    data["ClusterName"] = "legacy"
    del data["Orchestrator"]
    del data["NodeProvisioningMode"]
    for group in data["InstanceGroups"]:
        group.pop("SlurmConfig", None)
    spec = ClusterSpec.from_dict(data)
    apply(client, plan(spec, None), wait="Target", timeout=6 * 3600, sleep=sim.advance, monotonic=lambda: sim.now().timestamp())
    state = observe(client, "legacy")
    sim.reset_calls()
    head = _victim(state, "controller")

    with pytest.raises(PlanRefused, match="not known"):
        _run(sim, client, _with_steps(plan(spec, state), _delete(state, head)))

    assert _sent(sim) == []
