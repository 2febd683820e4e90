"""A plan's basis keeps the observed nodes and builds its per-node rows only when something reads them
(plans/basis.py, filled by aws/planner/basis.py): a plan that is only shown never does, and one that is read sees what it always saw."""

from __future__ import annotations

import dataclasses
import json

from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.planner.basis import basis_of
from pulumi_hyperpod.aws.planner.premise import stale_reasons
from pulumi_hyperpod.plans.basis import Basis, NodeBasis

from tests.support.factories import node_id, observed_from, slurm_spec


def _eager(state) -> tuple[NodeBasis, ...]:
    """The basis rows as they were built before they were deferred: one per node with an id."""
    return tuple(NodeBasis(n.key, n.group, n.status) for n in state.nodes if n.key)


def _unread(basis: Basis) -> bool:
    return not isinstance(basis.__dict__["_nodes"], tuple)


def test_planning_leaves_the_basis_rows_unbuilt_until_they_are_read():
    observed = observed_from(slurm_spec(workers=40), pending={"worker-gpu-a": 3})
    shrink = plan(slurm_spec(workers=30), observed)
    assert shrink.victims and _unread(shrink.basis), "plan() built a row per node that nothing read"
    assert shrink.basis.nodes == _eager(observed) and not _unread(shrink.basis)


def test_an_unread_basis_reads_as_the_built_one_in_every_form():
    observed = observed_from(slurm_spec(workers=12), pending={"worker-gpu-a": 2})
    built = dataclasses.replace(basis_of(observed), nodes=_eager(observed))
    assert not _unread(built)
    assert basis_of(observed).fingerprint() == built.fingerprint()
    assert basis_of(observed) == built and hash(basis_of(observed)) == hash(built)
    assert json.dumps(dataclasses.asdict(basis_of(observed))) == json.dumps(dataclasses.asdict(built))
    assert Basis.from_dict(dataclasses.asdict(basis_of(observed))) == built
    assert list(basis_of(observed).node_states()) == [(n.key, n.group, n.status) for n in built.nodes]
    assert Basis(identity="x", state="RUNNING", groups=()).nodes == ()  # a cloud without node rows (Google Cloud)


def test_a_freshness_check_finds_the_same_moved_nodes_before_and_after_the_rows_are_built():
    spec = slurm_spec(workers=10)
    before = observed_from(spec)
    moved = observed_from(spec, statuses={node_id(2, 9): "Failure"}, counts={"worker-gpu-a": 9})
    lazy, read = plan(slurm_spec(workers=8), before), plan(slurm_spec(workers=8), before)
    read.basis.nodes  # noqa: B018 - builds the rows
    assert _unread(lazy.basis) and not _unread(read.basis)
    reasons = stale_reasons(lazy, moved)
    assert any("vanished" in reason for reason in reasons), reasons
    assert reasons == stale_reasons(read, moved)
