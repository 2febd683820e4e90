"""What a plan's steps may be, whoever wrote the file it came from, in the checks every cloud shares:
each step only of the operations its plan's action takes, each of the kind its operation is (the kind
decides the disruption the guards and policies read: plans/disruption.py), and each step's stated
disruption the one its kind declares. The operations are the cloud's, given here as data
(`CloudOperations`: HyperPod's are aws/planner/integrity.py's), with the checks of what its requests
name. A saved plan's hash detects edits but anyone can recompute it; these checks keep an edited
step from reaching another cluster or turning an update into a deletion."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pulumi_hyperpod.plans.model import Operation, Plan, Step
from pulumi_hyperpod.plans.steps import StepKind


@dataclass(frozen=True, slots=True)
class CloudOperations:
    """A cloud's calls, as data for the checks written once here."""

    by_action: Mapping[str, tuple[Operation, ...]]  # plan action -> the operations its steps are made of, in the order they may come
    kinds: Mapping[Operation, StepKind]  # the kind of step each operation is (plans/steps.py)


def operation_problem(plan: Plan, step: Step, where: str, operations: CloudOperations) -> str | None:
    """Why `step` is not a call its plan's action makes (None: it is): checked before the rest."""
    if step.operation in operations.by_action.get(plan.action, ()):
        return None
    article = "an" if plan.action[0] in "aeiou" else "a"
    return f"{where}: {article} {plan.action} plan makes no {step.operation} call"


def kind_problem(step: Step, where: str, operations: CloudOperations) -> str | None:
    """An edited kind would change the disruption the guards and the policies read, so a step of
    another kind than its operation's is not this tool's."""
    kind = operations.kinds.get(step.operation, step.kind)
    return f"{where}: is of kind {kind}, not {step.kind}" if kind != step.kind else None
