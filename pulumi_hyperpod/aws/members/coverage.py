"""The member table against its sources: members without a row, rows without a member, DescribeCluster
members neither read back nor known as the service's, cross-field sentences without a verdict, and
verdicts no source decides or the newest CloudFormation schema contradicts.

A botocore release that adds a member to CreateCluster, UpdateCluster, DescribeCluster or a group
shape, or a documented cross-field sentence, makes one of these name it (tests/unit/aws/members/test_members.py
fails), so no member is ever planned by accident.
"""

from __future__ import annotations

import re

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.members import cfn_schema
from pulumi_hyperpod.aws.members import sources as src
from pulumi_hyperpod.aws.members.table import CONTAINERS, FILLED, MEMBERS, SENTENCES, Scope, decided_by

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
            if current.type_name == "list":
                current = current.member  # a list of structures: its items' members
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


# ---- DescribeCluster: every member read back by a row, or filled in by the service ---------------
def _leaves(shape, prefix: tuple[str, ...] = ()):
    if shape.type_name == "list":
        shape = shape.member
    if shape.type_name != "structure" or not shape.members:
        yield prefix
        return
    for name, child in shape.members.items():
        yield from _leaves(child, (*prefix, name))


def _request_form(row, leaf: tuple[str, ...]) -> tuple[str, ...]:
    """A described leaf under `row`'s reported path, in the request's form (the row's inner renames)."""
    rest = ".".join(leaf[len(row.reported) :])
    for described, request in row.inner:
        if rest == described or rest.startswith(described + "."):
            rest = request + rest[len(described) :]
            break
    return row.parts + (tuple(rest.split(".")) if rest else ())


_REQUEST = {"cluster": ("CreateClusterRequest", "UpdateClusterRequest"), **{k: v for k, v in SHAPES.items() if k != "cluster"}}


def unaccounted() -> list[str]:
    """DescribeCluster members (to their leaves) that no row reads back and FILLED does not list."""
    found = []
    for scope, described in DESCRIBED.items():
        rows = [m for m in MEMBERS if m.scope == scope and m.read == "DescribeCluster"]
        known = [f.parts for f in FILLED if f.scope == scope]
        for name, child in servicemodel.shape(described).members.items():
            if scope == "cluster" and name in CONTAINERS["cluster"]:
                continue  # the groups: their own scopes
            for leaf in _leaves(child, (name,)):
                if any(leaf[: len(parts)] == parts for parts in known):
                    continue
                row = next((m for m in rows if leaf[: len(m.reported)] == m.reported), None)
                if row is not None and _resolves(_REQUEST[scope], _request_form(row, leaf)):
                    continue
                found.append(f"{scope}:{'.'.join(leaf)}")
    return sorted(found)


def unlisted_read_only() -> list[str]:
    """The newest schema's readOnlyProperties that FILLED does not list."""
    listed = set()
    for f in FILLED:
        for path in (f.described, f.request):
            if path:
                listed.add(src.cfn_pointer(f.scope, path))
    return sorted(p for p in cfn_schema.READ_ONLY if p not in listed)


# ---- the model's cross-field sentences ------------------------------------------------------------
# The wordings the model uses for a member that depends on another ("Requires", "Available only for",
# "Valid only when", "Mutually exclusive", "only when"…)
CROSS_FIELD = re.compile(
    r"\brequires\b|available only for|valid only when|mutually exclusive|only when|only applicable when|only supported for"
    r"|only required when|applies only",
    re.IGNORECASE,
)
ROOTS = ("CreateClusterRequest", "UpdateClusterRequest", "DescribeClusterResponse")


def documented_sentences() -> set[tuple[str, str, str]]:
    """(shape, member, sentence) for every cross-field sentence on a shape the cluster operations reach."""
    found: set[tuple[str, str, str]] = set()
    seen: set[str] = set()

    def walk(shape) -> None:
        while shape.type_name in ("list", "map"):
            shape = shape.member if shape.type_name == "list" else shape.value
        if shape.type_name != "structure" or shape.name in seen:
            return
        seen.add(shape.name)
        for name, child in shape.members.items():
            for sentence in re.split(r"(?<=[.;:])\s+(?=[A-Z])", src.text(child.documentation)):
                if CROSS_FIELD.search(sentence):
                    found.add((shape.name, name, sentence))
            walk(child)

    for root in ROOTS:
        walk(servicemodel.shape(root))
    return found


def sentences() -> list[str]:
    """Documented cross-field sentences the table has no verdict for."""
    covered = {(s.shape, s.member, s.text) for s in SENTENCES}
    return sorted(f"{shape}.{member}: {text}" for shape, member, text in documented_sentences() - covered)


def stale_sentences() -> list[str]:
    documented = documented_sentences()
    return sorted(f"{s.shape}.{s.member}: {s.text}" for s in SENTENCES if (s.shape, s.member, s.text) not in documented)


# ---- verdicts against their sources ----------------------------------------------------------------
def undecided() -> list[str]:
    """Rows no source decides that do not say what is missing, and rows marked unverified that a source decides."""
    problems = []
    for m in MEMBERS:
        by = decided_by(m)
        if by is None and not m.unverified:
            problems.append(f"{m.scope}:{m.path}: no source decides {m.change}, and the row does not say what is missing")
        elif by is not None and m.unverified:
            problems.append(f"{m.scope}:{m.path}: decided by {by}, yet marked unverified")
    return problems


def against_schema() -> list[str]:
    """Verdicts the newest CloudFormation schema contradicts, where no page decides instead."""
    problems = []
    for m in MEMBERS:
        status = src.cfn_of(m).status
        in_place = m.change in ("UpdateCluster", "UpdateClusterSoftware")
        if status == "create-only" and in_place:
            problems.append(f"{m.scope}:{m.path}: {m.change}, but create-only in the schema")
        elif status == "updatable" and m.change in ("new group name", "replacement") and m.page is None:
            problems.append(f"{m.scope}:{m.path}: {m.change}, but the schema updates it in place and no page says otherwise")
    return problems
