"""Issue 24: a saved plan cannot lie. Every edit of tamper_trials.EDITS — an update resealed as a
delete, inserted UpdateCluster steps deleting the login or controller group, Login, Controller or
protected nodes as victims, a duplicated scale-in step, the spec, policy, roles or observation
edited, another region or cluster — is refused before any mutating call, and no node is lost."""

from __future__ import annotations

import pytest

from tests.reliability.tamper_trials import EDITS, run_trial


@pytest.mark.parametrize("label", sorted(EDITS))
def test_a_resealed_edit_is_refused_with_no_call_and_no_node_lost(label):
    trial = run_trial(label, EDITS[label])

    assert trial.refused, (trial.how, trial.calls)
    assert trial.calls == [] and trial.nodes_lost == 0


def test_the_unedited_plan_still_applies():
    trial = run_trial("unedited", lambda data, world: None)

    assert not trial.refused and trial.how == "applied"
    assert trial.calls == ["BatchDeleteClusterNodes"] and trial.nodes_lost == 2
