"""Where the cluster should be before every later mutating call of an apply: the plan's basis plus
the effect of the steps done so far (`Expectation.moved`: how another writer moved it, in words).
Only what the plan depends on counts (targets, MinCounts, which groups exist); the service's own
progress (capacity arriving, nodes launching or failing) is not another writer.

Pure: no I/O. The executor does the observing; premise.py (`stale_reasons`) checks a plan before anything runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable, Mapping

from pulumi_hyperpod.aws.spec.grouplists import group_entries
from pulumi_hyperpod.plans.basis import Basis

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.model import Step
    from pulumi_hyperpod.aws.observe import ClusterState


@dataclass
class Expectation:
    """Where the cluster should be: the basis plus the effect of the steps done so far.

    `targets`/`mins`: group → count the cluster must report; a group absent from `targets` must not
    exist (or be Deleting). `loose_min`: groups whose MinCount the service decides (a new group
    created without MinInstanceCount)."""

    targets: dict[str, int] = field(default_factory=dict)
    mins: dict[str, int] = field(default_factory=dict)
    loose_min: set[str] = field(default_factory=set)

    @classmethod
    def from_basis(cls, basis: Basis | None) -> Expectation:
        if basis is None:
            return cls()
        live = [g for g in basis.groups if g.status != "Deleting"]
        return cls({g.name: g.target for g in live}, {g.name: g.min for g in live})

    def after(self, step: Step, response: Mapping[str, Any] | None = None, removed: Iterable[tuple[str, str]] = ()) -> None:
        """Account for one step that succeeded. `removed`: (group, node id) the service accepted."""
        if step.operation == "CreateCluster":
            self.targets, self.mins, self.loose_min = {}, {}, set()
        if step.operation in ("CreateCluster", "UpdateCluster"):
            self._written(step.request)
        elif step.operation == "BatchAddClusterNodes":
            self._added(step.request, response or {})
        elif step.operation == "BatchDeleteClusterNodes":
            self._removed(removed)
        elif step.operation == "DeleteCluster":
            self.targets, self.mins, self.loose_min = {}, {}, set()

    def _written(self, request: Mapping[str, Any]) -> None:
        """A CreateCluster or UpdateCluster: each group's counts as sent, the deleted groups gone."""
        for entry in group_entries(request):
            name = entry["InstanceGroupName"]
            self.targets[name] = entry["InstanceCount"]
            if "MinInstanceCount" in entry:
                self.mins[name] = entry["MinInstanceCount"]
                self.loose_min.discard(name)
            else:  # the service derives it (all-or-nothing: from InstanceCount)
                self.loose_min.add(name)
        for name in request.get("InstanceGroupsToDelete") or ():
            self.targets.pop(name, None)
            self.mins.pop(name, None)

    def _added(self, request: Mapping[str, Any], response: Mapping[str, Any]) -> None:
        """A BatchAddClusterNodes: the targets grow by what was asked, less what the service refused."""
        for entry in request.get("NodesToAdd") or ():
            name = entry["InstanceGroupName"]
            if name in self.targets:
                self.targets[name] += entry["IncrementTargetCountBy"]
        for failure in response.get("Failed") or ():
            name = failure.get("InstanceGroupName")
            if name in self.targets:
                self.targets[name] -= int(failure.get("FailedCount") or 0)

    def _removed(self, removed: Iterable[tuple[str, str]]) -> None:
        """A BatchDeleteClusterNodes: one fewer per node the service accepted (MinCount follows down)."""
        for group, _ in removed:
            if group in self.targets:
                self.targets[group] = max(self.targets[group] - 1, 0)
                if group in self.mins:
                    self.mins[group] = min(self.mins[group], self.targets[group])

    def moved(self, now: ClusterState | None) -> list[str]:
        """How another writer moved the cluster away from this expectation, in words."""
        if now is None:
            return ["the cluster no longer exists"] if self.targets else []
        reasons = []
        present = {g.name: g for g in now.groups if g.status != "Deleting"}
        for name in sorted(set(present) - set(self.targets)):
            reasons.append(f"group {name} appeared (TargetCount {present[name].target_count})")
        for name in sorted(set(self.targets) - set(present)):
            reasons.append(f"group {name} vanished")
        for name in sorted(set(self.targets) & set(present)):
            have = present[name]
            if have.target_count != self.targets[name]:
                reasons.append(f"{name}: TargetCount {self.targets[name]} → {have.target_count}")
            if name not in self.loose_min and name in self.mins and have.min_count != self.mins[name]:
                reasons.append(f"{name}: MinCount {self.mins[name]} → {have.min_count}")
        return reasons
