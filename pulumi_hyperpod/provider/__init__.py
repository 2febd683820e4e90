"""The Pulumi dynamic provider for HyperPod clusters (`pulumi-python:dynamic/hyperpod:Cluster`).

The public names are loaded on first use (PEP 562): the provider process unpickles
`provider.ClusterProvider` and needs neither the `Cluster` resource class nor its helpers.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from .errors import ProviderError
    from .provider import ClusterProvider
    from .resource import Cluster, ClusterArgs
    from .settings import DEFAULT_TIMEOUT, MAX_TIMEOUT, Defaults, Location, Settings
    from .worlds import register_simulator, unregister_simulator

# public name → the submodule that defines it
_EXPORTS = {
    "Cluster": ".resource",
    "ClusterArgs": ".resource",
    "ClusterProvider": ".provider",
    "DEFAULT_TIMEOUT": ".settings",
    "Defaults": ".settings",
    "Location": ".settings",
    "MAX_TIMEOUT": ".settings",
    "ProviderError": ".errors",
    "Settings": ".settings",
    "register_simulator": ".worlds",
    "unregister_simulator": ".worlds",
}

__all__ = [
    "Cluster",
    "ClusterArgs",
    "ClusterProvider",
    "DEFAULT_TIMEOUT",
    "Defaults",
    "Location",
    "MAX_TIMEOUT",
    "ProviderError",
    "Settings",
    "register_simulator",
    "unregister_simulator",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
