"""Reading the cluster as it is (observe)."""

from .reader import is_not_found, list_nodes, observe
from .snapshot import load_snapshot
from .state import ClusterState, GroupState, NodeState

__all__ = ["ClusterState", "GroupState", "NodeState", "is_not_found", "list_nodes", "load_snapshot", "observe"]
