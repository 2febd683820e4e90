"""What a plan's calls would do to a cluster, as the service documents it — for re-planning tests.

Deliberately simple and independent of the planner: UpdateCluster sets counts and adds/removes
groups; BatchDeleteClusterNodes removes the named nodes and lowers TargetCount; BatchAddClusterNodes
raises TargetCount. New capacity arrives at once (the planner compares with TargetCount anyway).
"""

from __future__ import annotations

import copy
import datetime as dt

from pulumi_hyperpod import ClusterState, Plan

from tests.support.factories import EPOCH


def apply_effect(observed: ClusterState, plan: Plan) -> ClusterState:
    cluster = _Cluster(observed)
    for step in plan.steps:
        if step.operation == "UpdateCluster":
            cluster.update(step.request)
        elif step.operation == "BatchDeleteClusterNodes":
            cluster.delete_nodes(step.request)
        elif step.operation == "BatchAddClusterNodes":
            cluster.add_nodes(step.request)
        else:
            raise AssertionError(f"unexpected step {step.operation} in an update plan")
    return ClusterState.from_api(cluster.describe, cluster.summaries)


class _Cluster:
    """The describe and node summaries being changed, one call's effect at a time."""

    def __init__(self, observed: ClusterState) -> None:
        self.describe = copy.deepcopy(dict(observed.describe))
        self.summaries = [dict(s) for s in observed.node_summaries]
        self.groups = {g["InstanceGroupName"]: g for g in self.describe["InstanceGroups"]}
        self.serial = 0

    def launch(self, name: str, count: int) -> None:
        for _ in range(count):
            self.serial += 1
            self.summaries.append(
                {
                    "InstanceGroupName": name,
                    "InstanceId": f"i-{0xFFF00000 + self.serial:08x}{self.serial:09x}",
                    "InstanceType": self.groups[name].get("InstanceType") or "ml.p5.48xlarge",
                    "LaunchTime": EPOCH + dt.timedelta(days=1, minutes=self.serial),
                    "InstanceStatus": {"Status": "Running"},
                }
            )

    def resize(self, name: str, target: int) -> None:
        group = self.groups[name]
        live = [s for s in self.summaries if s["InstanceGroupName"] == name]
        if target > len(live):
            self.launch(name, target - len(live))
        elif target < len(live):
            # the service's own choice: never-launched first, then newest
            ordered = sorted(live, key=lambda s: (bool(s.get("InstanceId")), s["LaunchTime"]), reverse=False)
            for s in ordered[: len(live) - target]:
                self.summaries.remove(s)
        group["TargetCount"] = group["CurrentCount"] = target

    def update(self, request) -> None:
        """UpdateCluster: drop the groups to delete, then add or change each group named and resize it."""
        for name in request.get("InstanceGroupsToDelete", []):
            self.summaries[:] = [s for s in self.summaries if s["InstanceGroupName"] != name]
            self.describe["InstanceGroups"] = [g for g in self.describe["InstanceGroups"] if g["InstanceGroupName"] != name]
            self.groups.pop(name)
        for entry in request.get("InstanceGroups", []):
            self.update_group(entry)

    def update_group(self, entry) -> None:
        name = entry["InstanceGroupName"]
        if name not in self.groups:
            new = {k: v for k, v in entry.items() if k not in ("InstanceCount", "MinInstanceCount")}
            new.update(CurrentCount=0, TargetCount=0, MinCount=entry.get("MinInstanceCount", 0), Status="InService")
            self.describe["InstanceGroups"].append(new)
            self.groups[name] = new
        group = self.groups[name]
        for key, value in entry.items():
            if key not in ("InstanceCount", "MinInstanceCount", "InstanceGroupName"):
                group[key] = value
        if "MinInstanceCount" in entry:
            group["MinCount"] = entry["MinInstanceCount"]
        self.resize(name, entry["InstanceCount"])

    def delete_nodes(self, request) -> None:
        """BatchDeleteClusterNodes: the named nodes go and their group's TargetCount drops."""
        named = set(request.get("NodeIds", [])) | set(request.get("NodeLogicalIds", []))
        for s in [
            s for s in self.summaries if s.get("InstanceId") in named or (not s.get("InstanceId") and s.get("NodeLogicalId") in named)
        ]:
            self.summaries.remove(s)
            group = self.groups[s["InstanceGroupName"]]
            group["TargetCount"] -= 1
            group["MinCount"] = min(group.get("MinCount", 0), group["TargetCount"])  # as the simulator does
            if s.get("InstanceId"):
                group["CurrentCount"] -= 1

    def add_nodes(self, request) -> None:
        """BatchAddClusterNodes: each group's TargetCount rises and the new nodes arrive at once."""
        for entry in request["NodesToAdd"]:
            group = self.groups[entry["InstanceGroupName"]]
            group["TargetCount"] += entry["IncrementTargetCountBy"]
            group["CurrentCount"] += entry["IncrementTargetCountBy"]
            self.launch(entry["InstanceGroupName"], entry["IncrementTargetCountBy"])
