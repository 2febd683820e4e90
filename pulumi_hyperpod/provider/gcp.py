"""`GcpTrainingCluster`: a Pulumi dynamic resource for a Google Cloud training cluster.

Type `pulumi-python:dynamic/hyperpod:GcpTrainingCluster`, served by `GcpClusterProvider`: the
dynamic transport (provider/base.py) over the CloudProvider (provider/cloud_provider.py) with
Google Cloud's adapter (provider/gcp_adapter.py) — the same check, diff, plan, guards and waits as
HyperPod's `Cluster`. The provider object holds nothing (no client, session or credential).

(It lived in pulumi_hyperpod/gcp/provider.py, which still names it: a stack's state holds the
provider pickled by its module path.)
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pulumi
from pulumi.dynamic import Resource

from pulumi_hyperpod.provider.base import DynamicProvider
from pulumi_hyperpod.provider.errors import ProviderError
from pulumi_hyperpod.provider.gcp_adapter import GcpAdapter, OUTPUTS, SettingError
from pulumi_hyperpod.provider.cloud_provider import CloudProvider

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.provider.cloud_provider import CloudProvider

__all__ = ["GcpClusterProvider", "GcpTrainingCluster", "ProviderError", "SettingError"]


class GcpClusterProvider(DynamicProvider):
    """Google Cloud's dynamic provider: the CloudProvider over the GCP cloud."""

    def core(self) -> CloudProvider:

        return CloudProvider(GcpAdapter())


class GcpTrainingCluster(Resource, module="hyperpod", name="GcpTrainingCluster"):
    """A Google Cloud training cluster (modelDevelopmentClusters), planned and applied by pulumi-hyperpod."""

    name: pulumi.Output[str]
    state: pulumi.Output[str]
    pools: pulumi.Output[dict[str, Any]]  # pool id → machine_type, target, nodes (by state), provisioning_model
    node_count: pulumi.Output[int]
    spec: pulumi.Output[dict[str, Any]]

    def __init__(
        self,
        resource_name: str,
        spec: pulumi.Input[Mapping[str, Any]] | None = None,
        spec_file: str | None = None,
        backend: str | None = None,
        policy: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        wait: bool | str | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if spec_file is not None:
            from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML: only a program that names a spec file reads one (test_program_lean)
            from pulumi_hyperpod.gcp.spec import GcpSpecError  # noqa: PLC0415 - the GCP spec's pydantic models: only a GCP spec file read or checked loads them

            loaded = read_document(Path(spec_file), GcpSpecError)
            given: Any = spec or {}
            spec = {**loaded, **given} if isinstance(loaded, dict) else loaded
        if spec is None:
            raise TypeError("GcpTrainingCluster needs spec= (the REST body) or spec_file=")
        props: dict[str, Any] = {name: None for name in OUTPUTS}
        props.update(spec=spec, backend=backend or "gcp", policy=dict(policy or {}), timeout=timeout, wait=True if wait is None else wait)
        super().__init__(GcpClusterProvider(), resource_name, props, opts)
