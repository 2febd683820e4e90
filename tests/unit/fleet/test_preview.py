"""Each stack's environment and the plans its provider wrote (pulumi_hyperpod/fleet/preview.py),
the engine stood in for; the engine itself: tests/engine/test_fleet_plan.py."""

from __future__ import annotations

import json
import threading

from pulumi_hyperpod.fleet.preview import PLAN_DIR_ENV, SIMULATOR_SECRET, EngineResult, clusters_in_state, preview_fleet, stack_env
from pulumi_hyperpod.fleet.spec import FleetStack
from pulumi_hyperpod.provider import cloud_provider


def member(name, **extra):
    return FleetStack.model_validate({"name": name, "project": "p", "stack": name, "region": "us-west-2", **extra})


def test_the_account_is_the_simulators_key_only_on_the_simulator(tmp_path):
    fake = stack_env(member("a", account="111122223333", backend="fake"), tmp_path)
    assert fake["AWS_ACCESS_KEY_ID"] == "111122223333" and fake["AWS_SECRET_ACCESS_KEY"] == SIMULATOR_SECRET
    assert fake["AWS_REGION"] == "us-west-2" and fake[PLAN_DIR_ENV] == str(tmp_path)
    real = stack_env(member("b", account="111122223333", backend="aws"), tmp_path)
    assert "AWS_ACCESS_KEY_ID" not in real, "on AWS the runner's own credentials act"
    mine = stack_env(member("c", account="111122223333", backend="fake", env={"AWS_ACCESS_KEY_ID": "AKIAOWNKEY0000000000"}), tmp_path)
    assert mine["AWS_ACCESS_KEY_ID"] == "AKIAOWNKEY0000000000", "the stack's own env wins"
    assert PLAN_DIR_ENV == cloud_provider.PLAN_DIR_ENV


def test_the_stacks_state_backend_is_its_engines_and_the_stacks_env_wins(tmp_path):
    url = "s3://fleet-state?endpoint=http://127.0.0.1:9000&s3ForcePathStyle=true&region=us-east-1&profile=backend"
    env = stack_env(member("a", account="111122223333", backend="fake", state=url), tmp_path)
    assert env["PULUMI_BACKEND_URL"] == url and env["AWS_ACCESS_KEY_ID"] == "111122223333"
    assert "PULUMI_BACKEND_URL" not in stack_env(member("b"), tmp_path), "no state: the runner's own login"
    assert stack_env(member("c", state=url, env={"PULUMI_BACKEND_URL": "file:///x"}), tmp_path)["PULUMI_BACKEND_URL"] == "file:///x"


def test_previews_run_at_most_parallel_at_once_and_keep_the_fleet_order(tmp_path):
    running, most, lock, release = [0], [0], threading.Lock(), threading.Barrier(2, timeout=5)

    def run(stack, base, env):
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        release.wait()  # two at once, or this times out
        with open(f"{env[PLAN_DIR_ENV]}/{stack.name}-cluster.json", "w") as out:
            json.dump({"cluster_name": f"{stack.name}-cluster"}, out)
        with lock:
            running[0] -= 1
        if stack.name == "d":
            raise RuntimeError("line one\n\nthe engine's last line")
        return EngineResult({"update": 1})

    results = preview_fleet([member(n) for n in "abcd"], tmp_path, parallel=2, run=run)
    assert most[0] == 2
    assert [r.stack for r in results] == list("abcd")
    assert [r.plans[0]["cluster_name"] for r in results] == [f"{n}-cluster" for n in "abcd"]
    assert results[3].error == "line one | the engine's last line" and results[0].changes == {"update": 1}


def test_the_clusters_in_a_stacks_state_are_those_of_hyperpod_cluster_resources():
    resources = [
        {"type": "pulumi:pulumi:Stack", "outputs": {}},
        {"type": "pulumi-python:dynamic/hyperpod:Cluster", "outputs": {"cluster_name": "dynamic-one"}},
        {"type": "hyperpod:index:Cluster", "outputs": {"cluster_name": "native-one"}},
        {"type": "aws:s3:Bucket", "outputs": {"cluster_name": "not-a-cluster"}},
        {"type": "hyperpod:index:Cluster"},  # being created: no outputs yet
    ]
    assert clusters_in_state(resources) == ("dynamic-one", "native-one")


def test_a_stack_another_runner_creates_meanwhile_is_selected(tmp_path, monkeypatch):
    """Two runners on a new backend: both find the stack missing, one creates it first; the other's
    create then fails with "already exists" (the Automation API's create_or_select selects, then
    creates), and it selects the stack instead of failing the preview."""
    from pulumi import automation

    from pulumi_hyperpod.fleet import preview as module

    class Raced(automation.StackAlreadyExistsError):
        def __init__(self):
            Exception.__init__(self, "stack 'east' already exists")

    selected = []

    def create_or_select(name, work_dir, opts):
        raise Raced()

    def select(name, work_dir, opts):
        selected.append((name, work_dir, opts.secrets_provider))
        return "the stack"

    monkeypatch.setattr(automation, "create_or_select_stack", create_or_select)
    monkeypatch.setattr(automation, "select_stack", select)
    got = module._workspace_stack(member("east", secrets_provider="passphrase"), tmp_path, {})
    assert got == "the stack" and selected == [("east", str(tmp_path / "p"), "passphrase")]
