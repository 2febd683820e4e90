"""Fleet-wide policy (docs/fleet.md "Fleet policy"): Rego rules over the whole fleet plan, evaluated
by the real `opa` (policies/README.md), as `fleet plan --policy`, `fleet apply --policy` and a
wave's `gates.policy` ask.

The input is the `hyperpod-fleet-plan/1` document with, in each stack, `plans`: every cluster's whole
plan (`hyperpod-plan/3`) as its preview showed it. The query is `data.hyperpod.fleet.deny` (package
`hyperpod.fleet`, policies/rego/fleet.rego): a set of `{code, message, stacks}`. Each `--policy` path
(a .rego file, a directory of them, or a JSON data file: `{"hyperpod": {"fleet_params": {…}}}`) is
handed to opa as `-d`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from pulumi_hyperpod.fleet.gates import FAILED, PASSED, GateResult
from pulumi_hyperpod.fleet.spec import Wave
from pulumi_hyperpod.fleet.summary import StackPlans

QUERY = "data.hyperpod.fleet.deny"
OPA_VERSION = "1.22.3"  # what scripts/install-opa builds (policies/crossguard/plan_rules.py finds it the same way)


class PolicyError(RuntimeError):
    """The policy could not be evaluated (no opa, a bad Rego file): the fleet was not checked, never passed."""


def policy_input(document: Mapping[str, Any], stacks: Sequence[StackPlans]) -> dict[str, Any]:
    """The fleet plan document with each stack's whole plans beside its summary."""
    plans = {s.stack: [dict(p) for p in s.plans] for s in stacks}
    return {**document, "stacks": [{**row, "plans": plans.get(row["stack"], [])} for row in document["stacks"]]}


def find_opa() -> str:
    """$HYPERPOD_OPA, else `opa` on PATH, else the binary scripts/install-opa caches."""
    given = os.environ.get("HYPERPOD_OPA")
    if given:
        return given
    on_path = shutil.which("opa")
    if on_path:
        return on_path
    cache = Path(os.environ.get("PULUMI_HYPERPOD_CACHE") or Path.home() / ".cache" / "pulumi-hyperpod")
    cached = cache / f"opa-v{OPA_VERSION}" / "bin" / "opa"
    if cached.is_file():
        return str(cached)
    raise PolicyError(
        f"no opa found to evaluate the fleet policy (set HYPERPOD_OPA, put opa on PATH, or run scripts/install-opa, which builds {cached})"
    )


def evaluate(paths: Sequence[str | Path], fleet_input: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The violations `data.hyperpod.fleet.deny` gives for the input, sorted; PolicyError when opa is
    missing, fails, or the paths define no such rule set."""
    check_paths(paths)
    command = [find_opa(), "eval", "--format", "raw", "--stdin-input", *(arg for path in paths for arg in ("-d", str(path))), QUERY]
    try:
        done = subprocess.run(command, input=json.dumps(fleet_input, default=str), capture_output=True, text=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        raise PolicyError(f"could not run {command[0]}: {error}") from None
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise PolicyError(f"opa eval of {', '.join(map(str, paths))} failed (exit {done.returncode}): {' '.join(said[:3])}")
    if not done.stdout.strip():
        raise PolicyError(f"{', '.join(map(str, paths))}: defines no {QUERY} (package hyperpod.fleet, a `deny` set)")
    found = json.loads(done.stdout)
    if not isinstance(found, list) or not all(isinstance(v, dict) for v in found):
        raise PolicyError(f"{QUERY} is not a set of violations ({{code, message, stacks}})")
    return sorted(found, key=lambda v: (str(v.get("code")), str(v.get("message"))))


def check_paths(paths: Sequence[str | Path]) -> None:
    """Before any preview: each policy path is there, and so is opa (PolicyError, one line, when not)."""
    for path in paths:
        if not Path(path).exists():
            raise PolicyError(f"{path}: no such policy file or directory")
    find_opa()


def verdict_lines(violations: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each violation as the one line `refused:` prints."""
    return [f"fleet policy {v.get('code')}: {v.get('message')}" for v in violations]


def judged(document: Mapping[str, Any], stacks: Sequence[StackPlans], paths: Sequence[str | Path]) -> dict[str, Any]:
    """The fleet plan with its `policy` section — null without a policy, else the paths, the
    violations and `denied` —; a violation is one of its refusals and refuses it."""
    if not paths:
        return {**document, "policy": None}
    found = evaluate(paths, policy_input(document, stacks))
    return {
        **document,
        "policy": {"paths": [str(p) for p in paths], "violations": found, "denied": bool(found)},
        "refusals": [*document["refusals"], *verdict_lines(found)],
        "refused": bool(document["refused"] or found),
    }


def wave_input(wave: Wave, document: Mapping[str, Any], stacks: Sequence[StackPlans]) -> dict[str, Any]:
    """A wave's policy input: the fleet plan of the wave's stacks (`stacks`, each with its plans),
    the wave's name, and the whole fleet's (`fleet.stacks`)."""
    whole = policy_input(document, stacks)
    mine = set(wave.stacks)
    return {
        **whole,
        "wave": wave.name,
        "stacks": [row for row in whole["stacks"] if row["stack"] in mine],
        "fleet": {"stacks": whole["stacks"]},
    }


def wave_gate(wave: Wave, base: Path, document: Mapping[str, Any], stacks: Sequence[StackPlans]) -> list[GateResult]:
    """`gates.policy`, checked before the wave starts: one failed result per violation (or one when
    the policy cannot be evaluated), else one passed; none when the wave has no policy gate."""
    if not wave.gates.policy:
        return []
    who = ", ".join(wave.stacks)
    try:
        found = evaluate([base / wave.gates.policy], wave_input(wave, document, stacks))
    except PolicyError as error:
        return [GateResult("policy", who, "", FAILED, str(error))]
    if not found:
        return [GateResult("policy", who, "", PASSED)]
    return [
        GateResult("policy", ", ".join(map(str, v.get("stacks") or ())) or who, "", FAILED, line)
        for v, line in zip(found, verdict_lines(found), strict=True)
    ]
