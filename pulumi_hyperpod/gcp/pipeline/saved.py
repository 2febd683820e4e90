"""Saved GCP plans: `hyperpod plan --out PLAN.json` (or `hyperpod gcp plan --out`), applied later by
`hyperpod apply --plan PLAN.json` (or `hyperpod gcp apply --plan`).

A saved plan is its inputs. The file is core/planfile.py's (format `hyperpod-plan/3`, the envelope
every cloud shares); what Google Cloud saves in it:

    {"format": "hyperpod-plan/3", "tool_version": "...", "cloud": "gcp", "backend": "gcp"|"fake",
     "project": "...", "location": "...", "cluster_name": "...", "observed_fingerprint": "..." | null,
     "inputs": {"spec": {...the spec, snake_case, with its full name...}, "policy": {...},
                "observed": {...the GET response the plan was made from...} | null},
     "plan": {...as `gcp plan --json` prints it...}, "integrity": "sha256:..."}

The hash (core/planfile.py) detects an edit, but anyone can recompute it; so `load` also re-derives the plan from the saved inputs with the pure planner and
requires the same action and steps — an edited `action: delete`, an inserted or retargeted step
is refused — and returns the re-derived plan, whose guards are the planner's own. Apply then
checks the live cluster is still the saved observation (its fingerprint) before every write. A
plan made for another backend, project or region is refused too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pulumi_hyperpod.core import planfile
from pulumi_hyperpod.core.planfile import SavedPlanError
from pulumi_hyperpod.plans.model import Plan
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.gcp.observe import GcpClusterState
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError

__all__ = ["SavedPlanError", "document", "load", "save"]


def document(the_plan: Plan, *, spec: Any, observed: Any, policy: Any, backend: str) -> dict[str, Any]:
    """The file's content: the plan and the inputs it was made from (spec, policy, observation)."""
    name = spec.resource_name()
    inputs = {
        "spec": {"name": spec.name, **spec.body()},
        "policy": policy.model_dump(mode="json"),
        "observed": observed.resource if observed is not None else None,
    }
    body = {
        "backend": backend,
        "project": name.project,
        "location": name.location,
        "cluster_name": the_plan.cluster_name,
        "observed_fingerprint": the_plan.observed_fingerprint,
        "inputs": inputs,
        "plan": json.loads(the_plan.to_json()),
    }
    return planfile.seal("gcp", body)


def save(the_plan: Plan, path: str | Path, *, spec: Any, observed: Any, policy: Any, backend: str) -> None:
    """Written whole or not at all (files.write_whole)."""
    if observed is not None and observed.resource is None:
        raise SavedPlanError(f"{path}: the observation this plan was made from is not known; it cannot be saved")
    planfile.write(path, document(the_plan, spec=spec, observed=observed, policy=policy, backend=backend))


def load(path: str | Path, backend: str | None = None) -> Plan:
    """The plan saved in `path`, re-derived from its inputs; or SavedPlanError naming the file and
    what is wrong. `backend`: the one apply runs against (a plan made for another is refused)."""
    return load_with_inputs(path, backend)[0]


def load_with_inputs(path: str | Path, backend: str | None = None) -> tuple[Plan, Any, Any, Any]:
    """`load`, with the inputs the plan was re-derived from: (plan, spec, observed cluster, policy)."""
    where = str(path)
    data = planfile.read(path, cloud="gcp")  # the envelope: size, reader, format, integrity, version, cloud
    if backend is not None and data.get("backend") != backend:
        raise SavedPlanError(
            f"{where}: made against the {str(data.get('backend'))[:20]!r} backend, applied against "
            f"{backend!r}: make the plan again with --backend {backend}"
        )
    try:
        saved = Plan.from_dict(data["plan"])
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise SavedPlanError(f"{where}: not a valid saved plan ({type(error).__name__}: {error!r})") from None
    if saved.cluster_name != data.get("cluster_name") or saved.observed_fingerprint != data.get("observed_fingerprint"):
        raise SavedPlanError(f"{where}: the plan's cluster or observed state does not match the file's; make the plan again")
    rederived, spec, state, policy = _rederive(where, data)
    if _essence(rederived) != _essence(saved):
        raise SavedPlanError(
            f"{where}: the plan's action or steps are not the ones its saved inputs (spec, policy, "
            "observed cluster) give — the file was edited after it was made; make the plan again"
        )
    for section in ("cost", "notes", "groups"):  # what `apply --plan` shows and policies read: the inputs' own
        if not saved.refused and getattr(saved, section) != getattr(rederived, section):
            raise SavedPlanError(
                f"{where}: its {section} section is not the one its saved inputs (spec, policy, observed cluster) "
                "make — the file was edited after it was made; make the plan again"
            )
    return rederived, spec, state, policy


def _rederive(where: str, data: dict[str, Any]) -> tuple[Plan, Any, Any, Any]:
    """plan(spec, observed, policy) again, from what the file saved (the planner is pure)."""
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
    return plan(spec, state, policy), spec, state, policy


def _essence(the_plan: Plan) -> Any:
    """What must be the same: the cluster, the state it was made against, the action, every step
    (call, request, reasons) and which guards refused; `load` then requires the sections shown
    (cost, notes, groups) to be the inputs' too. A guard that now refuses is kept by returning the
    re-derived plan."""
    data = json.loads(the_plan.to_json())
    return (
        data.get("cluster_name"),
        the_plan.observed_fingerprint,
        data.get("action"),
        data.get("steps"),
        sorted(r.rule for r in the_plan.refusals),
    )
