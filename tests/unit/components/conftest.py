"""Component tests under `pulumi.runtime.set_mocks` (Pulumi's documented unit-testing pattern).

The mocks answer every resource: AWS resources get plausible outputs, and the HyperPod Cluster
runs the real provider's input check (what `check` validates, `props.check_inputs`) on what the
component built (so a component can only produce a spec the provider accepts) and answers with the
outputs `create` would give. Not the rest of `check`: a new resource's check also reads where the
cluster would go, the create's preview (tests/unit/provider/test_create_preview.py).
"""

from __future__ import annotations

from typing import Any

import pulumi
import pytest
from pulumi.runtime.mocks import MockMonitor

from pulumi.dynamic import CheckFailure, CheckResult

from pulumi_hyperpod.provider import props

ACCOUNT = "123456789012"
CLUSTER_TYPE = "pulumi-python:dynamic/hyperpod:Cluster"


class HyperPodMocks(pulumi.runtime.Mocks):
    def __init__(self) -> None:
        self.checks: list[Any] = []

    def new_resource(self, args: pulumi.runtime.MockResourceArgs) -> tuple[str, dict]:
        inputs = dict(args.inputs)
        if args.typ == CLUSTER_TYPE:
            checked, failures = props.check_inputs(inputs)
            result = CheckResult(checked, [CheckFailure(path, reason) for path, reason in failures])
            self.checks.append(result)
            spec = result.inputs.get("spec") or {}
            arn = f"arn:aws:sagemaker:us-west-2:{ACCOUNT}:cluster/abcdef123456"
            groups = {
                g["InstanceGroupName"]: {
                    "target_count": g["InstanceCount"],
                    "current_count": g["InstanceCount"],
                    "min_count": g.get("MinInstanceCount", 0),
                    "status": "InService",
                }
                for g in spec.get("InstanceGroups", [])
            }
            outputs = {
                **result.inputs,
                "cluster_name": spec.get("ClusterName"),
                "arn": arn,
                "status": "InService",
                "groups": groups,
                "node_count": sum(g["target_count"] for g in groups.values()),
            }
            return arn, outputs
        if args.typ == "aws:s3/bucket:Bucket":
            bucket = f"sagemaker-hyperpod-{args.name}-0001"
            return bucket, {**inputs, "bucket": bucket, "arn": f"arn:aws:s3:::{bucket}"}
        if args.typ == "aws:iam/role:Role":
            return args.name, {**inputs, "name": args.name, "arn": f"arn:aws:iam::{ACCOUNT}:role/{args.name}"}
        return f"{args.name}-id", inputs

    def call(self, args: pulumi.runtime.MockCallArgs) -> tuple[dict, list | None]:
        return {}, None


@pytest.fixture
def mocks():
    mocks = HyperPodMocks()
    monitor = MockMonitor(mocks)
    pulumi.runtime.set_mocks(mocks, project="platform", stack="test", preview=False, monitor=monitor)
    mocks.monitor = monitor
    return mocks


def registered(mocks: HyperPodMocks) -> dict[str, Any]:
    """type → list of (urn, state) of every registered resource."""
    found: dict[str, list] = {}
    for urn, registration in mocks.monitor.get_registered_resources().items():
        kind = urn.split("::")[2].split("$")[-1]
        found.setdefault(kind, []).append((urn, registration.state))
    return found


def parent_type(urn: str) -> str:
    qualified = urn.split("::")[2]
    return qualified.split("$")[-2] if "$" in qualified else ""


def run(program, *outputs: str) -> dict[str, Any]:
    """Run `program` as a Pulumi program under the mocks; the named outputs of what it returns.

    Returns after every registration has finished, so tests assert on the whole program.
    """
    seen: dict[str, Any] = {}

    @pulumi.runtime.test
    def wrapped():
        component = program()
        values = [getattr(component, name) for name in outputs]
        return pulumi.Output.all(*values).apply(lambda resolved: seen.update(zip(outputs, resolved, strict=True)))

    wrapped()
    return seen
