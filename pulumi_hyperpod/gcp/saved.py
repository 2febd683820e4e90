"""Saved GCP plans: `hyperpod gcp plan --out PLAN.json`, applied later by `gcp apply --plan PLAN.json`.

A saved plan is its inputs. The file (JSON):

    {"format": "hyperpod-gcp-saved-plan/2", "tool_version": "...", "cloud": "gcp", "backend": "gcp"|"fake",
     "project": "...", "location": "...", "cluster_name": "...", "observed_fingerprint": "..." | null,
     "inputs": {"spec": {...the spec, snake_case, with its full name...}, "policy": {...},
                "observed": {...the GET response the plan was made from...} | null},
     "plan": {...as `gcp plan --json` prints it...}, "integrity": "sha256:..."}

The hash (pipeline/saved.py's digest, size limit and error class) detects an edit, but anyone can
recompute it; so `load` also re-derives the plan from the saved inputs with the pure planner and
requires the same action and steps — an edited `action: delete`, an inserted or retargeted step
is refused — and returns the re-derived plan, whose guards are the planner's own. Apply then
checks the live cluster is still the saved observation (its fingerprint) before every write. A
plan made for another backend, project or region is refused too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..files import read_bounded
from ..pipeline.saved import MAX_BYTES, SavedPlanError, _digest, _version
from ..plan.model import PLAN_FORMAT, Plan

FORMAT = "hyperpod-gcp-saved-plan/2"
OLDER_FORMATS = ("hyperpod-gcp-saved-plan/1",)


def document(the_plan: Plan, *, spec: Any, observed: Any, policy: Any, backend: str) -> dict[str, Any]:
    """The file's content: the plan and the inputs it was made from (spec, policy, observation)."""
    name = spec.resource_name()
    inputs = {"spec": {"name": spec.name, **spec.body()}, "policy": policy.model_dump(mode="json"),
              "observed": observed.resource if observed is not None else None}
    body = {"format": FORMAT, "tool_version": _version(), "cloud": "gcp", "backend": backend, "project": name.project,
            "location": name.location, "cluster_name": the_plan.cluster_name,
            "observed_fingerprint": the_plan.observed_fingerprint, "inputs": inputs, "plan": json.loads(the_plan.to_json())}
    return {**body, "integrity": _digest(body)}


def save(the_plan: Plan, path: str | Path, *, spec: Any, observed: Any, policy: Any, backend: str) -> None:
    """Written whole or not at all (files.write_whole)."""
    from ..files import write_whole

    if observed is not None and observed.resource is None:
        raise SavedPlanError(f"{path}: the observation this plan was made from is not known; it cannot be saved")
    write_whole(path, json.dumps(document(the_plan, spec=spec, observed=observed, policy=policy, backend=backend),
                                 indent=2, sort_keys=True) + "\n")


def load(path: str | Path, backend: str | None = None) -> Plan:
    """The plan saved in `path`, re-derived from its inputs; or SavedPlanError naming the file and
    what is wrong. `backend`: the one apply runs against (a plan made for another is refused)."""
    where = str(path)
    data = _parse(where, _read_bounded(where))
    if not isinstance(data, dict) or "format" not in data or "plan" not in data:
        raise SavedPlanError(f"{where}: not a saved plan (no format/plan); make one with `hyperpod gcp plan -f SPEC --out {where}`")
    if data["format"] == PLAN_FORMAT:
        raise SavedPlanError(f"{where}: a HyperPod (AWS) saved plan; apply it with `hyperpod apply --plan {where}`")
    if data["format"] in OLDER_FORMATS:
        raise SavedPlanError(f"{where}: made by an older version (without the inputs it was made from); make the plan again")
    if data["format"] != FORMAT:
        raise SavedPlanError(f"{where}: plan format {str(data['format'])[:80]!r}, this version reads {FORMAT}; make the plan again")
    if data.get("integrity") != _digest({k: v for k, v in data.items() if k != "integrity"}):
        raise SavedPlanError(f"{where}: the file was changed after it was saved (integrity check failed); a saved plan "
                             "is applied exactly as reviewed: make the plan again")
    if data.get("tool_version") != _version():
        raise SavedPlanError(f"{where}: made by pulumi-hyperpod {str(data.get('tool_version'))[:40]!r}, this is "
                             f"{_version()}; make the plan again with this version")
    if backend is not None and data.get("backend") != backend:
        raise SavedPlanError(f"{where}: made against the {str(data.get('backend'))[:20]!r} backend, applied against "
                             f"{backend!r}: make the plan again with --backend {backend}")
    try:
        saved = Plan.from_dict(data["plan"])
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise SavedPlanError(f"{where}: not a valid saved plan ({type(error).__name__}: {error!r})") from None
    if saved.cluster_name != data.get("cluster_name") or saved.observed_fingerprint != data.get("observed_fingerprint"):
        raise SavedPlanError(f"{where}: the plan's cluster or observed state does not match the file's; make the plan again")
    rederived = _rederive(where, data)
    if _essence(rederived) != _essence(saved):
        raise SavedPlanError(f"{where}: the plan's action or steps are not the ones its saved inputs (spec, policy, "
                             "observed cluster) give — the file was edited after it was made; make the plan again")
    return rederived


def _rederive(where: str, data: dict[str, Any]) -> Plan:
    """plan(spec, observed, policy) again, from what the file saved (the planner is pure)."""
    from ..plan.policy import Policy
    from .observe import GcpClusterState
    from .planner import plan
    from .spec import ClusterSpec, GcpSpecError

    inputs = data.get("inputs")
    if not isinstance(inputs, dict) or not isinstance(inputs.get("spec"), dict):
        raise SavedPlanError(f"{where}: the plan has no saved inputs (spec, policy, observed cluster); make the plan again")
    try:
        spec = ClusterSpec.from_document(inputs["spec"])
        policy = Policy.model_validate(inputs.get("policy") or {})
        observed = inputs.get("observed")
        state = None if observed is None else GcpClusterState.from_api(observed)
    except GcpSpecError as error:
        raise SavedPlanError(f"{where}: its saved spec is not valid ({error.violations[0]}); make the plan again") from None
    except (AttributeError, KeyError, TypeError, ValueError, RecursionError) as error:
        raise SavedPlanError(f"{where}: its saved inputs are not valid ({type(error).__name__}); make the plan again") from None
    name = spec.resource_name()
    if (data.get("project"), data.get("location")) != (name.project, name.location) or spec.name != data.get("cluster_name"):
        raise SavedPlanError(f"{where}: the file's project, region or cluster is not its spec's; make the plan again")
    if state is not None and state.name != spec.name:
        raise SavedPlanError(f"{where}: its saved observation is of {state.name[:200]}, not of {spec.name}; make the plan again")
    return plan(spec, state, policy)


def _essence(the_plan: Plan) -> Any:
    """What must be the same: the cluster, the state it was made against, the action, every step
    (call, request, reasons) and which guards refused. Cost figures may differ (prices come from
    the environment); a guard that now refuses is kept by returning the re-derived plan."""
    data = json.loads(the_plan.to_json())
    return (data.get("cluster_name"), the_plan.observed_fingerprint, data.get("action"), data.get("steps"),
            sorted(r.rule for r in the_plan.refusals))


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
