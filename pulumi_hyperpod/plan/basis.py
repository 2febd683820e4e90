"""What a plan was computed against, in neutral words: the Basis every cloud fills (docs/DESIGN.md,
"The Plan model"). A cloud's planner makes it from its observed cluster; its apply checks the
cluster against it (AWS: `aws/planner/basis.py`; Google Cloud: `gcp/plan_build.py`).

Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Mapping


@dataclass(frozen=True)
class GroupBasis:
    name: str
    target: int
    min: int
    current: int
    status: str | None


@dataclass(frozen=True)
class NodeBasis:
    key: str
    group: str
    status: str


@dataclass(frozen=True)
class Basis:
    """What a plan was computed against, in neutral words (every cloud fills the same fields):

    - `identity`: which cluster exactly — an ARN on AWS, the full resource name on Google Cloud
      (a cluster deleted and created again under the same name has another ARN);
    - `state`: the cluster's lifecycle state as the cloud reports it (InService, RUNNING, …);
    - `configuration`: a hash of the cluster's configuration, for a cloud whose writes are checked
      against the whole configuration (Google Cloud); None when groups and nodes say it all (AWS);
    - `groups`: each instance group / node pool: target, minimum, current count, status;
    - `nodes`: the nodes the plan's choices depend on (AWS: every node, for scale-in victims).
    """

    identity: str
    state: str
    groups: tuple[GroupBasis, ...]
    nodes: tuple[NodeBasis, ...] = ()
    configuration: str | None = None

    def group(self, name: str) -> GroupBasis | None:
        return next((g for g in self.groups if g.name == name), None)

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
    def from_dict(cls, data: Mapping[str, Any]) -> "Basis":
        return cls(
            identity=data["identity"],
            state=data["state"],
            groups=tuple(GroupBasis(**g) for g in data.get("groups") or ()),
            nodes=tuple(NodeBasis(**n) for n in data.get("nodes") or ()),
            configuration=data.get("configuration"),
        )
