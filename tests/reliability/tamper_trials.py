"""Saved-plan tampering: a plan saved for a running Slurm cluster, edited and resealed (its hash
recomputed, as anyone who can write the file can), then applied. Used by
tests/reliability/test_saved_plan_tamper.py and bench/reliability_report.py.

Each trial starts from a fresh simulated cluster (controller 1, login 2, workers 4; worker 0
protected) and the reviewed plan: workers 4 → 2. An edit is refused when loading the file raises
SavedPlanError, or what it holds is refused (by a guard at load or at apply), with no mutating
call made; a node lost is one that left the cluster (any node: the reviewed plan never ran).
"""

from __future__ import annotations

import copy
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from collections.abc import Callable

from tests.support.slurm_groups import slurm_group
from tests.support.cli import MUTATING

ROLE = "arn:aws:iam::111122223333:role/hp"
LIFECYCLE = {"SourceS3Uri": "s3://bucket/lc/", "OnCreate": "on_create.sh"}
VPC = {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-12345678"]}
NAME = "tamper"


def _spec(workers: int, controller: int = 1, login: int = 2) -> dict:
    def group(name: str, node_type: str, count: int, **slurm: Any) -> dict:
        return slurm_group(name, node_type, count, LIFECYCLE, ROLE, **slurm)

    return {
        "ClusterName": NAME,
        "NodeProvisioningMode": "Continuous",
        "Orchestrator": {"Slurm": {}},
        "VpcConfig": VPC,
        "InstanceGroups": [
            group("controller", "Controller", controller),
            group("login", "Login", login),
            group("workers", "Compute", workers, PartitionNames=["p1"]),
        ],
    }


@dataclass
class Trial:
    edit: str
    refused: bool = False
    how: str = ""
    calls: list[str] = field(default_factory=list)
    nodes_lost: int = 0


@dataclass
class _World:
    sim: Any
    client: Any
    nodes: dict[str, list[str]]  # group → node keys
    saved: dict  # the reviewed plan file
    path: Path


Edit = Callable[[dict, "_World"], None]


def _steps(data: dict) -> list[dict]:
    return data["plan"]["steps"]


def _replace_victim(data: dict, node: str, group: str) -> None:
    step = _steps(data)[0]
    old = step["victims"][0]["node_id"]
    step["request"]["NodeIds"] = [node if n == old else n for n in step["request"]["NodeIds"]]
    step["victims"][0].update(node_id=node, group=group)


def _swap_victim(group: str) -> Edit:
    def edit(data: dict, world: _World) -> None:
        _replace_victim(data, world.nodes[group][0], group)

    return edit


def _protected_victim(data: dict, world: _World) -> None:
    _replace_victim(data, world.nodes["workers"][0], "workers")


def _as_delete(data: dict, world: _World) -> None:
    data["plan"]["action"] = "delete"
    data["plan"]["steps"] = [{"operation": "DeleteCluster", "request": {"ClusterName": NAME}, "reasons": ["tidy"], "victims": []}]


def _insert_update(request: dict) -> Edit:
    def edit(data: dict, world: _World) -> None:
        _steps(data).insert(
            0, {"operation": "UpdateCluster", "request": {"ClusterName": NAME, **request}, "reasons": ["tidy"], "victims": []}
        )

    return edit


def _controller_to_zero(data: dict, world: _World) -> None:
    entry = copy.deepcopy(data["spec"]["InstanceGroups"][0])
    entry["InstanceCount"] = 0
    _insert_update({"InstanceGroups": [entry]})(data, world)


def _duplicate_step(data: dict, world: _World) -> None:
    _steps(data).append(copy.deepcopy(_steps(data)[0]))


def _more_victims(data: dict, world: _World) -> None:
    step = _steps(data)[0]
    extra = next(n for n in world.nodes["workers"][1:] if n not in step["request"]["NodeIds"])
    step["request"]["NodeIds"].append(extra)
    step["victims"].append({**step["victims"][0], "node_id": extra})


def _spec_edited(data: dict, world: _World) -> None:
    data["spec"]["InstanceGroups"][2]["InstanceCount"] = 0


def _spec_and_plan_edited(data: dict, world: _World) -> None:
    """The spec edited to delete the login group, and a step that does it: made again, the plan
    from these inputs is refused (the login-scale-in guard)."""
    data["spec"]["InstanceGroups"].pop(1)
    _insert_update({"InstanceGroupsToDelete": ["login"]})(data, world)


def _policy_loosened(data: dict, world: _World) -> None:
    """The protection dropped from the policy and the protected node made a victim: the inputs now
    make a plan that names other nodes (victims are chosen by rule, not by the file)."""
    data["policy"]["protected_node_ids"] = []
    _protected_victim(data, world)


def _observation_edited(data: dict, world: _World) -> None:
    data["observed"]["DescribeCluster"]["InstanceGroups"][2]["TargetCount"] = 9


def _roles_edited(data: dict, world: _World) -> None:
    data["roles"] = {"controller": "Compute", "login": "Compute"}
    _swap_victim("controller")(data, world)


def _other_region(data: dict, world: _World) -> None:
    data["target"]["region"] = "eu-west-1"


def _other_cluster(data: dict, world: _World) -> None:
    for step in _steps(data):
        step["request"]["ClusterName"] = "someone-elses"


EDITS: dict[str, Edit] = {
    "update resealed as a delete": _as_delete,
    "inserted UpdateCluster deleting the login group": _insert_update({"InstanceGroupsToDelete": ["login"]}),
    "inserted UpdateCluster deleting the controller group": _insert_update({"InstanceGroupsToDelete": ["controller"]}),
    "inserted UpdateCluster taking the controller to 0": _controller_to_zero,
    "a Login node as a victim": _swap_victim("login"),
    "a Controller node as a victim": _swap_victim("controller"),
    "a protected node as a victim": _protected_victim,
    "the scale-in step duplicated": _duplicate_step,
    "one more victim than the plan showed": _more_victims,
    "the spec edited under its plan": _spec_edited,
    "spec and steps edited to delete the login group": _spec_and_plan_edited,
    "protection dropped and the protected node named": _policy_loosened,
    "the observation edited": _observation_edited,
    "roles edited to make the controller a compute node": _roles_edited,
    "made for another region": _other_region,
    "steps retargeted at another cluster": _other_cluster,
}


def _world(directory: Path) -> _World:
    from pulumi_hyperpod import ClusterSpec, apply, connect, observe, pipeline
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.plans import Policy

    sim = Simulator(seed=24)
    client = connect(backend="fake", simulator=sim, max_attempts=1)
    apply(
        client,
        pipeline.make_plan(ClusterSpec.from_dict(_spec(4)), None),
        wait="Target",
        timeout=6 * 3600,
        sleep=sim.advance,
        monotonic=lambda: sim.now().timestamp(),
    )
    state = observe(client, NAME)
    nodes = {g.name: [n.key for n in state.nodes_of(g.name)] for g in state.groups}
    policy = Policy(protected_node_ids=frozenset({nodes["workers"][0]}))
    prepared = pipeline.prepare(client, ClusterSpec.from_dict(_spec(2)), policy=policy, skip_preflight="tamper trials")
    path = directory / "plan.json"
    pipeline.save(prepared, str(path), target={"backend": "fake", "region": "us-west-2"})
    sim.reset_calls()
    return _World(sim, client, nodes, json.loads(path.read_text()), path)


def _reseal(path: Path, data: dict) -> None:
    from pulumi_hyperpod.core.planfile import digest as _digest

    body = {k: v for k, v in data.items() if k != "integrity"}
    path.write_text(json.dumps({**body, "integrity": _digest(body)}))


def run_trial(label: str, edit: Edit) -> Trial:
    from pulumi_hyperpod import observe, pipeline
    from pulumi_hyperpod.aws.apply import ApplyError, PlanRefused, PlanStale
    from pulumi_hyperpod.aws.saved import SavedPlanError

    trial = Trial(label)
    with tempfile.TemporaryDirectory() as directory:
        world = _world(Path(directory))
        before = {n.key for n in observe(world.client, NAME).nodes}
        data = copy.deepcopy(world.saved)
        edit(data, world)
        _reseal(world.path, data)
        try:
            prepared = pipeline.load(str(world.path), target={"cloud": "aws", "backend": "fake", "region": "us-west-2"})
            if prepared.plan.refused:
                trial.refused, trial.how = True, "refused: " + prepared.plan.refusals[0].reason
            else:
                pipeline.execute(
                    world.client,
                    prepared.plan,
                    policy=prepared.policy,
                    roles=prepared.context.role_map(),
                    wait="none",
                    timeout=600,
                    sleep=world.sim.advance,
                )
                trial.how = "applied"
        except SavedPlanError as error:
            trial.refused, trial.how = True, str(error)
        except (PlanRefused, PlanStale, ApplyError) as error:
            trial.refused, trial.how = True, f"{type(error).__name__}: {error}"
        trial.calls = [operation for operation, _ in world.sim.calls if operation in MUTATING]
        trial.refused = trial.refused and not trial.calls
        state = observe(world.client, NAME)
        after = {n.key for n in state.nodes if n.status not in ("ShuttingDown", "DetachInProgress")} if state else set()
        trial.nodes_lost = len(before - after)
    return trial


def all_trials() -> list[Trial]:
    return [run_trial(label, edit) for label, edit in EDITS.items()]


def summary(trials: list[Trial]) -> dict[str, int]:
    return {"tried": len(trials), "refused": sum(t.refused for t in trials), "nodes lost": sum(t.nodes_lost for t in trials)}
