"""What each step of a plan takes down, as data: its kind's declared disruption (plans/steps.py) with the
nodes it falls on filled in from the plan itself (docs/plans.md, "What each step takes down").

The one reader of the declaration for everything that judges a plan: apply's guards (aws/apply/guards.py,
gcp/apply.py), the rendering (plans/render.py), the plan's JSON (each step's `disruption`, which the Rego
rules and the CrossGuard pack read) — so a kind added to plans/steps.py is covered by all of them at once.

Where the nodes come from, in neutral words (no request is read here: its field names are a cloud's):

- `victims`: the step's victims (the planner's choice), by node key;
- `named`: the step's `batches`, the nodes its request names in the order the service takes them down —
  a rollout's rolling batches, or one batch for a reboot or a replacement (each cloud's planner fills it;
  the cloud holds it to the request: aws/planner/integrity.py);
- `chosen-by-service`: the plan's groups whose count falls by more than the victims it names, or that go
  whole (deleted, swapped): how many nodes the service takes and, from the plan's basis, the nodes it
  chooses among (any of them may go);
- `all`: every node of the plan's basis.

Pure: no I/O, no cloud.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.plans.steps import declaration

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.model import Plan, Step

# how the renderer and the policies' messages say each effect
VERBS = {"destroyed": "destroys", "restarted": "restarts", "drained": "drains", "none": "touches no node"}
WHOLE = frozenset({"delete", "replace"})  # group actions whose every node goes (deleted, or swapped: Google Cloud)


@dataclass(frozen=True, slots=True)
class ChosenGroup:
    """A group whose nodes the service chooses among: `count` of them go."""

    group: str
    count: int
    nodes: tuple[str, ...]  # the group's nodes as the plan saw them: any of them may be among the count

    def to_dict(self) -> dict[str, Any]:
        return {"group": self.group, "count": self.count, "nodes": list(self.nodes)}


@dataclass(frozen=True, slots=True)
class StepDisruption:
    effect: str  # plans/steps.py Effect
    scope: str  # plans/steps.py Scope
    how: str  # the declaration's words
    nodes: tuple[str, ...] = ()  # victims, named, all: the node keys the effect falls on
    groups: tuple[ChosenGroup, ...] = ()  # chosen-by-service
    listed: str = "the nodes that would be removed"  # victims: the table of the rendering that lists them (not in the JSON)

    @property
    def at_risk(self) -> tuple[str, ...]:
        """Every node the step may take down: the ones it names and the ones the service may choose."""
        chosen = tuple(key for group in self.groups for key in group.nodes)
        return tuple(dict.fromkeys(self.nodes + chosen))

    @property
    def count(self) -> int:
        """How many nodes go down (for chosen-by-service: the counts, not the candidates)."""
        return len(self.nodes) + sum(group.count for group in self.groups)

    def to_dict(self) -> dict[str, Any]:
        return {
            "effect": self.effect,
            "scope": self.scope,
            "how": self.how,
            "nodes": list(self.nodes),
            "groups": [group.to_dict() for group in self.groups],
        }

    def words(self, most: int = 5) -> str:
        """For people: "restarts 3 nodes: i-…, i-…, i-…", "destroys i-… (volumes lost)"."""
        if self.effect == "none":
            return ""
        verb = VERBS[self.effect]
        lost = " (volumes lost)" if self.effect == "destroyed" else ""
        if self.scope == "chosen-by-service":
            return "; ".join(
                f"{verb} {group.count} of {group.group}'s {len(group.nodes) or group.count} node(s), chosen by the service{lost}"
                for group in self.groups
            )
        if not self.nodes:
            return f"{verb} no node"
        if self.scope == "victims":  # listed, with why each, in the removed-nodes table
            return f"{verb} {len(self.nodes):,} node{'' if len(self.nodes) == 1 else 's'}{lost}: {self.listed}, below"
        if len(self.nodes) == 1:
            return f"{verb} {self.nodes[0]}{lost}"
        noun = f"all {len(self.nodes)} nodes" if self.scope == "all" else f"{len(self.nodes)} nodes"
        return f"{verb} {noun}{lost}: {shortened(self.nodes, most)}"


def shortened(keys: tuple[str, ...] | list[str], most: int = 5) -> str:
    """The first `most` keys, and how many more (a long list is cut with a count)."""
    return ", ".join(keys[:most]) + (f" and {len(keys) - most:,} more" if len(keys) > most else "")


def of_step(step: Step, plan: Plan) -> StepDisruption:
    """The step's disruption: its kind's declaration, with the nodes it falls on."""
    declared = declaration(step.kind).disruption
    base = (declared.effect, declared.scope, declared.how)
    if declared.scope == "victims":
        listed = "the nodes that would move to another group" if step.kind == "move-nodes" else "the nodes that would be removed"
        return StepDisruption(*base, nodes=tuple(dict.fromkeys(v.node_id for v in step.victims)), listed=listed)
    if declared.scope == "named":
        return StepDisruption(*base, nodes=tuple(dict.fromkeys(key for batch in step.batches for key in batch)))
    if declared.scope == "chosen-by-service":
        return StepDisruption(*base, groups=_chosen(plan))
    if declared.scope == "all":
        return StepDisruption(*base, nodes=tuple(key for key, _, _ in plan.basis.node_states()) if plan.basis is not None else ())
    return StepDisruption(*base)


def of_plan(plan: Plan) -> tuple[StepDisruption, ...]:
    """Each step's disruption, in the plan's order."""
    return tuple(of_step(step, plan) for step in plan.steps)


def _chosen(plan: Plan) -> tuple[ChosenGroup, ...]:
    """The groups that lose nodes the plan does not name: deleted or swapped whole, or lowered by more
    than the victims the plan names in them."""
    named: dict[str, int] = {}
    for victim in plan.victims:
        named[victim.group] = named.get(victim.group, 0) + 1
    members: dict[str, list[str]] = {}
    if plan.basis is not None:
        for key, group, _ in plan.basis.node_states():
            members.setdefault(group, []).append(key)
    chosen = []
    for change in plan.groups:
        nodes = tuple(members.get(change.group, ()))
        before = change.target_before or 0
        if change.action in WHOLE:
            count = max(before, len(nodes))
        elif change.action == "shrink":
            count = before - (change.target_after or 0) - named.get(change.group, 0)
        else:
            continue
        if count > 0:
            chosen.append(ChosenGroup(change.group, count, nodes))
    return tuple(chosen)


def stated_disruption_problems(plan: Plan, stated: list[Any]) -> list[str]:
    """A plan file's `disruption` of each step (None: not stated, a file older than the member) must
    be what its kind declares for it (`of_step`): it is derived, and a policy that read an
    edited one would judge a plan other than the one apply runs."""
    problems = []
    for number, (step, said) in enumerate(zip(plan.steps, stated, strict=True), 1):
        if said is not None and said != of_step(step, plan).to_dict():
            problems.append(
                f"step {number} ({step.operation}): its disruption is not the one a {step.kind} step of this plan has; make the plan again"
            )
    return problems
