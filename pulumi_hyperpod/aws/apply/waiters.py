"""Waits as botocore waiter models (docs/DESIGN.md, "Patterns we borrow"), driven by a loop that adds what botocore's
`Waiter.wait` lacks: a deadline instead of an attempt count, an injectable sleep (virtual time in
tests) and a progress callback on every poll. The acceptors themselves are botocore's.
"""

from __future__ import annotations

import json
import time
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Sequence

from botocore import xform_name
from botocore.exceptions import ClientError
from botocore.waiter import SingleWaiterConfig, WaiterModel

from pulumi_hyperpod.aws.apply.progress import Progress
from pulumi_hyperpod.aws.apply.wait_policies import WAIT_POLICIES  # noqa: F401 - the names the executor and the settings read

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient

_IN_SERVICE = {"matcher": "path", "argument": "ClusterStatus", "expected": "InService", "state": "success"}
_FAILED = {"matcher": "path", "argument": "ClusterStatus", "expected": "Failed", "state": "failure"}
_GONE = {"matcher": "error", "expected": "ResourceNotFound", "state": "failure"}


def _counts_reached(field: str) -> dict[str, Any]:
    # every group, restricted ones too (a cluster of restricted groups only reports no InstanceGroups)
    short = f"[?CurrentCount < {field}]"
    expression = (
        f"length(InstanceGroups{short} || `[]`) == `0` && length(RestrictedInstanceGroups{short} || `[]`) == `0` "
        "&& ClusterStatus == 'InService'"
    )
    return {"matcher": "path", "argument": expression, "expected": True, "state": "success"}


WAITER_MODEL = WaiterModel(
    {
        "version": 2,
        "waiters": {
            "ClusterInService": {
                "operation": "DescribeCluster",
                "delay": 30,
                "maxAttempts": 240,
                "acceptors": [_IN_SERVICE, _FAILED, _GONE],
            },
            "ClusterMinCount": {
                "operation": "DescribeCluster",
                "delay": 30,
                "maxAttempts": 240,
                "acceptors": [_counts_reached("MinCount"), _FAILED, _GONE],
            },
            "ClusterTarget": {
                "operation": "DescribeCluster",
                "delay": 30,
                "maxAttempts": 240,
                "acceptors": [_counts_reached("TargetCount"), _FAILED, _GONE],
            },
            "ClusterDeleted": {
                "operation": "DescribeCluster",
                "delay": 30,
                "maxAttempts": 240,
                "acceptors": [
                    {"matcher": "error", "expected": "ResourceNotFound", "state": "success"},
                    {"matcher": "error", "expected": "ResourceNotFoundException", "state": "success"},
                    _FAILED,
                ],
            },
        },
    }
)


# SoftwareUpdateStatus while an UpdateClusterSoftware runs (the model's sequences: Pending → InProgress →
# Succeeded, or → RollbackInProgress → RollbackComplete / Failed)
SOFTWARE_UPDATE_ACTIVE = ("Pending", "InProgress", "RollbackInProgress")
SOFTWARE_UPDATE_WAITER = "SoftwareUpdateEnded"


def software_update_waiter(groups: Sequence[str]) -> SingleWaiterConfig:
    """The wait on an UpdateClusterSoftware: the service's own SoftwareUpdateStatus of each group it
    names is no longer active, and the cluster is InService again. A group that reports no status
    (a service without the member) is followed by the cluster's status alone."""
    named = f"InstanceGroups[?contains(`{json.dumps(list(groups))}`, InstanceGroupName)"
    active = f"contains(`{json.dumps(list(SOFTWARE_UPDATE_ACTIVE))}`, SoftwareUpdateStatus)"
    ended = f"length({named} && {active}]) == `0` && ClusterStatus == 'InService'"
    model = WaiterModel(
        {
            "version": 2,
            "waiters": {
                SOFTWARE_UPDATE_WAITER: {
                    "operation": "DescribeCluster",
                    "delay": 30,
                    "maxAttempts": 240,
                    "acceptors": [{"matcher": "path", "argument": ended, "expected": True, "state": "success"}, _FAILED, _GONE],
                }
            },
        }
    )
    return model.get_waiter(SOFTWARE_UPDATE_WAITER)


EXTENSION_WAITER = "ExtensionSettled"
EXTENSION_FAILED = ("CreateFailed", "UpdateFailed", "DeleteFailed", "Degraded")  # the model's ExtensionStatus


def extension_waiter(deleting: bool, version: str | None = None) -> SingleWaiterConfig:
    """The wait on an extension's call (DescribeClusterExtension; the call's params are the
    cluster's and the extension's ARNs): Active (at `version`, when the call asked one), or gone
    after a delete; a failed status ends it."""
    if deleting:
        done = [{"matcher": "error", "expected": "ResourceNotFound", "state": "success"}]
    else:
        active = "ExtensionDetails.Status == 'Active'" + (f" && ExtensionDetails.ExtensionVersion == '{version}'" if version else "")
        done = [
            {"matcher": "path", "argument": active, "expected": True, "state": "success"},
            {"matcher": "error", "expected": "ResourceNotFound", "state": "failure"},  # removed by another writer
        ]
    failed = [
        {"matcher": "path", "argument": "ExtensionDetails.Status", "expected": status, "state": "failure"} for status in EXTENSION_FAILED
    ]
    model = WaiterModel(
        {
            "version": 2,
            "waiters": {
                EXTENSION_WAITER: {"operation": "DescribeClusterExtension", "delay": 30, "maxAttempts": 240, "acceptors": done + failed}
            },
        }
    )
    return model.get_waiter(EXTENSION_WAITER)


class WaitFailed(Exception):
    def __init__(self, message: str, response: dict[str, Any]):
        super().__init__(message)
        self.response = response


class WaitTimedOut(Exception):
    def __init__(self, message: str, response: dict[str, Any]):
        super().__init__(message)
        self.response = response


def default_delay(waiter_name: str) -> float:
    return float(WAITER_MODEL.get_waiter(waiter_name).delay)


def wait(
    client: SageMakerClient,
    cluster_name: str,
    waiter_name: str,
    *,
    timeout: float,
    poll_seconds: float | None = None,
    sleep: Callable[[float], Any] = time.sleep,
    monotonic: Callable[[], float] = time.monotonic,
    progress: Callable[[Progress], Any] | None = None,
    phase: str = "wait",
    config: SingleWaiterConfig | None = None,
    params: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Poll until the waiter's acceptors say success; raise WaitFailed / WaitTimedOut otherwise.
    `config`: a waiter made for this wait (`software_update_waiter`, `extension_waiter`), named
    `waiter_name`; `params`: its operation's (default: the cluster's name)."""
    config = config or WAITER_MODEL.get_waiter(waiter_name)
    operation = getattr(client, xform_name(config.operation))
    delay = poll_seconds if poll_seconds is not None else float(config.delay)
    started = monotonic()
    while True:
        try:
            response: dict[str, Any] = operation(**(params or {"ClusterName": cluster_name}))
        except ClientError as error:
            response = error.response
        state = next((a.state for a in config.acceptors if a.matcher_func(response)), "retry")
        elapsed = monotonic() - started
        if progress is not None:
            progress(Progress.from_describe(phase, waiter_name, response, elapsed))
        if state == "success":
            return response
        if state == "failure":
            reason = (
                response.get("FailureMessage")
                or response.get("Error", {}).get("Message")
                or response.get("ClusterStatus")
                or (response.get("ExtensionDetails") or {}).get("Status")
            )
            raise WaitFailed(f"cluster {cluster_name}: {waiter_name} cannot be reached: {reason}", response)
        if elapsed >= timeout:
            raise WaitTimedOut(f"cluster {cluster_name}: {waiter_name} not reached after {timeout:.0f}s", response)
        sleep(max(min(delay, timeout - elapsed), 0.0))
