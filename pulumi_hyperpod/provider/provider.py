"""HyperPod's dynamic provider (`pulumi-python:dynamic/hyperpod:Cluster`): the dynamic transport
(provider/base.py) over the CloudProvider (provider/cloud_provider.py) with HyperPod's adapter
(provider/aws_adapter.py). Decisions live in the AWS cloud's stages; docs/DESIGN.md, "Front ends".

The instance is pickled into the state by the SDK (dill) by this module's path and shared by the
provider server's threads: it holds two plain values — a simulator name for tests and the
stack-config defaults — and builds every client inside the call that needs it. This module's top
is what the program process needs to make the provider and the provider process to unpickle it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.provider.base import DynamicProvider
from pulumi_hyperpod.provider.cloud_provider import CloudProvider, PlanUnknown, plan_text
from pulumi_hyperpod.provider.errors import ProviderError
from pulumi_hyperpod.provider.settings import Defaults

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.provider.cloud_provider import CloudProvider

__all__ = ["ClusterProvider", "PlanUnknown", "ProviderError", "plan_text"]


class ClusterProvider(DynamicProvider):
    """HyperPod's dynamic provider: the CloudProvider over the AWS cloud."""

    def __init__(self, simulator: str | None = None) -> None:
        super().__init__()
        self.simulator = simulator  # a name in worlds' registry, never the simulator itself
        self.defaults = Defaults()

    def configure(self, req: Any) -> None:
        self.defaults = Defaults.from_config(req.config)
        super().configure(req)

    def core(self) -> CloudProvider:
        from pulumi_hyperpod.provider.aws_adapter import AwsAdapter  # noqa: PLC0415 - the AWS adapter (member table, contract, clients): unpickling the provider loads this module and must not load it (test_program_lean)

        return CloudProvider(AwsAdapter(self.simulator, self.defaults))

    def preview_plan(self, news: dict[str, Any]) -> Plan:
        """The plan a create or update with `news` would run now (CloudProvider.preview_plan)."""
        return self.core().preview_plan(news)
