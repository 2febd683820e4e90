"""The Pulumi dynamic provider for HyperPod clusters (`pulumi-python:dynamic/hyperpod:Cluster`)."""

from .provider import ClusterProvider, ProviderError
from .resource import Cluster, ClusterArgs
from .settings import DEFAULT_TIMEOUT, MAX_TIMEOUT, Defaults, Location, Settings
from .worlds import register_simulator, unregister_simulator

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
