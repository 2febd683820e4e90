"""Every step kind is declared once, with a premise, a disruption and a completion (plans/steps.py)."""

from __future__ import annotations

from pulumi_hyperpod.plans import steps


def test_every_kind_has_a_declaration() -> None:
    assert set(steps.declared_kinds()) == set(steps.KINDS), "a StepKind without a row in plans/steps.py, or a row for no kind"


def test_every_declaration_is_complete() -> None:
    for kind, row in steps.KINDS.items():
        assert row.kind == kind
        assert row.premise, f"{kind}: no premise"
        assert set(row.premise) <= set(steps.PREMISES), f"{kind}: unknown premise {set(row.premise) - set(steps.PREMISES)}"
        assert row.disruption.effect in steps.EFFECTS, f"{kind}: unknown effect {row.disruption.effect}"
        assert row.disruption.scope in steps.SCOPES, f"{kind}: unknown scope {row.disruption.scope}"
        assert (row.disruption.effect == "none") == (row.disruption.scope == "none"), f"{kind}: an effect needs a scope"
        assert row.disruption.how, f"{kind}: the disruption says nothing"
        assert row.completion in steps.COMPLETIONS, f"{kind}: unknown completion {row.completion}"


def test_a_step_that_takes_nodes_down_assumes_the_nodes() -> None:
    for kind, row in steps.KINDS.items():
        if row.disruption.scope in ("victims", "named"):
            assert "nodes" in row.premise, f"{kind} names nodes but does not assume them"
        if row.disruption.effect in ("destroyed", "restarted") and row.disruption.scope in ("victims", "named"):
            assert "acted" in row.premise, f"{kind} takes nodes down but could act twice"
