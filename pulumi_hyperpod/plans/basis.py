"""What a plan was computed against, in neutral words: the Basis every cloud fills (docs/DESIGN.md,
"The Plan model"). A cloud's planner makes it from its observed cluster; its apply checks the
cluster against it (AWS: `aws/planner/basis.py`; Google Cloud: `gcp/planner/build.py`).

Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterable, Iterator, Mapping


@dataclass(frozen=True, slots=True)
class GroupBasis:
    name: str
    target: int
    min: int
    current: int
    status: str | None


@dataclass(frozen=True, slots=True)
class NodeBasis:
    key: str
    group: str
    status: str


@dataclass(frozen=True, slots=True)
class Fact:
    """One thing a plan's steps assume, as observed when the plan was made: a *premise* (the names
    of plans/steps.py's `Premise`) about a `subject` (the cluster, a group, a node key) holding
    `value` (a digest, an id, a time, a role: compared as written). A cloud's saved-plan check reads
    each fact again and names the subject whose value moved."""

    premise: str
    subject: str
    value: str


class _Unread:
    """An observation's nodes (anything with `key`, `group`, `status`), not turned into NodeBasis rows yet."""

    __slots__ = ("nodes",)

    def __init__(self, nodes: Iterable[Any]) -> None:
        self.nodes = nodes


class _NodesField:
    """`Basis.nodes`, a descriptor-typed dataclass field: a basis made from an observation keeps the
    observed nodes and builds one NodeBasis per node the first time `nodes` is read (a fingerprint,
    a freshness check, the JSON form, a comparison). A plan that is only shown never reads them, and
    at 20,000 nodes building them was a third of plan()."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, basis: Basis | None, owner: type | None = None) -> tuple[NodeBasis, ...]:
        if basis is None:
            return ()  # the field's default (dataclasses read it from the class)
        value = basis.__dict__[self.slot]
        if isinstance(value, _Unread):
            value = tuple(NodeBasis(n.key, n.group, n.status) for n in value.nodes if n.key)
            basis.__dict__[self.slot] = value
        return value  # type: ignore[no-any-return]

    def __set__(self, basis: Basis, value: tuple[NodeBasis, ...] | _Unread) -> None:
        basis.__dict__[self.slot] = value


@dataclass(frozen=True)  # no slots: `nodes` is built on first read into the instance's __dict__ (_NodesField)
class Basis:
    """What a plan was computed against, in neutral words (every cloud fills the same fields):

    - `identity`: which cluster exactly — an ARN on AWS, the full resource name on Google Cloud
      (a cluster deleted and created again under the same name has another ARN);
    - `state`: the cluster's lifecycle state as the cloud reports it (InService, RUNNING, …);
    - `configuration`: a hash of the cluster's configuration, for a cloud whose writes are checked
      against the whole configuration (Google Cloud); None when groups and nodes say it all (AWS);
    - `groups`: each instance group / node pool: target, minimum, current count, status;
    - `nodes`: the nodes the plan's choices depend on (AWS: every node, for scale-in victims);
    - `facts`: what else the plan's steps assume (their premises, plans/steps.py), one Fact each:
      the configuration members they diff, the image a rollout rolls from, what runs on a victim,
      the Slurm roles, the tags, the cluster's newest event (a plan acts at most once).
    """

    identity: str
    state: str
    groups: tuple[GroupBasis, ...]
    nodes: tuple[NodeBasis, ...] = _NodesField()  # type: ignore[assignment]  # a tuple when read
    configuration: str | None = None
    facts: tuple[Fact, ...] = ()

    @classmethod
    def observed(cls, identity: str, state: str, groups: tuple[GroupBasis, ...], nodes: Iterable[Any]) -> Basis:
        """A basis whose NodeBasis rows are built from `nodes` (each with `key`, `group`, `status`;
        keyless nodes left out) only when something reads them."""
        return cls(identity=identity, state=state, groups=groups, nodes=_Unread(nodes))  # type: ignore[arg-type]

    def with_facts(self, facts: tuple[Fact, ...]) -> Basis:
        """This basis with other facts; its node rows stay unbuilt if they were (`observed`)."""
        nodes = self.__dict__["_nodes"]
        return type(self)(self.identity, self.state, self.groups, nodes, self.configuration, facts)

    def group(self, name: str) -> GroupBasis | None:
        return next((g for g in self.groups if g.name == name), None)

    def node_states(self) -> Iterator[tuple[str, str, str]]:
        """(key, group, status) of every node, read from the observation itself while `nodes` is not built."""
        value = self.__dict__["_nodes"]
        nodes = (n for n in value.nodes if n.key) if isinstance(value, _Unread) else value
        return ((n.key, n.group, n.status) for n in nodes)

    def fingerprint(self) -> str:
        data: list[Any] = [
            self.identity,
            self.state,
            sorted((g.name, g.target, g.min) for g in self.groups),
            sorted((n.key, n.status) for n in self.nodes),
        ]
        if self.configuration is not None:
            data.append(self.configuration)
        return hashlib.sha256(json.dumps(data, separators=(",", ":")).encode()).hexdigest()[:16]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Basis:
        return cls(
            identity=data["identity"],
            state=data["state"],
            groups=tuple(GroupBasis(**g) for g in data.get("groups") or ()),
            nodes=tuple(NodeBasis(**n) for n in data.get("nodes") or ()),
            configuration=data.get("configuration"),
            facts=tuple(Fact(str(f["premise"]), str(f["subject"]), str(f["value"])) for f in data.get("facts") or ()),
        )

    def facts_of(self, premise: str) -> dict[str, str]:
        """subject → value of the facts of one premise."""
        return {fact.subject: fact.value for fact in self.facts if fact.premise == premise}
