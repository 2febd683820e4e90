"""The member table against botocore's model: members without a row, rows without a member.

A botocore release that adds a member to CreateCluster, UpdateCluster or a group shape makes
`missing()` name it (tests/core/test_members.py fails), so no member is ever planned by accident.
"""

from __future__ import annotations

from ..aws import servicemodel
from .table import CONTAINERS, MEMBERS, Scope

# scope → the model shapes whose members it covers
SHAPES: dict[Scope, tuple[str, ...]] = {
    "cluster": ("CreateClusterRequest", "UpdateClusterRequest"),
    "group": ("ClusterInstanceGroupSpecification",),
    "restricted-group": ("ClusterRestrictedInstanceGroupSpecification",),
}


def _paths(scope: Scope) -> set[str]:
    return {m.path for m in MEMBERS if m.scope == scope}


def _missing_under(shape, prefix: str, paths: set[str]) -> list[str]:
    missing = []
    for name, child in shape.members.items():
        path = f"{prefix}{name}"
        if path in paths:
            continue
        if any(p.startswith(path + ".") for p in paths) and child.type_name == "structure":
            missing += _missing_under(child, path + ".", paths)  # split: each part has its own row
        else:
            missing.append(path)
    return missing


def missing() -> list[str]:
    """Model members (scope-qualified keys) that have no row."""
    found = []
    for scope, shapes in SHAPES.items():
        paths = _paths(scope) | set(CONTAINERS[scope])
        for name in shapes:
            found += [f"{scope}:{path}" for path in _missing_under(servicemodel.shape(name), "", paths)]
    return sorted(set(found))


def _resolves(shapes: tuple[str, ...], parts: tuple[str, ...]) -> bool:
    for name in shapes:
        current = servicemodel.shape(name)
        for part in parts:
            if current.type_name != "structure" or part not in current.members:
                break
            current = current.members[part]
        else:
            return True
    return False


def stale() -> list[str]:
    """Rows naming a member the model does not have."""
    return sorted(f"{m.scope}:{m.path}" for m in MEMBERS if not _resolves(SHAPES[m.scope], m.parts))


# where each scope's members are read back
DESCRIBED: dict[Scope, str] = {
    "cluster": "DescribeClusterResponse",
    "group": "ClusterInstanceGroupDetails",
    "restricted-group": "ClusterRestrictedInstanceGroupDetails",
}


def unread() -> list[str]:
    """Rows read with DescribeCluster whose reported path DescribeCluster's output shape lacks."""
    return sorted(
        f"{m.scope}:{m.path}" for m in MEMBERS if m.read == "DescribeCluster" and not _resolves((DESCRIBED[m.scope],), m.reported)
    )
