"""Saved-plan premises under attack (issue 36), through the real CLI (`hyperpod --backend fake`) on a
persistent simulated world, one fresh world per trial. Used by tests/reliability/test_premise_trials.py
and bench/reliability_report.py, one line per class:

- saved-plan replay: a saved plan applied a second time (a reboot, a software rollout);
- stale premise: what a saved plan assumed moved before it was applied (another writer's
  LifeCycleConfig.OnCreate, a job landing on a victim chosen idle, a bundle rewritten to swap the
  controller and a worker group);
- resealed sections: a saved plan's cost, notes or a victim's reason edited and resealed.

A trial is refused when the attacking command exits non-zero and the cluster (as described and
listed, and its events) is as it was; a node lost is one that left the cluster although no plan the user reviewed removed it.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from collections.abc import Callable, Iterator
from tests.support.paths import REPO

ROOT = REPO
SPECS = ROOT / "examples" / "specs"
ROLLOUT = SPECS / "slurm-rollout.json"
CONSENT = ROOT / "examples" / "policies" / "slurm-rollout.yaml"  # allow_controller_disruption


@dataclass
class Trial:
    kind: str
    label: str
    refused: bool = False
    how: str = ""
    nodes_lost: int = 0


def hyperpod(*args: str) -> tuple[int, str]:
    from click.testing import CliRunner

    from pulumi_hyperpod.cli import main

    result = CliRunner().invoke(main, ["--backend", "fake", *args], catch_exceptions=False)
    return result.exit_code, result.output


def ok(*args: str) -> str:
    code, out = hyperpod(*args)
    assert code == 0, f"{' '.join(args)}: exit {code}\n{out}"
    return out


@contextlib.contextmanager
def world() -> Iterator[Path]:
    """A fresh persistent world in a temp dir, the CLI pointed at it (and back afterwards)."""
    saved = {key: os.environ.get(key) for key in ("HYPERPOD_FAKE_STATE", "HYPERPOD_POLL_SECONDS")}
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as directory:
        os.environ["HYPERPOD_FAKE_STATE"] = str(Path(directory) / "fake.sqlite")
        os.environ["HYPERPOD_POLL_SECONDS"] = "0.05"
        os.chdir(directory)
        try:
            yield Path(directory)
        finally:
            os.chdir(here)
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _world_of(cluster: str) -> str:
    """What a mutation would change: the cluster as described and listed, and its events."""
    _, snapshot = hyperpod("snapshot", cluster)
    _, events = hyperpod("events", cluster, "--json")
    return snapshot + events


def _nodes(cluster: str) -> set[str]:
    code, out = hyperpod("nodes", cluster, "--json")
    return {n["instance_id"] for n in json.loads(out) if n["instance_id"]} if code == 0 else set()


def _spec(directory: Path, source: Path, name: str, edit: Callable[[dict], None]) -> str:
    data = json.loads(source.read_text())
    edit(data)
    path = directory / name
    path.write_text(json.dumps(data))
    return str(path)


def _reseal(path: Path, edit: Callable[[dict], None]) -> None:
    from pulumi_hyperpod.core.planfile import digest

    data = json.loads(path.read_text())
    edit(data)
    body = {k: v for k, v in data.items() if k != "integrity"}
    path.write_text(json.dumps({**body, "integrity": digest(body)}))


def _attack(trial: Trial, cluster: str, expected_loss: set[str], *args: str, codes: tuple[int, ...] = (1, 2)) -> Trial:
    """Run the attacking command; refused when it exits with one of `codes` (1: stale or not a valid
    plan, 2: refused by a guard) and the cluster is as it was."""
    before_nodes, before = _nodes(cluster), _world_of(cluster)
    code, out = hyperpod(*args)
    trial.refused = code in codes and _world_of(cluster) == before
    trial.how = out.strip().splitlines()[-1][:300] if out.strip() else f"exit {code}"
    trial.nodes_lost = len(before_nodes - _nodes(cluster) - expected_loss)
    return trial


def _rollout_cluster() -> None:
    ok("apply", "-f", str(ROLLOUT), "--yes", "--wait", "Target", "--timeout", "600")


def _worker() -> str:
    _, out = hyperpod("nodes", "slurm-rollout", "--json")
    return next(n["instance_id"] for n in json.loads(out) if n["group"] == "workers")


# ---- saved-plan replay ---------------------------------------------------------------------------------
def reboot_twice() -> Trial:
    with world():
        _rollout_cluster()
        worker = _worker()
        ok("plan", "-f", str(ROLLOUT), "--reboot", worker, "--out", "f.json")
        ok("apply", "--plan", "f.json", "--yes", "--timeout", "600")
        ok("fake", "advance", "900")  # the reboot is over: the node is Running again, as it was
        return _attack(
            Trial("saved-plan replay", "a saved reboot applied twice"), "slurm-rollout", set(), "apply", "--plan", "f.json", "--yes"
        )


def rollout_twice() -> Trial:
    with world():
        _rollout_cluster()
        new = str(SPECS / "slurm-rollout-new-ami.json")
        ok("plan", "-f", new, "--policy", str(CONSENT), "--out", "f.json")  # the rollout takes the controller down
        ok("apply", "--plan", "f.json", "--yes", "--timeout", "3600")
        trial = Trial("saved-plan replay", "a saved software rollout applied after it finished")
        return _attack(trial, "slurm-rollout", set(), "apply", "--plan", "f.json", "--yes", "--timeout", "3600")


# ---- stale premise -----------------------------------------------------------------------------------------
def lost_update() -> Trial:
    with world() as directory:
        _rollout_cluster()

        def script(name: str) -> Callable[[dict], None]:
            return lambda data: data["InstanceGroups"][1]["LifeCycleConfig"].update(OnCreate=name)

        ok("plan", "-f", _spec(directory, ROLLOUT, "a.json", script("on_create_a.sh")), "--out", "f.json")
        ok("apply", "-f", _spec(directory, ROLLOUT, "b.json", script("on_create_b.sh")), "--yes", "--timeout", "600")
        before = json.loads(ok("snapshot", "slurm-rollout"))["DescribeCluster"]["InstanceGroups"][1]["LifeCycleConfig"]
        trial = _attack(
            Trial("stale premise", "OnCreate A→B applied after another writer set C"),
            "slurm-rollout",
            set(),
            "apply",
            "--plan",
            "f.json",
            "--yes",
        )
        after = json.loads(ok("snapshot", "slurm-rollout"))["DescribeCluster"]["InstanceGroups"][1]["LifeCycleConfig"]
        trial.refused = trial.refused and before == after
        return trial


def busy_victim() -> Trial:
    with world() as directory:
        ok("apply", "-f", str(SPECS / "workload-slurm-4.json"), "--yes", "--wait", "Target")
        ok("fake", "workload", "submit", "workload-demo", "--node", "workers:1", "--runs", "3h", "--user", "alice")
        ok("plan", "-f", str(SPECS / "workload-slurm-2.json"), "--read-workload", "--out", "f.json")
        saved = json.loads((directory / "f.json").read_text())
        victim = next(v["node_id"] for s in saved["plan"]["steps"] for v in s["victims"])
        ok("fake", "workload", "submit", "workload-demo", "--node", victim, "--runs", "5h", "--user", "carol")
        trial = Trial("stale premise", "a job landed on a victim chosen idle")
        return _attack(trial, "workload-demo", set(), "apply", "--plan", "f.json", "--read-workload", "--yes", "--wait", "none")


def swapped_bundle(directory: Path) -> Path:
    """A running legacy Slurm cluster (roles only in its bundle) whose provisioning_parameters.json
    was then rewritten with the controller and worker groups swapped; the spec that takes the real
    controller group to 0."""
    from pulumi_hyperpod.aws.client import connect
    from pulumi_hyperpod.sim.aws.simulator import Simulator
    from tests.support.slurm_examples import LEGACY_PARAMS, legacy_cluster
    from tests.support.slurm_examples import URI, upload_legacy_bundle

    sim = Simulator.open_default()
    sagemaker, s3 = connect("fake", simulator=sim), connect("fake", simulator=sim, service="s3")
    upload_legacy_bundle(s3)
    sagemaker.create_cluster(**legacy_cluster(uri=URI))
    ok("fake", "advance", "3600")
    swapped = {
        **LEGACY_PARAMS,
        "controller_group": "worker-group-1",
        "worker_groups": [{"instance_group_name": "controller-machine", "partition_name": "partition-1"}],
    }
    s3.put_object(Bucket="lifecycle-bucket", Key="base-config/provisioning_parameters.json", Body=json.dumps(swapped).encode())
    spec = directory / "no-controller.json"
    spec.write_text(json.dumps(legacy_cluster(uri=URI, counts=(1, 0, 2))))
    return spec


def swapped_roles() -> Trial:
    with world() as directory:
        spec = swapped_bundle(directory)
        trial = Trial("stale premise", "bundle rewritten: controller and worker swapped")
        # the tool's own refusal (exit 2, nothing sent), not the service's answer to a call it sent
        return _attack(trial, "legacy", set(), "apply", "-f", str(spec), "--read-workload", "--yes", codes=(2,))


# ---- resealed sections -------------------------------------------------------------------------------------
def _resealed(label: str, edit: Callable[[dict], None], count: int = 24) -> Trial:
    with world() as directory:
        _rollout_cluster()
        bigger = _spec(directory, ROLLOUT, "bigger.json", lambda d: d["InstanceGroups"][1].update(InstanceCount=count))
        ok("plan", "-f", bigger, "--out", "f.json")
        _reseal(directory / "f.json", edit)
        before = len(_nodes("slurm-rollout"))
        trial = _attack(Trial("resealed sections", label), "slurm-rollout", set(), "apply", "--plan", "f.json", "--yes", "--wait", "none")
        trial.refused = trial.refused and len(_nodes("slurm-rollout")) == before
        return trial


def _cheaper(data: dict) -> None:
    data["plan"]["cost"]["cluster"]["delta_per_hour"] = 0
    data["plan"]["notes"].append("reviewed: no new instances")


def _note(data: dict) -> None:
    data["plan"]["notes"].append("reviewed: no new instances")


def _group_delta(data: dict) -> None:
    for group in data["plan"]["cost"]["groups"]:
        group["delta_per_hour"] = 0


TRIALS: dict[str, Callable[[], Trial]] = {
    "reboot twice": reboot_twice,
    "rollout twice": rollout_twice,
    "lost update": lost_update,
    "busy victim": busy_victim,
    "swapped roles": swapped_roles,
    "cost and note resealed": lambda: _resealed("cost 0 and a note 'reviewed', resealed", _cheaper),
    "note resealed": lambda: _resealed("a note 'reviewed', resealed", _note, 6),
    "group cost resealed": lambda: _resealed("each group's cost delta 0, resealed", _group_delta),
}
CLASSES = ("saved-plan replay", "stale premise", "resealed sections")


def all_trials() -> list[Trial]:
    return [trial() for trial in TRIALS.values()]


def summary(trials: list[Trial]) -> dict[str, dict[str, int]]:
    """Per class: tried, refused, nodes lost."""
    return {
        kind: {
            "tried": sum(t.kind == kind for t in trials),
            "refused": sum(t.refused for t in trials if t.kind == kind),
            "nodes lost": sum(t.nodes_lost for t in trials if t.kind == kind),
        }
        for kind in CLASSES
    }
