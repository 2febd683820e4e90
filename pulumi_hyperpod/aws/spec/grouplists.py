"""The two lists a cluster's groups come in, in requests (CreateCluster, UpdateCluster) and in
DescribeCluster alike: `InstanceGroups` and `RestrictedInstanceGroups` (restricted instance groups,
EKS only). What counts groups, targets or instances reads both."""

from __future__ import annotations

from typing import Any
from collections.abc import Mapping

GROUP_LISTS = ("InstanceGroups", "RestrictedInstanceGroups")


def group_entries(data: Mapping[str, Any] | None) -> tuple[Mapping[str, Any], ...]:
    """Every group entry of a request or a DescribeCluster response, instance groups first."""
    if not data:
        return ()
    return tuple(entry for member in GROUP_LISTS for entry in data.get(member) or ())
