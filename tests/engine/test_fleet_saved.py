"""A saved fleet plan and fleet-wide policy on the real engine (Automation API) against the
simulator's endpoint (test_fleet_apply's world: its clock stands still unless the test moves it).

- `fleet plan --out`, then `fleet apply --plan --yes` applies it (each stack's `up` with its plans
  pinned); the same file after the fleet file changed is refused before any preview;
- a cluster changed by another writer between the plan and the apply: refused (exit 1) naming the
  stack, the cluster and what moved, nothing applied;
- the fleet policy (policies/rego/fleet.rego) denies two regions scaling in at once (exit 2) where no
  single stack's plan is refused; a wave's `gates.policy` stops the fleet before that wave.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import botocore.session
import pytest
import yaml

from pulumi_hyperpod.fleet import preview
from tests.support.paths import REPO
from tests.support.sim_helpers import group

from .test_fleet_apply import EAST, WEST, endpoint, write_fleet  # noqa: F401 - the served world, fixed clock
from .test_fleet_plan import make_cluster

pytestmark = pytest.mark.engine


def client_in(sim, account: str, region: str = "us-west-2"):
    client = botocore.session.get_session().create_client(
        "sagemaker", region_name=region, aws_access_key_id=account, aws_secret_access_key=preview.SIMULATOR_SECRET
    )
    return sim.attach(client)


def target_of(sim, account: str, name: str, region: str = "us-west-2") -> int:
    (workers,) = client_in(sim, account, region).describe_cluster(ClusterName=name)["InstanceGroups"]
    return workers["TargetCount"]


def hyperpod(*args: str, env) -> subprocess.CompletedProcess:
    return subprocess.run(["hyperpod", *args], env=env, capture_output=True, text=True, timeout=400)


def test_a_saved_fleet_plan_is_applied_and_refused_once_its_fleet_file_changed(tmp_path, endpoint, pulumi_cli):  # noqa: F811
    url, sim = endpoint
    make_cluster(sim, EAST, "east-cluster", 2)
    make_cluster(sim, WEST, "west-cluster", 2)
    fleet, env = write_fleet(tmp_path, url)  # east adopts its cluster as it is; west grows from 2 workers to 3
    saved = tmp_path / "fleet-plan.json"
    planned = hyperpod("fleet", "plan", str(fleet), "--out", str(saved), env=env)
    assert planned.returncode == 0, planned.stdout + planned.stderr
    pinned = {s["stack"]: s["plans"] for s in json.loads(saved.read_text())["pinned"]["stacks"]}
    assert [p["cluster_name"] for p in pinned["west"]] == ["west-cluster"] and pinned["west"][0]["steps"]

    text = fleet.read_text()
    fleet.write_text(text + "# reviewed, then edited\n")
    refused = hyperpod("fleet", "apply", str(fleet), "--plan", str(saved), "--yes", env=env)
    assert refused.returncode == 1 and "pinned.fleet_digest: made from the fleet file 'fleet.yaml' as it was then" in refused.stderr
    assert "start " not in refused.stdout and target_of(sim, WEST, "west-cluster") == 2

    fleet.write_text(text)  # the fleet file as it was planned
    applied = hyperpod("fleet", "apply", str(fleet), "--plan", str(saved), "--yes", env=env)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert "updated west: " in applied.stdout and "applied 2 wave(s)" in applied.stdout
    assert target_of(sim, WEST, "west-cluster") == 3


def test_a_cluster_changed_since_the_plan_is_refused_naming_what_moved(tmp_path, endpoint, pulumi_cli):  # noqa: F811
    url, sim = endpoint
    make_cluster(sim, EAST, "east-cluster", 2)
    make_cluster(sim, WEST, "west-cluster", 2)
    fleet, env = write_fleet(tmp_path, url)
    saved = tmp_path / "fleet-plan.json"
    assert hyperpod("fleet", "plan", str(fleet), "--out", str(saved), env=env).returncode == 0
    # another writer grows west's cluster to 4 workers before the saved plan (2 → 3) is applied
    client_in(sim, WEST).update_cluster(ClusterName="west-cluster", InstanceGroups=[{**group("workers", 4)}])
    sim.advance(3600)
    assert target_of(sim, WEST, "west-cluster") == 4
    refused = hyperpod("fleet", "apply", str(fleet), "--plan", str(saved), "--yes", env=env)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    lines = refused.stderr.strip().splitlines()
    assert any(line.startswith("error: stack west, cluster west-cluster: the cluster moved since the plan was made: ") for line in lines), (
        lines
    )
    assert lines[-1] == "refused: the saved fleet plan no longer holds; nothing was applied: make the fleet plan again"
    assert "start " not in refused.stdout, "no stack's up started"
    assert target_of(sim, WEST, "west-cluster") == 4 and target_of(sim, EAST, "east-cluster") == 2


def scale_in_fleet(tmp_path, url, sim):
    """east (us-east-1) and west (us-west-2), each a cluster of 3 workers its stack shrinks to 2: each
    plan removes 1 of 3 nodes, which no single plan's rule refuses; two regions scale in at once."""
    fleet, env = write_fleet(tmp_path, url)
    data = yaml.safe_load(fleet.read_text())
    for stack, region in zip(data["stacks"], ("us-east-1", "us-west-2"), strict=True):
        stack["region"] = region
        stack["config"]["workers"] = "2"
        client_in(sim, stack["account"], region).create_cluster(
            ClusterName=stack["config"]["clusterName"], InstanceGroups=[group("workers", 3)]
        )
    sim.advance(3600)
    for wave in data["waves"]:
        wave["gates"] = {"in_service": False, "no_failed_nodes": False}  # the world's clock stands still: the scale-ins stay under way
    return fleet, env, data


def test_the_fleet_policy_denies_two_regions_scaling_in_and_a_wave_gate_stops_before_its_wave(tmp_path, endpoint, pulumi_cli):  # noqa: F811
    url, sim = endpoint
    fleet, env, data = scale_in_fleet(tmp_path, url, sim)
    fleet.write_text(yaml.safe_dump(data))
    rules = REPO / "policies" / "rego" / "fleet.rego"
    env = {**env, "HYPERPOD_OPA": _opa()}
    saved = tmp_path / "fleet-plan.json"
    planned = hyperpod("fleet", "plan", str(fleet), "--json", "--policy", str(rules), "--out", str(saved), env=env)
    assert planned.returncode == 2, planned.stdout + planned.stderr
    document = json.loads(planned.stdout)
    assert all(not c["refusals"] for row in document["stacks"] for c in row["clusters"]), "no single stack's plan is refused"
    for stack in json.loads(saved.read_text())["pinned"][
        "stacks"
    ]:  # nor does any single plan's policy (policies/rego, package hyperpod.plan)
        (plan,) = stack["plans"]
        single = subprocess.run(
            [
                env["HYPERPOD_OPA"],
                "eval",
                "--format",
                "raw",
                "--stdin-input",
                "-d",
                str(rules.parent / "hyperpod.rego"),
                "data.hyperpod.plan.deny",
            ],
            input=json.dumps(plan),
            capture_output=True,
            text=True,
            check=True,
        )
        assert json.loads(single.stdout) == [], (stack["stack"], single.stdout)
    assert [len(c["victims"]) for row in document["stacks"] for c in row["clusters"]] == [1, 1]
    (violation,) = document["policy"]["violations"]
    assert violation["code"] == "regions-scaling-in" and violation["stacks"] == ["east", "west"]
    assert "refused: fleet policy regions-scaling-in: clusters scale in in 2 regions at once (us-east-1, us-west-2" in planned.stderr

    # the same rules as wave rest's gate, with no region allowed to scale in: east's wave runs, rest is stopped before west's up
    gate = tmp_path / "gate"
    gate.mkdir()
    shutil.copy(rules, gate / "fleet.rego")
    (gate / "params.json").write_text(json.dumps({"hyperpod": {"fleet_params": {"max_regions_scaling_in": 0}}}))
    data["waves"][1]["gates"]["policy"] = "gate"
    fleet.write_text(yaml.safe_dump(data))
    applied = hyperpod("fleet", "apply", str(fleet), "--yes", env=env)
    assert applied.returncode == 1, applied.stdout + applied.stderr
    assert "updated east: " in applied.stdout and "start west" not in applied.stdout
    assert "failed: wave rest: gate policy failed on stacks west (before the wave): fleet policy regions-scaling-in: " in applied.stderr
    assert target_of(sim, EAST, "east-cluster", "us-east-1") == 2 and target_of(sim, WEST, "west-cluster") == 3


def _opa() -> str:
    from tests.support.policy_tools import opa_path

    return opa_path()
