"""Where Google Cloud's dynamic provider lived: `pulumi_hyperpod.provider.gcp` now.

Kept because a Pulumi stack's state holds a dynamic provider pickled by its module path
(`pulumi_hyperpod.gcp.provider.GcpClusterProvider`): stacks made before the move must still
refresh, update and delete. New code imports `pulumi_hyperpod.provider.gcp`.
"""

from __future__ import annotations

from pulumi_hyperpod.provider.gcp import GcpClusterProvider, GcpTrainingCluster, ProviderError, SettingError

__all__ = ["GcpClusterProvider", "GcpTrainingCluster", "ProviderError", "SettingError"]
