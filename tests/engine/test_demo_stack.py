"""The demo stack under the real Pulumi engine, on the simulator: one flow, step by step.

create (the plan once per operation, on the cluster resource) → scale out (the preview prints the
plan, `up` ends with every worker running, as the README says) → scale in (the preview names the
nodes that go, and `up` removes exactly those) → scale out again → out-of-band drift, `refresh`
(the drift in a few lines, no plan), `up` restores → a change that forces replacement → destroy →
no credential in the state, the logs or the outputs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import STACK, EngineProject, decoded_providers
from .stack import PLAN_TABLE, World, _hits, diagnostics, group_row, provider_lines, victims_in

pytestmark = pytest.mark.engine

CLUSTER_TYPE = "pulumi-python:dynamic/hyperpod:Cluster"
CLUSTER_ROW = f"{CLUSTER_TYPE} (demo)"  # the cluster resource's header in the Diagnostics
# The demo's first `up` (preview and update): its plan once per operation. 131 lines when written
# (a few more on a slow machine: the engine's "@ updating...." ticks, a wait's distinct polls); it
# was 193, the plan printed 4 times (inline and again in the Diagnostics, for each operation), all
# under the stack. One more copy of the plan (25 lines) goes over.
FIRST_UP_LINES = 150

# Scenario 5: the demo's cluster (same resource names, so the same URNs) with its subnet from the
# stack config and replacement allowed — the demo itself refuses replacements (checked first).
REPLACEABLE_PROGRAM = """
import pulumi

from pulumi_hyperpod.components import (
    ComputeGroupArgs, ConnectionArgs, InstanceGroupArgs, LifecycleArgs, SlurmCluster, SlurmClusterArgs, VpcArgs,
)

config = pulumi.Config()
workers = config.get_int("workerCount")
cluster = SlurmCluster(
    "demo",
    SlurmClusterArgs(
        cluster_name=config.get("clusterName") or "demo-cluster",
        controller=InstanceGroupArgs("controller", 1, instance_type="ml.m5.xlarge"),
        compute=[ComputeGroupArgs("workers", 1 if workers is None else workers, instance_type="ml.g5.xlarge", partitions=["dev"])],
        lifecycle=LifecycleArgs(s3_uri="s3://sagemaker-demo-lifecycle/lifecycle-scripts/src/"),
        execution_role_arn="arn:aws:iam::111122223333:role/demo-hyperpod-execution",
        vpc=VpcArgs(subnets=[config.require("subnet")], security_group_ids=["sg-0123456789abcdef0"]),
        connection=ConnectionArgs(backend="fake", policy={"allow_replacement": True}),
    ),
)
pulumi.export("arn", cluster.arn)
pulumi.export("status", cluster.status)
pulumi.export("groups", cluster.groups)
pulumi.export("nodeCount", cluster.node_count)
"""
NEW_SUBNET = "subnet-0fedcba9876543210"


@pytest.fixture(scope="module")
def world(project: EngineProject) -> World:
    return World(project)


@pytest.fixture(scope="module")
def flow() -> dict[str, Any]:
    """What the steps hand on to the next ones."""
    return {}


def cluster_resource(export: dict[str, Any]) -> dict[str, Any]:
    found = [r for r in export["deployment"].get("resources") or [] if r["type"] == CLUSTER_TYPE]
    assert len(found) == 1, json.dumps(export, indent=1)[:4000]
    return found[0]


# ---- 1. create -------------------------------------------------------------------------------
def test_1_up_creates_the_cluster(project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    project.run("stack", "init", STACK)
    assert world.clusters() == []
    up = project.run("up", "--yes")
    lines = provider_lines(up.output)
    assert any("CreateCluster" in line for line in lines), up.describe()
    # quiet and attributed: the plan once per operation (preview, update), in the Diagnostics of
    # the cluster resource, never of the stack, and not again inline (the row shows its first line)
    assert len(up.stdout.splitlines()) <= FIRST_UP_LINES, up.describe()
    assert len(PLAN_TABLE.findall(up.stdout)) == 2, up.describe()
    planned = [resource for resource, said in diagnostics(up.stdout) if any(PLAN_TABLE.search(line) for line in said)]
    assert planned == [CLUSTER_ROW, CLUSTER_ROW], up.describe()
    assert not [line for line in up.stdout.splitlines() if "pulumi:pulumi:Stack" in line and "[hyperpod " in line], up.describe()

    clusters = world.clusters()
    assert len(clusters) == 1, clusters
    name = clusters[0]["ClusterName"]
    flow["name"], flow["arn"] = name, clusters[0]["ClusterArn"]
    described = world.describe(name)
    assert described["ClusterStatus"] == "InService", described
    assert world.targets(name) == {"controller": 1, "workers": 1}

    outputs = json.loads(project.run("stack", "output", "--json").stdout)
    assert outputs["arn"] == flow["arn"], outputs
    assert outputs["nodeCount"] == 2, outputs
    state = cluster_resource(project.export())
    assert state["id"] == flow["arn"]

    # Nothing left to do: a second preview must be empty (no perpetual diff).
    again = project.run("preview", "--expect-no-changes", check=False)
    assert again.returncode == 0, "preview right after `up` is not empty\n" + again.describe()


# ---- 2. scale out ----------------------------------------------------------------------------
def test_2_scale_out_preview_shows_the_plan_and_up_applies_it(project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    name = flow["name"]
    project.config_set("workerCount", "3")
    preview = project.run("preview")
    lines = provider_lines(preview.output)
    row = group_row(lines, "workers")
    assert "+2" in row and re.search(r"1\s*→\s*3", row), preview.describe()
    assert "unchanged" in group_row(lines, "controller"), preview.describe()
    assert re.search(rf"~\s+{re.escape(CLUSTER_TYPE)}\s+demo\s+update", preview.stdout), preview.describe()
    assert world.targets(name) == {"controller": 1, "workers": 1}, "a preview changed the cluster"
    # the engine's own record: one diagnostic holds the whole plan, and its URN is the cluster's
    structured = json.loads(project.run("preview", "--json").stdout)
    plans = [d for d in structured.get("diagnostics") or [] if PLAN_TABLE.search(d.get("message", ""))]
    assert [d["urn"].rsplit("::", 1)[-1] for d in plans] == ["demo"], json.dumps(structured.get("diagnostics"), indent=1)
    assert plans[0]["urn"].endswith(f"{CLUSTER_TYPE}::demo"), plans[0]["urn"]
    assert re.search(r"1\s*→\s*3", plans[0]["message"]), plans[0]["message"]

    # -v=9 engine logs on stderr (kept for the credential scan, test 7).
    up = project.run("up", "--yes", "--skip-preview", "--logflow", "--logtostderr", "-v=9")
    assert any(re.search(r"BatchAddClusterNodes|UpdateCluster", line) for line in provider_lines(up.stdout)), up.describe()
    assert world.targets(name) == {"controller": 1, "workers": 3}
    assert world.describe(name)["ClusterArn"] == flow["arn"], "scaling out replaced the cluster"
    # "pulumi up --yes  # apply it: 3 workers" (README.md): `up` ended with the three running
    running = [n for n in world.nodes(name) if n["InstanceGroupName"] == "workers" and n["InstanceStatus"]["Status"] == "Running"]
    assert len(running) == 3, f"{world.nodes(name)}\n{up.describe()}"
    assert "still launching" not in up.stdout, up.describe()


# ---- 3. scale in -----------------------------------------------------------------------------
def test_3_scale_in_preview_names_the_nodes_that_up_removes(project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    name = flow["name"]
    # A node still launching may be chosen differently once it runs: let the three come up first.
    workers = world.wait_running(name, "workers", 3)
    assert len(workers) == 3, world.nodes(name)
    controllers = world.node_ids(name, "controller")

    project.config_set("workerCount", "1")
    preview = project.run("preview")
    lines = provider_lines(preview.output)
    row = group_row(lines, "workers")
    assert "-2" in row and re.search(r"3\s*→\s*1", row), preview.describe()
    victims = victims_in(lines)
    assert len(victims) == 2, f"{victims}\n{preview.describe()}"
    assert set(victims) <= workers, f"victims {victims} are not workers {workers}"
    assert all(why for why in victims.values()), f"a victim without a reason: {victims}"
    assert world.node_ids(name, "workers") == workers, "a preview removed nodes"

    up = project.run("up", "--yes", "--skip-preview")
    assert "BatchDeleteClusterNodes" in up.stdout, up.describe()
    assert world.targets(name) == {"controller": 1, "workers": 1}
    remaining = world.node_ids(name, "workers")
    assert workers - remaining == set(victims), f"removed {workers - remaining}, the preview named {set(victims)}"
    assert world.node_ids(name, "controller") == controllers


# ---- 3b. scale out again --------------------------------------------------------------------
def test_3b_scale_out_again_after_scale_in(project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    """1 → 3 → 1 → 3: the second add sees the same observed state as the first (a repeated
    client token would be answered from the first request, adding nothing)."""
    name = flow["name"]
    project.config_set("workerCount", "3")
    up = project.run("up", "--yes", "--skip-preview")
    assert world.targets(name) == {"controller": 1, "workers": 3}, up.describe()
    assert len(world.wait_running(name, "workers", 3)) == 3, world.nodes(name)


# ---- 4. drift --------------------------------------------------------------------------------
def test_4_out_of_band_delete_refresh_shows_drift_and_up_restores(project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    name = flow["name"]
    workers = sorted(world.node_ids(name, "workers"))
    assert len(workers) == 3, world.nodes(name)
    gone = workers[:1]
    response = world.client.batch_delete_cluster_nodes(ClusterName=name, NodeIds=gone)
    assert response.get("Successful") == gone, response
    assert world.targets(name)["workers"] == 2

    refresh = project.run("refresh", "--yes")
    assert re.search(rf"~\s+{re.escape(CLUSTER_TYPE)}\s+demo\s+updated", refresh.stdout), refresh.describe()
    assert re.search(r"~\s*1 updated", refresh.stdout), refresh.describe()
    # refresh reports the drift, on the cluster, in a few lines; it renders no plan it will not run
    assert not PLAN_TABLE.search(refresh.output) and "Plan for cluster" not in refresh.output, refresh.describe()
    drift = [said for resource, said in diagnostics(refresh.stdout) if resource == CLUSTER_ROW]
    assert drift and all(len(said) <= 10 for said in drift), refresh.describe()
    assert "[hyperpod demo-cluster]   groups.workers.target_count: 3 → 2" in drift[-1], refresh.describe()
    state = cluster_resource(project.export())
    assert state["outputs"]["groups"]["workers"]["target_count"] == 2, state["outputs"]
    spec_groups = {g["InstanceGroupName"]: g["InstanceCount"] for g in state["inputs"]["spec"]["InstanceGroups"]}
    assert spec_groups == {"controller": 1, "workers": 2}, state["inputs"]["spec"]

    up = project.run("up", "--yes")
    row = group_row(provider_lines(up.output), "workers")
    assert "+1" in row and re.search(r"2\s*→\s*3", row), up.describe()
    assert world.targets(name) == {"controller": 1, "workers": 3}
    assert gone[0] not in world.node_ids(name, "workers")
    state = cluster_resource(project.export())
    assert state["outputs"]["groups"]["workers"]["target_count"] == 3, state["outputs"]


# ---- 5. replacement --------------------------------------------------------------------------
def test_5_replacement_shows_in_the_preview(project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    name = flow["name"]
    # The demo does not allow replacements: a renamed cluster is refused, with the reason, at preview.
    project.config_set("clusterName", "renamed-cluster")
    refused = project.run("preview", check=False)
    project.run("config", "rm", "clusterName")
    assert refused.returncode != 0, refused.describe()
    assert "replaces the cluster" in refused.output and "allow_replacement" in refused.output, refused.describe()
    assert "Traceback" not in refused.output, "a refused replacement is a check failure, not a crash"

    project.write_program(REPLACEABLE_PROGRAM)
    project.config_set("subnet", NEW_SUBNET)
    preview = project.run("preview", "--json")
    plan = json.loads(preview.stdout)
    steps = [s for s in plan["steps"] if s["urn"].endswith(f"{CLUSTER_TYPE}::demo")]
    assert [s["op"] for s in steps] == ["replace"], json.dumps(plan["steps"], indent=1)
    assert "spec.VpcConfig" in (steps[0].get("replaceReasons") or steps[0].get("keys") or []), steps[0]
    messages = "".join(d.get("message", "") for d in plan.get("diagnostics") or [])
    assert "REPLACE" in messages and "VpcConfig" in messages, messages
    assert world.describe(name)["ClusterArn"] == flow["arn"], "a preview replaced the cluster"

    # Applied: delete-before-replace (the name is unique), then a new cluster in the new subnet.
    project.run("up", "--yes", "--skip-preview")
    described = world.describe(name)
    assert described["ClusterArn"] != flow["arn"]
    assert described["VpcConfig"]["Subnets"] == [NEW_SUBNET], described["VpcConfig"]
    assert [c["ClusterArn"] for c in world.clusters()] == [described["ClusterArn"]]
    flow["arn"] = described["ClusterArn"]
    assert cluster_resource(project.export())["id"] == flow["arn"]


# ---- 6. destroy ------------------------------------------------------------------------------
def test_6_destroy_deletes_the_cluster(project: EngineProject, world: World, flow: dict[str, Any]) -> None:
    project.run("destroy", "--yes")
    assert world.clusters() == [], world.clusters()
    export = project.export()
    assert not [r for r in export["deployment"].get("resources") or [] if r["type"] == CLUSTER_TYPE]


def test_7_no_credentials_in_state_logs_or_outputs(project: EngineProject) -> None:
    assert project.results and project.exports
    problems: list[str] = []
    for result in project.results:
        problems += [f"output of {' '.join(result.args)}: {h}" for h in _hits(result.output)]
    for i, text in enumerate(project.exports):
        problems += [f"stack export #{i}: {h}" for h in _hits(text)]
        for blob in decoded_providers(json.loads(text)):
            problems += [f"stack export #{i}, pickled provider: {h}" for h in _hits(blob.decode("latin-1"))]
    assert any(decoded_providers(json.loads(t)) for t in project.exports), "no pickled provider was scanned"

    base: Path = project.root.parent
    scanned = []
    for path in sorted(p for p in base.rglob("*") if p.is_file()):
        scanned.append(path)
        problems += [f"{path.relative_to(base)}: {h}" for h in _hits(path.read_bytes().decode("latin-1"))]
    logs = [p for p in scanned if "logs" in p.parts]
    checkpoints = [p for p in scanned if "pulumi-state" in p.parts]
    assert logs and checkpoints, f"nothing to scan? {scanned}"
    assert any("-v=9" in r.args for r in project.results), "no verbose engine log was produced"
    assert not problems, "credential-like strings found:\n" + "\n".join(problems[:40])
