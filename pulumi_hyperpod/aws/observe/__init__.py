"""Reading the cluster as it is (observe).

Names load on first use (PEP 562): `ClusterState` alone does not pull in the reader and the
service model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe.reader import is_not_found, list_nodes, observe
    from pulumi_hyperpod.aws.observe.snapshot import load_snapshot
    from pulumi_hyperpod.aws.observe.state import ClusterState, GroupState, NodeState

_EXPORTS = {
    **dict.fromkeys(["is_not_found", "list_nodes", "observe"], "pulumi_hyperpod.aws.observe.reader"),
    "load_snapshot": "pulumi_hyperpod.aws.observe.snapshot",
    **dict.fromkeys(["ClusterState", "GroupState", "NodeState"], "pulumi_hyperpod.aws.observe.state"),
}

__all__ = ["ClusterState", "GroupState", "NodeState", "is_not_found", "list_nodes", "load_snapshot", "observe"]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
