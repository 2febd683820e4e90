"""The demo stack under the real Pulumi engine, on the simulator: one flow, step by step.

create → scale out (the preview prints the plan) → scale in (the preview names the nodes that go,
and `up` removes exactly those) → scale out again → out-of-band drift, `refresh`, `up` restores →
a change that forces replacement → destroy → no credential in the state, the logs or the outputs.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest

from pulumi_hyperpod import connect
from pulumi_hyperpod.sim.aws import Simulator

from .conftest import FAKE_CREDENTIALS, STACK, EngineProject, decoded_providers

pytestmark = pytest.mark.engine

CLUSTER_TYPE = "pulumi-python:dynamic/hyperpod:Cluster"
NODE_ID = re.compile(r"\bi-[0-9a-f]{8,17}\b")

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


# ---- looking at the simulator's world (the one the provider process uses) ----------------------
class World:
    def __init__(self, project: EngineProject) -> None:
        self.sim = Simulator(path=project.world_path)
        self.client = connect(backend="fake", simulator=self.sim)

    def clusters(self) -> list[dict[str, Any]]:
        return self.client.list_clusters()["ClusterSummaries"]

    def describe(self, name: str) -> dict[str, Any]:
        return self.client.describe_cluster(ClusterName=name)

    def targets(self, name: str) -> dict[str, int]:
        return {g["InstanceGroupName"]: g["TargetCount"] for g in self.describe(name)["InstanceGroups"]}

    def nodes(self, name: str) -> list[dict[str, Any]]:
        pages = self.client.get_paginator("list_cluster_nodes").paginate(ClusterName=name)
        return [node for page in pages for node in page["ClusterNodeSummaries"]]

    def node_ids(self, name: str, group: str) -> set[str]:
        """Nodes in the group; ShuttingDown ones are leaving it (the world follows the wall clock, so a
        removed node stays listed as ShuttingDown for the termination time)."""
        return {
            n["InstanceId"]
            for n in self.nodes(name)
            if n["InstanceGroupName"] == group and n.get("InstanceId") and n["InstanceStatus"]["Status"] != "ShuttingDown"
        }

    def wait_running(self, name: str, group: str, count: int, timeout: float = 90) -> set[str]:
        """Until `count` nodes of the group run (virtual time follows the wall clock)."""
        deadline = time.monotonic() + timeout
        while True:
            running = {
                n["InstanceId"] for n in self.nodes(name) if n["InstanceGroupName"] == group and n["InstanceStatus"]["Status"] == "Running"
            }
            if len(running) >= count or time.monotonic() > deadline:
                return running
            time.sleep(0.5)


@pytest.fixture(scope="module")
def world(project: EngineProject) -> World:
    return World(project)


@pytest.fixture(scope="module")
def flow() -> dict[str, Any]:
    """What the steps hand on to the next ones."""
    return {}


def provider_lines(output: str) -> list[str]:
    """The provider's lines ("[hyperpod <cluster>] …"), without the engine's row prefixes; the
    Diagnostics section repeats them, so they are de-duplicated in order."""
    seen: dict[str, None] = {}
    for line in output.splitlines():
        at = line.find("[hyperpod ")
        if at >= 0:
            seen.setdefault(line[at:].rstrip(), None)
    return list(seen)


def group_row(lines: list[str], group: str) -> str:
    rows = [line for line in lines if re.search(rf"│\s*{re.escape(group)}\s*│", line)]
    assert rows, f"no plan row for group {group!r} in:\n" + "\n".join(lines)
    return rows[0]


def victims_in(lines: list[str]) -> dict[str, str]:
    """Node id → why, from the 'Nodes that would be removed' table of the first plan printed."""
    try:
        start = next(i for i, line in enumerate(lines) if "Nodes that would be removed" in line)
    except StopIteration:
        raise AssertionError("no 'Nodes that would be removed' section in:\n" + "\n".join(lines)) from None
    found: dict[str, str] = {}
    current = None
    for line in lines[start + 1 :]:
        if "Plan for cluster" in line or "API calls" in line:
            break
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if not cells:
            continue
        match = NODE_ID.fullmatch(cells[0]) if cells[0] else None
        if match:
            current = match.group(0)
            found[current] = cells[-1]
        elif current and not cells[0]:  # the why column wrapped onto the next row
            found[current] = (found[current] + " " + cells[-1]).strip()
    return found


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

    # -v=9 engine logs on stderr (kept for the credential scan, test 7).
    up = project.run("up", "--yes", "--skip-preview", "--logflow", "--logtostderr", "-v=9")
    assert any(re.search(r"BatchAddClusterNodes|UpdateCluster", line) for line in provider_lines(up.stdout)), up.describe()
    assert world.targets(name) == {"controller": 1, "workers": 3}
    assert world.describe(name)["ClusterArn"] == flow["arn"], "scaling out replaced the cluster"


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


# ---- 7. no credentials -----------------------------------------------------------------------
CREDENTIAL_PATTERNS = [re.escape(v) for v in FAKE_CREDENTIALS.values()] + [
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    r"(?i)aws_secret_access_key",
    r"(?i)aws_session_token",
]


def _hits(text: str) -> list[str]:
    found = []
    for pattern in CREDENTIAL_PATTERNS:
        for match in re.finditer(pattern, text):
            found.append(f"{pattern!r}: …{text[max(0, match.start() - 60) : match.end() + 20]!r}…")
    return found


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
