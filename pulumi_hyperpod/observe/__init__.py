"""Reading the cluster as it is (observe)."""

from .reader import is_not_found, list_nodes, observe
from .state import ClusterState, GroupState, NodeState

__all__ = ["ClusterState", "GroupState", "NodeState", "is_not_found", "list_nodes", "observe"]
