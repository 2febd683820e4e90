"""Saved HyperPod plans: `hyperpod plan --out PLAN.json`, applied later by `hyperpod apply --plan PLAN.json`.

The file is core/planfile.py's (format `hyperpod-plan/3`, the same envelope for every cloud: size,
reader, format, integrity, tool version, cloud); what AWS saves in it:

    {"format": "hyperpod-plan/3", "tool_version": "...", "cloud": "aws", "cluster_name": "...",
     "target": {"cloud": "aws", "backend": "aws" | "fake", "region": "...", "account": "..." | null},
     "spec": {...CreateCluster form, and its Extensions...} | null, "policy": {...}, "roles": {...},
     "observed": {...a `hyperpod snapshot` of the cluster...} | null,
     "observed_fingerprint": "..." | null,
     "observed_tags": [[key, value], ...] | null (ListTags, when the spec manages tags),
     "observed_extensions": [{name, arn, version, status, configuration, modified}, ...] | null
       (ListClusterExtensions and DescribeClusterExtension, when the spec names Extensions),
     "workload": {...the workload view the victims were ranked with...} | null,
     "observed_events_horizon": "<EventTime>|<EventId>" | "" | null (the newest event: premise "acted"),
     "context_notes": [...what reading the inputs said: how the roles were learnt...],
     "plan": {...the plan, as `plan --json` prints it; basis.facts: its premises...}, "integrity": "sha256:..."}

`integrity` is the SHA-256 of everything else (canonical JSON): a file edited after it was saved is
refused. It detects edits, it does not authenticate: anyone who can write the file can recompute
it. So the file is not trusted for what it says the plan does: a saved plan is its inputs. `load`
makes the plan again from the spec, policy, roles, observed cluster (and tags, workload) the file saved (`plan()` is
pure) and accepts the file only when the plan it holds is that plan, step for step (action,
requests, victims, groups, basis and its premise facts) and section for section (cost, notes,
refusals); one the inputs make refused is returned refused. What is shown and applied is the plan
made again (with the file's preflight, which apply runs again, and Slurm section). A saved reboot
of a cluster whose service keeps no events is refused: nothing could show it has not run already
(a plan acts at most once; the other premises are read again by apply, aws/planner/premise.py).
What is applied is what those inputs make — and apply checks the policy's guards again on every call
(apply/guards.py). `target` names where the plan was made; `load(..., target=)` refuses it
anywhere else (another region, account or backend), before any call. A file of another format, or
made by another version of the tool (whose planner may decide differently), is refused too: make
the plan again.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Mapping

from pulumi_hyperpod.core import planfile
from pulumi_hyperpod.core.cloud import InputFiles, Prepared
from pulumi_hyperpod.core.planfile import SavedPlanError
from pulumi_hyperpod.plans import Plan, Policy
from pulumi_hyperpod.aws.details import READER, slurm_of, with_slurm
from pulumi_hyperpod.aws.planner.integrity import step_problems
from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError
from pydantic import ValidationError
from pulumi_hyperpod.aws.slurm.section import SlurmInputs
from pulumi_hyperpod.plans.steps import KINDS
from pulumi_hyperpod.aws.planner.premise import named_nodes
from pulumi_hyperpod.aws.context import AwsContext
from pulumi_hyperpod.core.timestamps import TimestampError
from pulumi_hyperpod.aws.workload.model import WorkloadView
from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.aws.observe.state import ExtensionState
from pulumi_hyperpod.aws.planner.basis import basis_of
from pulumi_hyperpod.aws.spec import InputError
from pulumi_hyperpod.aws.planner import plan as make
from pulumi_hyperpod.aws.stages import annotate, make_plan

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.context import AwsPrepared
    from pulumi_hyperpod.aws.workload.model import WorkloadView

__all__ = ["SavedPlanError", "document", "load", "plan_difference", "plan_target", "save"]


def document(prepared: AwsPrepared, target: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The saved form of a Prepared plan; `target`: where it was made (see `plan_target`)."""
    the_plan: Plan = prepared.plan
    observed = prepared.observed
    context = prepared.context  # an AwsContext: the roles and the workload view the plan was made with
    body: dict[str, Any] = {
        "cluster_name": the_plan.cluster_name,
        "target": plan_target(the_plan, **dict(target or {})),
        "spec": prepared.desired.to_spec() if prepared.desired is not None else None,
        "policy": json.loads(prepared.policy.model_dump_json()),
        "roles": context.role_map() if context is not None else {},
        "observed": observed.to_snapshot() if observed is not None else None,
        "observed_fingerprint": the_plan.observed_fingerprint,
        # ListTags' answer and the workload view are inputs of the plan too (AddTags/DeleteTags steps,
        # victims ranked by what runs on them, DrainNodes): apply makes the plan again from them
        "observed_tags": [list(pair) for pair in observed.tags] if observed is not None and observed.tags is not None else None,
        # the cluster's extensions: the extension steps and their premise (aws/planner/extensions.py)
        "observed_extensions": [dataclasses.asdict(e) for e in observed.extensions]
        if observed is not None and observed.extensions is not None
        else None,
        # the cluster's newest event when the plan was made: its "acted" premise (aws/planner/premise.py)
        "observed_events_horizon": observed.events_horizon if observed is not None else None,
        # what reading the inputs had to say (how the roles were learnt, workload nodes not matched):
        # the plan's notes are made again from these and the planner's own
        "context_notes": list(context.notes) if context is not None else [],
        "workload": context.view.to_dict() if context is not None and context.view is not None else None,
        # the Slurm section's inputs (the bundle's spec and the wanted one): it is made again from them
        "slurm_inputs": section.inputs.to_dict() if (section := slurm_of(the_plan)) is not None and section.inputs is not None else None,
        "plan": json.loads(the_plan.to_json()),
    }
    return planfile.seal("aws", body)


def plan_target(
    the_plan: Plan, *, backend: str | None = None, region: str | None = None, account: str | None = None, cloud: str = "aws"
) -> dict[str, Any]:
    """Where a plan is for: its cloud, backend, region and account. The observed cluster's ARN says
    the region and account when there is one; `region` (the client's) otherwise."""
    arn = the_plan.basis.identity if the_plan.basis is not None else ""
    parts = arn.split(":")
    if len(parts) > 4 and parts[3]:
        region = parts[3]
        account = parts[4] or account
    return {"cloud": cloud, "backend": backend, "region": region, "account": account}


def save(prepared: AwsPrepared, path: str | Path, *, target: Mapping[str, Any] | None = None, inputs: InputFiles = ()) -> None:
    """Written whole or not at all: a failed save leaves the file that was there. `target`: the
    backend and region the plan was made with (`plan_target`'s keywords)."""
    planfile.write(path, document(prepared, target), inputs=inputs)


def load(path: str | Path, *, target: Mapping[str, Any] | None = None) -> AwsPrepared:
    """The Prepared plan in `path`, or SavedPlanError naming the file and what is wrong. `target`:
    where it is to be applied (cloud, backend, region; None values are not compared)."""
    where = str(path)
    data = planfile.read(path, cloud="aws")  # the envelope: size, reader, format, integrity, version, cloud
    try:
        the_plan = Plan.from_dict(data["plan"], READER)
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
    _check_target(where, data.get("target"), target)
    roles = _roles(where, data.get("roles"))
    observed = _with_tags(where, _observed(where, data.get("observed"), the_plan), data.get("observed_tags"))
    observed = _with_horizon(where, observed, data.get("observed_events_horizon"))
    observed = _with_extensions(where, observed, data.get("observed_extensions"))
    view = _workload(where, data.get("workload"))
    notes = _notes(where, data.get("context_notes"))
    again = _made_again(desired, observed, policy, roles, data.get("target"), view, notes)
    if again.refused and not the_plan.refused:
        # what the saved inputs make now is refused (a guard the file's plan does not show): refused
        return _prepared(dataclasses.replace(again, preflight=the_plan.preflight), desired, observed, policy, roles, view, data)
    if not the_plan.refused:
        difference = plan_difference(the_plan, again) or section_difference(the_plan, again)
        if difference:
            raise SavedPlanError(
                f"{where}: not the plan its spec, policy, roles and observed cluster make ({difference}); make the plan again"
            )
        unprovable = _cannot_show_acted(again)
        if unprovable:
            raise SavedPlanError(f"{where}: {unprovable}")
    # what is shown and applied is the plan made again: the Slurm section from its saved inputs; the
    # account's checks (preflight) need reads the file cannot replay: the file's are kept, and apply
    # re-runs them
    again = with_slurm(dataclasses.replace(again, preflight=the_plan.preflight), _slurm_again(where, the_plan, data.get("slurm_inputs")))
    return _prepared(again if not the_plan.refused else the_plan, desired, observed, policy, roles, view, data)


def _slurm_again(where: str, the_plan: Plan, saved_inputs: Any) -> Any:
    """The plan's Slurm section made again from the inputs the file saved, refused when the file
    shows another one. A section with changes and no inputs is no section this tool saved."""
    section = slurm_of(the_plan)
    if section is None or section.changes is None:
        return section  # none asked, or the running spec unknown: notes only, and such a plan is refused
    if saved_inputs is None:
        raise SavedPlanError(f"{where}: its Slurm section has no slurm_inputs to make it from; make the plan again")
    try:
        again = SlurmInputs.from_dict(saved_inputs).section(section.source)
    except (KeyError, TypeError, ValueError) as error:
        raise SavedPlanError(f"{where}: not a valid saved plan (slurm_inputs: {type(error).__name__}: {error})") from None
    if again.to_dict() != section.to_dict():
        raise SavedPlanError(
            f"{where}: not the plan its spec, policy, roles and observed cluster make (its Slurm section is not the one its "
            "Slurm spec and the cluster's bundle make); make the plan again"
        )
    return again


def _cannot_show_acted(the_plan: Plan) -> str | None:
    """A step that restarts named nodes leaves no trace on them (a reboot): only the service's events
    show it has acted (premise "acted"). Where there are none, a saved one could act twice."""
    horizon = the_plan.basis.facts_of("acted").get("cluster") if the_plan.basis is not None else None
    if horizon is None or horizon == "" or "|" in horizon:
        return None
    for step in the_plan.steps:
        declared = KINDS[step.kind]
        if declared.disruption.effect == "restarted" and "acted" in declared.premise and "image" not in declared.premise:
            nodes = ", ".join(named_nodes(step)[:5])
            return (
                f"{step.operation} of {nodes} leaves no trace the service reports, and no event of this cluster "
                f"can show whether it ran since the plan was made ({horizon}): a saved plan acts at most once, so it "
                "is not applied from a file; plan and apply it in one command (`hyperpod apply -f SPEC --reboot ...`)"
            )
    return None


def section_difference(saved: Plan, again: Plan) -> str | None:
    """The first section the file shows that its inputs do not make (cost, notes, refusals), in words;
    None when they are the same. Preflight reads the account: not compared (apply runs it again); the
    Slurm section is made again from its own saved inputs (`_slurm_again`)."""
    for name in ("cost", "notes", "refusals"):
        mine, theirs = getattr(saved, name), getattr(again, name)
        if mine != theirs:
            return f"its {name} section is not the one they make"
    return None


def _notes(where: str, notes: Any) -> tuple[str, ...]:
    if notes is None:
        return ()
    if not isinstance(notes, list) or not all(isinstance(note, str) for note in notes):
        raise SavedPlanError(f"{where}: not a valid saved plan (context_notes: a list of strings)")
    return tuple(notes)


def _with_horizon(where: str, observed: Any, horizon: Any) -> Any:
    """The saved observation with the newest event the service reported when the plan was made (None: not read)."""
    if horizon is None or observed is None:
        return observed
    if not isinstance(horizon, str) or len(horizon) > 200:
        raise SavedPlanError(f"{where}: not a valid saved plan (observed_events_horizon: a string)")
    return dataclasses.replace(observed, events_horizon=horizon)


def _prepared(
    the_plan: Plan, desired: Any, observed: Any, policy: Policy, roles: dict[str, str], view: WorkloadView | None, data: Any
) -> AwsPrepared:
    """The loaded plan with the context it was made with (the Slurm roles, the workload view, the region)."""
    target = data.get("target")
    region = target.get("region") if isinstance(target, Mapping) else None
    return Prepared("aws", the_plan, desired, observed, policy, AwsContext(roles=roles, view=view, region=region))


def _with_tags(where: str, observed: Any, tags: Any) -> Any:
    """The saved observation with the tags ListTags reported when the plan was made (None: not read)."""
    if tags is None or observed is None:
        return observed
    if not isinstance(tags, list) or not all(
        isinstance(pair, list) and len(pair) == 2 and all(isinstance(part, str) for part in pair) for pair in tags
    ):
        raise SavedPlanError(f"{where}: not a valid saved plan (observed_tags: a list of [key, value] strings)")
    return dataclasses.replace(observed, tags=tuple((key, value) for key, value in tags))


def _with_extensions(where: str, observed: Any, extensions: Any) -> Any:
    """The saved observation with the extensions the cluster had when the plan was made (None: not read)."""
    if extensions is None or observed is None:
        return observed
    fields = [f.name for f in dataclasses.fields(ExtensionState)]
    if not isinstance(extensions, list) or not all(isinstance(e, dict) and set(e) == set(fields) for e in extensions):
        raise SavedPlanError(f"{where}: not a valid saved plan (observed_extensions: a list of {{{', '.join(fields)}}} objects)")
    if not all(isinstance(e[key], str) or (key == "configuration" and e[key] is None) for e in extensions for key in fields):
        raise SavedPlanError(f"{where}: not a valid saved plan (observed_extensions: their members are strings)")
    return dataclasses.replace(observed, extensions=tuple(ExtensionState(**e) for e in extensions))


def _workload(where: str, data: Any) -> Any:
    """The workload view the plan was ranked with, or None."""
    if data is None:
        return None
    try:
        return WorkloadView.from_dict(data)
    except TimestampError as error:
        raise SavedPlanError(f"{where}: workload.{error}") from None
    except (AttributeError, KeyError, TypeError, ValueError) as error:
        raise SavedPlanError(f"{where}: not a valid saved plan (workload: {type(error).__name__}: {error})") from None


def _check_target(where: str, saved: Any, wanted: Mapping[str, Any] | None) -> None:
    if not isinstance(saved, Mapping):
        raise SavedPlanError(f"{where}: not a valid saved plan (no target: the cloud, region and backend it is for)")
    for key in ("cloud", "backend", "region", "account"):
        here = (wanted or {}).get(key)
        if here is not None and saved.get(key) is not None and saved.get(key) != here:
            raise SavedPlanError(
                f"{where}: the plan was made for {key} {saved.get(key)}, this is {key} {here}; "
                f"apply it with the {key} it was made for, or make the plan again here"
            )


def _roles(where: str, roles: Any) -> dict[str, str]:
    if roles is None:
        return {}
    if not isinstance(roles, Mapping) or not all(isinstance(k, str) and v in ("Controller", "Login", "Compute") for k, v in roles.items()):
        raise SavedPlanError(f"{where}: not a valid saved plan (roles: group name to Controller, Login or Compute)")
    return dict(roles)


def _observed(where: str, snapshot: Any, the_plan: Plan) -> Any:
    """The saved observation, checked like any snapshot; its basis must be the plan's."""
    if snapshot is None:
        if the_plan.basis is not None:
            raise SavedPlanError(f"{where}: not a valid saved plan (a plan made from a cluster, without the cluster it saw)")
        return None
    try:
        state = ClusterState.from_snapshot(snapshot, source=f"{where}: observed", cluster_name=the_plan.cluster_name)
    except InputError as error:
        raise SavedPlanError(" ".join(error.lines())) from None
    if the_plan.basis is None or basis_of(state) != the_plan.basis.with_facts(()):
        raise SavedPlanError(f"{where}: the observed cluster it saved is not the one its plan was made from; make the plan again")
    return state


def _made_again(
    desired: Any, observed: Any, policy: Policy, roles: Mapping[str, str], target: Any, workload: Any = None, notes: tuple[str, ...] = ()
) -> Plan:
    """plan → cost → HyperPod's own sections (the legacy Slurm migration, the notes), as `plan` made them."""
    if desired is None:
        return make(None, observed, policy)
    region = target.get("region") if isinstance(target, Mapping) else None
    again = make_plan(desired, observed, policy, roles=roles, region=region, workload=workload)
    return annotate(again, desired, observed, AwsContext(roles=roles, view=workload, region=region, notes=notes))


def _before_facts(saved: Plan, again: Plan) -> bool:
    """A file saved before plans recorded their premises (`basis.facts`, still hyperpod-plan/3): the
    same basis without them. What is applied is the plan made again, whose facts are its inputs'."""
    return saved.basis is not None and again.basis is not None and not saved.basis.facts and saved.basis == again.basis.with_facts(())


def plan_difference(saved: Plan, again: Plan, *, basis: bool = True) -> str | None:
    """The first way `saved` is not `again` in what apply acts on, in words; None when it is.
    `basis=False`: `again` was made from the cluster as it is now, not from the saved one (a pinned
    plan, provider/pinned.py): whether the cluster moved since is the premises' to say (stale_reasons)."""
    if saved.action != again.action:
        return f"its action is {saved.action}, they make {again.action}"
    for number, (mine, theirs) in enumerate(itertools.zip_longest(saved.steps, again.steps), 1):
        if mine != theirs:
            what = mine.operation if mine is not None else "none"
            return f"step {number} ({what}) is not the step they make ({theirs.operation if theirs is not None else 'none'})"
    if saved.groups != again.groups:
        return "its group changes are not theirs"
    if saved.replacements != again.replacements:
        return "its replacement reasons are not theirs"
    if basis and saved.basis != again.basis and not _before_facts(saved, again):
        return "its basis is not the observed cluster"
    return None
