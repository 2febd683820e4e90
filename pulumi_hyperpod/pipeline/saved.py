"""Saved plans: `hyperpod plan --out PLAN.json`, applied later by `hyperpod apply --plan PLAN.json`.

The file (JSON, format `hyperpod-plan/2`):

    {"format": "hyperpod-plan/2", "tool_version": "...", "cluster_name": "...",
     "spec": {...CreateCluster form...} | null, "policy": {...}, "roles": {...},
     "observed_fingerprint": "..." | null, "plan": {...the plan, as `plan --json` prints it...},
     "integrity": "sha256:..."}

`integrity` is the SHA-256 of everything else (canonical JSON): a file edited after it was saved is
refused, so what is applied is exactly what was reviewed. It detects edits, it does not
authenticate: anyone who can write the file can recompute it. A file of another format, or made
by another version of the tool (whose planner may decide differently), is refused too: make the
plan again.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Mapping

from ..files import read_bounded
from ..plan import PLAN_FORMAT, Plan, Policy
from ..plan.integrity import step_problems

MAX_BYTES = 64 * 1024 * 1024  # a plan of thousands of nodes is a few MB


class SavedPlanError(ValueError):
    """A saved plan file that cannot be applied; the message names the file and says why."""


def _version() -> str:
    from .. import __version__

    return __version__


def _digest(body: Mapping[str, Any]) -> str:
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def document(prepared: Any) -> dict[str, Any]:
    """The saved form of a Prepared plan."""
    the_plan: Plan = prepared.plan
    body: dict[str, Any] = {
        "format": PLAN_FORMAT,
        "tool_version": _version(),
        "cluster_name": the_plan.cluster_name,
        "spec": prepared.desired.to_api("CreateCluster") if prepared.desired is not None else None,
        "policy": json.loads(prepared.policy.model_dump_json()),
        "roles": dict(prepared.roles or {}),
        "observed_fingerprint": the_plan.observed_fingerprint,
        "plan": json.loads(the_plan.to_json()),
    }
    return {**body, "integrity": _digest(body)}


def save(prepared: Any, path: str | Path) -> None:
    """Written whole or not at all: a failed save leaves the file that was there."""
    from ..files import write_whole

    write_whole(path, json.dumps(document(prepared), indent=2, sort_keys=True, default=str) + "\n")


def load(path: str | Path) -> Any:
    """The Prepared plan in `path`, or SavedPlanError naming the file and what is wrong."""
    from ..spec import ClusterSpec, SpecError
    from . import Prepared

    where = str(path)
    file = Path(path)
    if not file.exists():
        raise SavedPlanError(f"{where}: no such file (save a plan with `hyperpod plan -f SPEC --out {where}`)")
    if file.is_dir():
        raise SavedPlanError(f"{where}: is a directory, not a saved plan file")
    try:
        raw = read_bounded(file, MAX_BYTES)
        if len(raw) > MAX_BYTES:
            raise SavedPlanError(f"{where}: larger than {MAX_BYTES // (1024 * 1024)} MB, not a saved plan")
        data = json.loads(raw.decode("utf-8"))
    except OSError as error:
        raise SavedPlanError(f"{where}: cannot be read ({error.strerror or error})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise SavedPlanError(f"{where}: not a saved plan (not JSON: {error})") from None
    if not isinstance(data, dict) or "plan" not in data or "format" not in data:
        raise SavedPlanError(f"{where}: not a saved plan (no format/plan); make one with `hyperpod plan -f SPEC --out {where}`")
    if str(data["format"]).startswith("hyperpod-gcp-saved-plan/"):  # gcp/saved.py: made by `hyperpod gcp plan --out`
        raise SavedPlanError(f"{where}: a Google Cloud saved plan; apply it with `hyperpod gcp apply --plan {where}`")
    if data["format"] != PLAN_FORMAT:
        raise SavedPlanError(f"{where}: plan format {data['format']!r}, this version reads {PLAN_FORMAT}; make the plan again")
    body = {k: v for k, v in data.items() if k != "integrity"}
    if data.get("integrity") != _digest(body):
        raise SavedPlanError(f"{where}: the file was changed after it was saved (integrity check failed); "
                             "a saved plan is applied exactly as reviewed: make the plan again")
    if data.get("tool_version") != _version():
        raise SavedPlanError(f"{where}: made by pulumi-hyperpod {data.get('tool_version')}, this is {_version()}; "
                             "make the plan again with this version")
    from pydantic import ValidationError

    try:
        the_plan = Plan.from_dict(data["plan"])
        try:
            policy = Policy.model_validate(data.get("policy") or {})
        except ValidationError as error:
            first = error.errors()[0]
            where_in = ".".join(str(part) for part in first["loc"])
            raise ValueError(f"policy.{where_in}: {first['msg']}") from None
        desired = ClusterSpec.from_dict(data["spec"], source=where) if data.get("spec") is not None else None
    except SpecError:
        raise
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise SavedPlanError(f"{where}: not a valid saved plan ({type(error).__name__}: {error})") from None
    if the_plan.observed_fingerprint != data.get("observed_fingerprint"):
        raise SavedPlanError(f"{where}: the plan's observed state does not match its fingerprint; make the plan again")
    names = {data.get("cluster_name"), the_plan.cluster_name} | ({desired.name} if desired is not None else set())
    if len(names) != 1:
        raise SavedPlanError(f"{where}: names more than one cluster ({', '.join(sorted(map(str, names)))}); make the plan again")
    problems = step_problems(the_plan, desired.to_api("CreateCluster") if desired is not None else None)
    if problems:
        raise SavedPlanError(f"{where}: not a plan this tool made ({problems[0]}); make the plan again")
    return Prepared(the_plan, desired, None, policy, dict(data.get("roles") or {}))
