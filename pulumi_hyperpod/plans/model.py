"""A Plan is data: ordered steps, each the exact API request with its reasons (docs/DESIGN.md, "Patterns we borrow": Terraform).

It can be printed, compared, serialized and asserted on before anything runs, and `apply` executes
exactly these steps, never re-deriving them halfway.
"""

from __future__ import annotations

import json
import dataclasses
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol

from pulumi_hyperpod.plans.basis import Basis
from pulumi_hyperpod.plans.disruption import of_plan, stated_disruption_problems
from pulumi_hyperpod.plans.sections import CostSection, PreflightSection
from pulumi_hyperpod.plans.steps import StepKind as StepKind  # declared with its rows; exported here too

# The call a step makes, as its cloud names it ("UpdateCluster", "PatchModelDevelopmentCluster",
# or "DrainNodes", done in the orchestrator): each cloud's planner lists its own.
Operation = str
# a replacement destroys the instance's volumes
DESTRUCTIVE_KINDS = frozenset({"delete-cluster", "remove-nodes", "replace-nodes"})
NOT_API_CALLS = frozenset({"drain"})  # kinds of steps done in the orchestrator, not calls to the cloud's API
PLAN_FORMAT = "hyperpod-plan/3"  # CHANGELOG.md: the history of the format


# ---- a cloud's own sections ----------------------------------------------------------------------
# What only one cloud plans (HyperPod: a plan's Slurm section, a step's canary wait) is that cloud's
# record in the `details` slot of Plan and Step (AWS: aws/details.py). The model reads it only through
# these protocols, so it names no cloud; on the wire its members sit where they always did (the plan's
# or the step's top level), written by the cloud and read back by the reader the cloud gives `from_dict`.
class StepDetails(Protocol):
    def to_dict(self) -> dict[str, Any]:
        """The step's JSON members this section writes, in the wire's spelling ("canary")."""
        ...


class PlanDetails(Protocol):
    def to_dict(self) -> dict[str, Any]:
        """The plan's JSON members this section writes, in the wire's spelling ("slurm")."""
        ...

    def sections(self) -> tuple[tuple[str, str], ...]:
        """(title, text) of each part the plan's rendering shows after its notes."""
        ...

    def pending(self) -> str | None:
        """What a plan with no step still does, in words (None: nothing): it is not "no changes"."""
        ...


class DetailsReader(Protocol):
    """A cloud's reader of its own members of a plan's JSON (AWS: aws/details.py's READER)."""

    members: frozenset[str]  # the plan's members it reads
    step_members: frozenset[str]  # a step's

    def plan_details(self, data: Mapping[str, Any]) -> PlanDetails | None: ...

    def step_details(self, data: Mapping[str, Any]) -> StepDetails | None: ...


@dataclass(frozen=True, slots=True)
class Victim:
    """A node a scale-in removes, and why this one rather than another."""

    group: str
    node_id: str  # instance id, or the logical id of a node never launched
    logical: bool
    status: str
    reason: str
    # why this node, as a stable code for tools and policies (the reason is its sentence):
    # unhealthy | never-launched | health-checks | newest (aws/planner/victims.py)
    code: str = ""


@dataclass(frozen=True, slots=True)
class GroupChange:
    """One instance group, before and after: what a reviewer reads first."""

    group: str
    action: Literal["create", "grow", "shrink", "delete", "configure", "unchanged"]
    node_type: str | None = None
    target_before: int | None = None  # observed TargetCount (None for a new group)
    target_after: int | None = None  # desired InstanceCount (None for a deleted group)
    current: int | None = None  # observed CurrentCount
    min_before: int | None = None
    min_after: int | None = None
    instance_types: tuple[str, ...] = ()
    config_changes: tuple[str, ...] = ()
    restricted: bool = False  # a restricted instance group (HyperPod's RIG): planned like the others, marked

    @property
    def delta(self) -> int:
        return (self.target_after or 0) - (self.target_before or 0)


@dataclass(frozen=True, slots=True)
class Step:
    """One call, exactly as it will be made, with why: `reasons` in words for people, `codes` as
    stable codes beside them for tools and policies (Terraform's ActionReason), and `kind`, what the
    call does in words every cloud shares."""

    operation: Operation
    request: dict[str, Any]
    reasons: tuple[str, ...] = ()
    victims: tuple[Victim, ...] = ()
    # the nodes the request names, batch by batch in the order the service takes them down: a
    # rollout's rolling batches (one batch holding every node where the orchestrator has none: Slurm),
    # one batch for a reboot or a replacement. A step of a `named` disruption (plans/steps.py) says here
    # which nodes it falls on, in neutral words (plans/disruption.py; the cloud holds it to the request: aws/planner/integrity.py)
    batches: tuple[tuple[str, ...], ...] = ()
    kind: StepKind = field(kw_only=True)
    codes: tuple[str, ...] = field(default=(), kw_only=True)
    details: StepDetails | None = field(default=None, kw_only=True)  # the cloud's own (HyperPod: a canary's wait)

    @property
    def destructive(self) -> bool:
        return self.kind in DESTRUCTIVE_KINDS


@dataclass(frozen=True, slots=True)
class Refusal:
    """A guard said no. The plan is kept for review but will not be applied."""

    rule: str
    reason: str
    group: str | None = None


# the members of a plan's and a step's JSON the model writes itself (the rest are a cloud's details)
_PLAN_MEMBERS = frozenset(
    {"cluster_name", "action", "steps", "groups", "replacements", "refusals", "notes", "basis", "cost", "preflight"}
    | {"format", "observed_fingerprint", "empty", "refused", "calls"}  # derived
)
_STEP_MEMBERS = frozenset({"operation", "request", "reasons", "victims", "batches", "kind", "codes", "disruption"})


@dataclass(frozen=True, slots=True)
class Plan:
    cluster_name: str
    action: Literal["create", "update", "replace", "delete", "none"]
    steps: tuple[Step, ...] = ()
    groups: tuple[GroupChange, ...] = ()
    replacements: tuple[str, ...] = ()  # why the cluster cannot be changed in place
    refusals: tuple[Refusal, ...] = ()
    notes: tuple[str, ...] = ()
    basis: Basis | None = None  # the cluster as observed when the plan was made (None: no cluster)
    cost: CostSection | None = None  # added by the cost stage (pure)
    preflight: PreflightSection | None = None  # added by the preflight stage (reads the account)
    details: PlanDetails | None = None  # the cloud's own sections (HyperPod: the Slurm changes, aws/details.py)

    @property
    def observed_fingerprint(self) -> str | None:
        """A short hash of the basis: what the client tokens and a saved plan's summary name."""
        return self.basis.fingerprint() if self.basis is not None else None

    def refuse(self, *refusals: Refusal) -> Plan:
        """The plan with more refusals. A refused plan lists no calls: its steps are dropped, so
        nothing downstream (rendering, JSON `calls`, apply) can mistake it for something to run."""
        if not refusals:
            return self
        return dataclasses.replace(self, refusals=self.refusals + tuple(refusals), steps=())

    @property
    def empty(self) -> bool:
        return not self.steps and not self.replacements and not self.refusals

    @property
    def refused(self) -> bool:
        return bool(self.refusals)

    @property
    def victims(self) -> tuple[Victim, ...]:
        return tuple(v for step in self.steps for v in step.victims)

    def calls(self) -> dict[str, int]:
        if self.refused:
            return {}
        counts: dict[str, int] = {}
        for step in self.steps:
            if step.kind not in NOT_API_CALLS:
                counts[step.operation] = counts.get(step.operation, 0) + 1
        return counts

    # ---- serialization ------------------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        data = asdict(dataclasses.replace(self, details=None))
        del data["details"]
        data.update(self.details.to_dict() if self.details is not None else {})
        data["format"] = PLAN_FORMAT
        data["observed_fingerprint"] = self.observed_fingerprint
        data["empty"] = self.empty
        data["refused"] = self.refused
        data["calls"] = self.calls()
        for group, change in zip(data["groups"], self.groups, strict=True):
            group["delta"] = change.delta
        # derived from the declaration: what the policies read
        for written, step, disruption in zip(data["steps"], self.steps, of_plan(self), strict=True):
            del written["details"]
            written.update(step.details.to_dict() if step.details is not None else {})
            written["disruption"] = disruption.to_dict()
        return data

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True, default=str)

    @classmethod
    def from_dict(cls, data: dict[str, Any], details: DetailsReader | None = None) -> Plan:
        """`details`: the reader of the cloud's own members (AWS: aws/details.py's READER). A member
        no reader takes is refused unless it is empty (null, false: what a plan without it wrote),
        so a cloud's section is never dropped on the way."""
        if data.get("format") != PLAN_FORMAT:
            raise ValueError(f"plan format {data.get('format')!r} is not {PLAN_FORMAT}, the one this version reads; make the plan again")
        _unread(data, _PLAN_MEMBERS | (details.members if details is not None else frozenset()), "the plan")
        steps = tuple(_step(s, details) for s in data.get("steps") or ())
        groups = tuple(
            GroupChange(
                **{
                    **{k: v for k, v in g.items() if k != "delta"},
                    "instance_types": tuple(g.get("instance_types") or ()),
                    "config_changes": tuple(g.get("config_changes") or ()),
                }
            )
            for g in data.get("groups") or ()
        )
        plan = cls(
            cluster_name=data["cluster_name"],
            action=data["action"],
            steps=steps,
            groups=groups,
            replacements=tuple(data.get("replacements") or ()),
            refusals=tuple(Refusal(**r) for r in data.get("refusals") or ()),
            notes=tuple(data.get("notes") or ()),
            basis=Basis.from_dict(data["basis"]) if data.get("basis") else None,
            cost=CostSection.from_dict(data["cost"]) if data.get("cost") else None,
            preflight=PreflightSection.from_dict(data["preflight"]) if data.get("preflight") else None,
            details=details.plan_details(data) if details is not None else None,
        )
        problems = stated_disruption_problems(plan, [s.get("disruption") for s in data.get("steps") or ()])
        if problems:  # derived, never read: a file that says otherwise was edited
            raise ValueError(problems[0])
        return plan


def _step(data: Mapping[str, Any], details: DetailsReader | None) -> Step:
    _unread(data, _STEP_MEMBERS | (details.step_members if details is not None else frozenset()), f"step {data.get('operation')!r}")
    return Step(
        operation=data["operation"],
        request=data["request"],
        reasons=tuple(data.get("reasons") or ()),
        victims=tuple(Victim(**v) for v in data.get("victims") or ()),
        batches=tuple(tuple(batch) for batch in data.get("batches") or ()),
        kind=data["kind"],
        codes=tuple(data.get("codes") or ()),
        details=details.step_details(data) if details is not None else None,
    )


def _unread(data: Mapping[str, Any], read: frozenset[str], what: str) -> None:
    """Refuse a member nobody reads that says something: a cloud's section read without its reader."""
    unread = sorted(name for name, value in data.items() if name not in read and value not in (None, False))
    if unread:
        raise ValueError(f"{what} has member(s) {', '.join(unread)} of a cloud's own section: read it with that cloud's reader")
