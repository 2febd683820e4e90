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
    describe = copy.deepcopy(dict(observed.describe))
    summaries = [dict(s) for s in observed.node_summaries]
    groups = {g["InstanceGroupName"]: g for g in describe["InstanceGroups"]}
    serial = [0]

    def launch(name: str, count: int) -> None:
        for _ in range(count):
            serial[0] += 1
            summaries.append(
                {
                    "InstanceGroupName": name,
                    "InstanceId": f"i-{0xFFF00000 + serial[0]:08x}{serial[0]:09x}",
                    "InstanceType": groups[name].get("InstanceType") or "ml.p5.48xlarge",
                    "LaunchTime": EPOCH + dt.timedelta(days=1, minutes=serial[0]),
                    "InstanceStatus": {"Status": "Running"},
                }
            )

    def resize(name: str, target: int) -> None:
        group = groups[name]
        live = [s for s in summaries if s["InstanceGroupName"] == name]
        if target > len(live):
            launch(name, target - len(live))
        elif target < len(live):
            # the service's own choice: never-launched first, then newest
            ordered = sorted(live, key=lambda s: (bool(s.get("InstanceId")), s["LaunchTime"]), reverse=False)
            for s in ordered[: len(live) - target]:
                summaries.remove(s)
        group["TargetCount"] = group["CurrentCount"] = target

    for step in plan.steps:
        request = step.request
        if step.operation == "UpdateCluster":
            for name in request.get("InstanceGroupsToDelete", []):
                summaries[:] = [s for s in summaries if s["InstanceGroupName"] != name]
                describe["InstanceGroups"] = [g for g in describe["InstanceGroups"] if g["InstanceGroupName"] != name]
                groups.pop(name)
            for entry in request.get("InstanceGroups", []):
                name = entry["InstanceGroupName"]
                if name not in groups:
                    new = {k: v for k, v in entry.items() if k not in ("InstanceCount", "MinInstanceCount")}
                    new.update(CurrentCount=0, TargetCount=0, MinCount=entry.get("MinInstanceCount", 0), Status="InService")
                    describe["InstanceGroups"].append(new)
                    groups[name] = new
                group = groups[name]
                for key, value in entry.items():
                    if key not in ("InstanceCount", "MinInstanceCount", "InstanceGroupName"):
                        group[key] = value
                if "MinInstanceCount" in entry:
                    group["MinCount"] = entry["MinInstanceCount"]
                resize(name, entry["InstanceCount"])
        elif step.operation == "BatchDeleteClusterNodes":
            named = set(request.get("NodeIds", [])) | set(request.get("NodeLogicalIds", []))
            for s in [
                s for s in summaries if s.get("InstanceId") in named or (not s.get("InstanceId") and s.get("NodeLogicalId") in named)
            ]:
                summaries.remove(s)
                group = groups[s["InstanceGroupName"]]
                group["TargetCount"] -= 1
                group["MinCount"] = min(group.get("MinCount", 0), group["TargetCount"])  # as the simulator does
                if s.get("InstanceId"):
                    group["CurrentCount"] -= 1
        elif step.operation == "BatchAddClusterNodes":
            for entry in request["NodesToAdd"]:
                group = groups[entry["InstanceGroupName"]]
                group["TargetCount"] += entry["IncrementTargetCountBy"]
                group["CurrentCount"] += entry["IncrementTargetCountBy"]
                launch(entry["InstanceGroupName"], entry["IncrementTargetCountBy"])
        else:
            raise AssertionError(f"unexpected step {step.operation} in an update plan")
    return ClusterState.from_api(describe, summaries)
