"""The Pulumi dynamic provider for HyperPod clusters (`pulumi-python:dynamic/hyperpod:Cluster`).

The public names are loaded on first use (PEP 562): the provider process unpickles
`provider.ClusterProvider` and needs neither the `Cluster` resource class nor its helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.provider.errors import ProviderError
    from pulumi_hyperpod.provider.governance import GovernanceProvider
    from pulumi_hyperpod.provider.governance_resource import ClusterSchedulerConfig, ComputeQuota
    from pulumi_hyperpod.provider.provider import ClusterProvider
    from pulumi_hyperpod.provider.resource import Cluster, ClusterArgs
    from pulumi_hyperpod.provider.settings import DEFAULT_TIMEOUT, MAX_TIMEOUT, Defaults, Location, Settings
    from pulumi_hyperpod.provider.worlds import register_simulator, unregister_simulator

# public name → the submodule that defines it
_EXPORTS = {
    "Cluster": "pulumi_hyperpod.provider.resource",
    "ClusterArgs": "pulumi_hyperpod.provider.resource",
    "ClusterProvider": "pulumi_hyperpod.provider.provider",
    "ClusterSchedulerConfig": "pulumi_hyperpod.provider.governance_resource",
    "ComputeQuota": "pulumi_hyperpod.provider.governance_resource",
    "GovernanceProvider": "pulumi_hyperpod.provider.governance",
    "DEFAULT_TIMEOUT": "pulumi_hyperpod.provider.settings",
    "Defaults": "pulumi_hyperpod.provider.settings",
    "Location": "pulumi_hyperpod.provider.settings",
    "MAX_TIMEOUT": "pulumi_hyperpod.provider.settings",
    "ProviderError": "pulumi_hyperpod.provider.errors",
    "Settings": "pulumi_hyperpod.provider.settings",
    "register_simulator": "pulumi_hyperpod.provider.worlds",
    "unregister_simulator": "pulumi_hyperpod.provider.worlds",
}

__all__ = [
    "DEFAULT_TIMEOUT",
    "MAX_TIMEOUT",
    "Cluster",
    "ClusterArgs",
    "ClusterProvider",
    "ClusterSchedulerConfig",
    "ComputeQuota",
    "Defaults",
    "GovernanceProvider",
    "Location",
    "ProviderError",
    "Settings",
    "register_simulator",
    "unregister_simulator",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
