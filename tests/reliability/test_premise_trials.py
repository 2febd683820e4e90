"""Issue 36: every saved-plan premise attack of premise_trials.TRIALS — a replay, a premise moved, a
resealed section — is refused with the cluster as it was, and no node is lost."""

from __future__ import annotations

import pytest

from tests.support.premise_trials import TRIALS


@pytest.mark.parametrize("label", sorted(TRIALS))
def test_a_premise_attack_is_refused_and_loses_no_node(label):
    trial = TRIALS[label]()

    assert trial.refused, trial.how
    assert trial.nodes_lost == 0
