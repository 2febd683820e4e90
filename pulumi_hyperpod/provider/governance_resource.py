"""`ComputeQuota` and `ClusterSchedulerConfig`: the task governance resources a Python program declares
(types `pulumi-python:dynamic/hyperpod:ComputeQuota`, `…:ClusterSchedulerConfig`).

The spec is create's `--cli-input-json` document (`create-compute-quota`,
`create-cluster-scheduler-config`), given as `spec=` (a dict; its values may be Outputs, such as a
`Cluster`'s `arn` for `ClusterArn`) or `spec_file=` (that JSON or YAML on disk, read here in the
program, so a change to the file is a change to the inputs); both: the dict's members win, per
top-level member. `ClusterArn` may be the cluster's name. The provider is provider/governance.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi
from pulumi.dynamic import Resource

from pulumi_hyperpod.provider.governance import OUTPUTS, GovernanceProvider


class GovernanceOutputs:
    arn: pulumi.Output[str]  # the resource's ARN (ComputeQuotaArn, ClusterSchedulerConfigArn)
    resource_id: pulumi.Output[str]  # its id (ComputeQuotaId, ClusterSchedulerConfigId)
    version: pulumi.Output[int]  # the version the service reports (incremented by each update)
    status: pulumi.Output[str]  # SchedulerResourceStatus: Created, Updated, …
    cluster_arn: pulumi.Output[str]  # the cluster's ARN (the spec may name it by name)
    location: pulumi.Output[dict[str, Any]]
    spec: pulumi.Output[dict[str, Any]]


def _props(
    spec: pulumi.Input[Mapping[str, Any]] | None,
    spec_file: str | None,
    settings: dict[str, Any],
) -> dict[str, Any]:
    base: Any = {}
    if spec_file is not None:
        from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML: only a program that names a spec file reads one (test_program_lean)

        base = read_document(spec_file)
    if spec is not None:
        given = spec
        base = pulumi.Output.all(base, pulumi.Output.from_input(given)).apply(lambda both: {**both[0], **both[1]}) if base else given
    props: dict[str, Any] = dict.fromkeys(OUTPUTS)
    props["spec"] = base
    props.update({key: value for key, value in settings.items() if value is not None})
    return props


class _Governed(Resource, GovernanceOutputs):
    """What both resources take: the spec, where it lives and how to wait."""

    noun: str  # the resource's: the provider's operations are <Verb><noun>

    def __init__(
        self,
        resource_name: str,
        spec: pulumi.Input[Mapping[str, Any]] | None = None,
        spec_file: str | None = None,
        *,
        backend: pulumi.Input[str] | None = None,
        region: pulumi.Input[str] | None = None,
        profile: pulumi.Input[str] | None = None,
        wait: str | None = None,
        timeout: float | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        settings = {"backend": backend, "region": region, "profile": profile, "wait": wait, "timeout": timeout}
        super().__init__(GovernanceProvider(self.noun), resource_name, _props(spec, spec_file, settings), opts)


class ComputeQuota(_Governed, module="hyperpod", name="ComputeQuota"):
    """A HyperPod task governance compute quota (CreateComputeQuota), planned and applied by pulumi-hyperpod."""

    noun = "ComputeQuota"


class ClusterSchedulerConfig(_Governed, module="hyperpod", name="ClusterSchedulerConfig"):
    """A HyperPod cluster's task governance policy (CreateClusterSchedulerConfig), planned and applied by pulumi-hyperpod."""

    noun = "ClusterSchedulerConfig"
