"""Saved GCP plans: `hyperpod gcp plan --out PLAN.json`, applied later by `gcp apply --plan PLAN.json`.

The file (JSON): {"format": "hyperpod-gcp-saved-plan/1", "tool_version": "...", "cluster_name": "...",
"observed_fingerprint": "..." | null, "plan": {...as `gcp plan --json` prints it...}, "integrity":
"sha256:..."} — the same scheme as HyperPod's saved plans (pipeline/saved.py, whose digest, size
limit and error class this reuses): a file edited after it was saved, of another format or made by
another version is refused. The hash detects edits; it does not authenticate (anyone can recompute
it), so apply also checks that every step fits the plan (apply.check_steps) before any call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..files import read_bounded
from ..pipeline.saved import MAX_BYTES, SavedPlanError, _digest, _version
from ..plan.model import PLAN_FORMAT, Plan

FORMAT = "hyperpod-gcp-saved-plan/1"


def document(the_plan: Plan) -> dict[str, Any]:
    body = {"format": FORMAT, "tool_version": _version(), "cluster_name": the_plan.cluster_name,
            "observed_fingerprint": the_plan.observed_fingerprint, "plan": json.loads(the_plan.to_json())}
    return {**body, "integrity": _digest(body)}


def save(the_plan: Plan, path: str | Path) -> None:
    """Written whole or not at all (files.write_whole)."""
    from ..files import write_whole

    write_whole(path, json.dumps(document(the_plan), indent=2, sort_keys=True) + "\n")


def load(path: str | Path) -> Plan:
    """The plan saved in `path`, or SavedPlanError naming the file and what is wrong."""
    where = str(path)
    data = _parse(where, _read_bounded(where))
    if not isinstance(data, dict) or "format" not in data or "plan" not in data:
        raise SavedPlanError(f"{where}: not a saved plan (no format/plan); make one with `hyperpod gcp plan -f SPEC --out {where}`")
    if data["format"] == PLAN_FORMAT:
        raise SavedPlanError(f"{where}: a HyperPod (AWS) saved plan; apply it with `hyperpod apply --plan {where}`")
    if data["format"] != FORMAT:
        raise SavedPlanError(f"{where}: plan format {str(data['format'])[:80]!r}, this version reads {FORMAT}; make the plan again")
    if data.get("integrity") != _digest({k: v for k, v in data.items() if k != "integrity"}):
        raise SavedPlanError(f"{where}: the file was changed after it was saved (integrity check failed); a saved plan "
                             "is applied exactly as reviewed: make the plan again")
    if data.get("tool_version") != _version():
        raise SavedPlanError(f"{where}: made by pulumi-hyperpod {str(data.get('tool_version'))[:40]!r}, this is "
                             f"{_version()}; make the plan again with this version")
    try:
        the_plan = Plan.from_dict(data["plan"])
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise SavedPlanError(f"{where}: not a valid saved plan ({type(error).__name__}: {error!r})") from None
    if the_plan.cluster_name != data.get("cluster_name") or the_plan.observed_fingerprint != data.get("observed_fingerprint"):
        raise SavedPlanError(f"{where}: the plan's cluster or observed state does not match the file's; make the plan again")
    return the_plan


def _read_bounded(where: str) -> bytes:
    """At most MAX_BYTES + 1 bytes of a regular file (`files.read_bounded`)."""
    try:
        raw = read_bounded(where, MAX_BYTES)
    except FileNotFoundError:
        raise SavedPlanError(f"{where}: no such file (save a plan with `hyperpod gcp plan -f SPEC --out {where}`)") from None
    except OSError as error:
        raise SavedPlanError(f"{where}: cannot be read ({error.strerror or error})") from None
    if len(raw) > MAX_BYTES:
        raise SavedPlanError(f"{where}: larger than {MAX_BYTES // (1024 * 1024)} MB, not a saved plan")
    return raw


def _parse(where: str, raw: bytes) -> Any:
    try:
        return json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise SavedPlanError(f"{where}: not a saved plan (not JSON: {type(error).__name__})") from None
