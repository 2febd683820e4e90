"""A fleet's move between two clusters of one account and region (fleet/moves.py pairs them): what of
HyperPod's planner and executor the fleet uses, in one place, so the fleet imports no stage of its
own (tests/quality/test_layers.py).

- `why_not`: the operation's conditions on each cluster (aws/planner/moves.py `cluster_why_not`);
- `move_across`: one plan of MoveClusterNodes steps from the source cluster to a group of the target
  cluster (aws/planner/moves.py `move_steps`, at most 50 nodes a call), run by the executor as
  `hyperpod apply` runs a cluster's own move (aws/apply/moves.py: the ClientToken from the plan, one
  failure per node the service refuses, the wait for the hand-off), with the source cluster as read
  when the move was planned as the plan's basis: one that changed since raises PlanStale, nothing sent.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pulumi_hyperpod.aws.apply.executor import apply
from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.aws.planner.basis import basis_of
from pulumi_hyperpod.aws.planner.moves import Move, Moves, cluster_why_not, move_steps
from pulumi_hyperpod.plans.model import Plan, Victim

why_not = cluster_why_not


def move_across(
    client: Any,
    source: ClusterState,
    moves: Sequence[tuple[str, str, str, Sequence[tuple[str, str]]]],
    target_arn: str,
    timeout: float = 3600.0,
    **clock: Any,
) -> list[str]:
    """Move each (source group, target group, instance type, [(node id, reason)]) from `source` to the
    cluster `target_arn`; the failures (empty: every node joined its target group). Raises PlanStale,
    PlanRefused or ApplyError (core/contract.py) as `apply` does. `clock`: the executor's sleep and monotonic."""
    planned = Moves(
        moves=[
            Move(group, target, tuple(Victim(group, node, False, "Running", reason) for node, reason in nodes), (kind,) * len(nodes))
            for group, target, kind, nodes in moves
        ]
    )
    plan = Plan(source.name, "update", tuple(move_steps(source.arn, planned, target_arn)), basis=basis_of(source))
    return list(apply(client, plan, wait="none", timeout=timeout, **clock).failures)
