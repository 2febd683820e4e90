"""Which nodes a scale-in removes: unhealthy first, then never-launched, then the newest.

The same order the service uses for a MinCount rollback (seed 000, "自动回滚行为"), so a scale-in
costs the least running work. Never a Controller node, never a protected node. Pure: apply calls it
again on a fresh observation when a chosen node changed state in the meantime.
"""

from __future__ import annotations

import datetime as dt
from typing import Iterable, Sequence

from ..observe.state import GONE, UNHEALTHY, NodeState
from .model import Victim

_EPOCH = dt.datetime.min.replace(tzinfo=dt.timezone.utc)


def removable(nodes: Iterable[NodeState], node_type: str | None, protected: Iterable[str], exclude: Iterable[str] = ()) -> list[NodeState]:
    """Nodes a plan may name: not a Controller's, not protected, not already going."""
    if node_type == "Controller":
        return []
    blocked = set(protected) | set(exclude)
    return [
        n
        for n in nodes
        if n.key and n.status not in GONE and n.instance_id not in blocked and (n.logical_id is None or n.logical_id not in blocked)
    ]


def _rank(node: NodeState) -> tuple:
    if node.status in UNHEALTHY:
        tier = 0
    elif not node.launched:
        tier = 1
    else:
        tier = 2
    # newest first inside a tier; the id breaks ties so the choice never depends on list order
    launched = node.launch_time or _EPOCH
    return (tier, -launched.timestamp(), node.key)


def _reason(node: NodeState) -> str:
    if node.status in UNHEALTHY:
        detail = f" ({node.message})" if node.message else ""
        return f"{node.status}{detail}: unhealthy nodes are removed first"
    if not node.launched:
        return "never launched (waiting for capacity): removed before any running node"
    when = node.launch_time.strftime("%Y-%m-%d %H:%M:%SZ") if node.launch_time else "unknown"
    return f"{node.status}, launched {when}: the newest nodes go first"


def choose(nodes: Sequence[NodeState], count: int) -> list[Victim]:
    """The `count` best nodes to remove among `nodes` (already filtered by `removable`)."""
    ordered = sorted(nodes, key=_rank)[: max(count, 0)]
    return [Victim(group=n.group, node_id=n.key, logical=not n.launched, status=n.status, reason=_reason(n)) for n in ordered]
