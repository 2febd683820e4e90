"""The Rego rules (policies/rego) on plans the real `hyperpod plan --json` makes on the simulator,
evaluated by the real opa (scripts/install-opa)."""

from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from tests.support.cli import SPECS
from tests.support.policy_tools import PACK, REPO, opa_path

REGO = REPO / "policies" / "rego"
PARAMS = REPO / "policies" / "params.json"
CLUSTER = "leo-stg-hyperpod-cluster"


@pytest.fixture(scope="session")
def opa() -> str:
    return opa_path()


@pytest.fixture(scope="module")
def plan_rules():
    """The CrossGuard pack's bridge (policies/crossguard/plan_rules.py), loaded from its file."""
    spec = importlib.util.spec_from_file_location("plan_rules", PACK / "plan_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class Plans:
    """Seed 004's cluster (a head node and 3 compute nodes) in a simulator world of its own; plans
    of variants of its spec, as `hyperpod plan` prints or saves them."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.count = 0

    def cli(self, *args: str, code: int = 0) -> str:
        # the world's environment for this call only: a session-long patch would reach every later test
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("HYPERPOD_FAKE_STATE", str(self.directory / "fake.sqlite"))
            patch.setenv("HYPERPOD_POLL_SECONDS", "0.05")
            patch.chdir(self.directory)
            result = CliRunner().invoke(main, ["--backend", "fake", *args], catch_exceptions=False)
        assert result.exit_code == code, f"hyperpod {' '.join(args)}: exit {result.exit_code}:\n{result.output}"
        return result.stdout

    def spec(self, compute: int, continuous: bool = False) -> Path:
        """Seed 004's spec with `compute` nodes in its compute group; `continuous`: in Continuous
        mode, which the all-or-nothing cluster cannot change to in place (a replacement)."""
        spec = json.loads((SPECS / "seed004-scale-out.json").read_text())
        head, group = spec["InstanceGroups"]
        group["InstanceCount"] = compute
        if continuous:  # Continuous mode wants every group's Slurm role stated
            spec["NodeProvisioningMode"] = "Continuous"
            head["SlurmConfig"] = {"NodeType": "Controller"}
            group["SlurmConfig"] = {"NodeType": "Compute", "PartitionNames": ["dev"]}
        return self.write(spec)

    def write(self, document: dict[str, Any]) -> Path:
        self.count += 1
        path = self.directory / f"file-{self.count}.json"
        path.write_text(json.dumps(document))
        return path

    def plan(self, spec: Path, *args: str, code: int = 0) -> str:
        return self.cli("plan", "-f", str(spec), "--json", *args, code=code)


@pytest.fixture(scope="session")  # the tests only read the world: one cluster for all of them
def plans(tmp_path_factory: pytest.TempPathFactory):
    world = Plans(tmp_path_factory.mktemp("policy-world"))
    world.cli("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes")
    world.cli("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes")
    return world


def evaluate(opa: str, document: str | Path, params: dict[str, Any] | None = None, tmp: Path | None = None) -> list[dict[str, Any]]:
    """`opa eval` of data.hyperpod.plan.deny over a plan (text, or a file), with policies/params.json
    or the given parameters as data."""
    data = PARAMS
    if params is not None:
        assert tmp is not None
        data = tmp / f"params-{abs(hash(json.dumps(params, sort_keys=True)))}.json"
        data.write_text(json.dumps({"hyperpod": {"params": params}}))
    command = [opa, "eval", "--format", "raw", "-d", str(REGO), "-d", str(data)]
    if isinstance(document, Path):
        command += ["-i", str(document)]
        text = None
    else:
        command += ["--stdin-input"]
        text = document
    done = subprocess.run([*command, "data.hyperpod.plan.deny"], input=text, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def codes(violations: list[dict[str, Any]]) -> set[str]:
    return {v["code"] for v in violations}


def victims(plan_text: str) -> list[str]:
    return [v["node_id"] for step in json.loads(plan_text)["steps"] for v in step["victims"]]
