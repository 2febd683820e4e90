"""The dynamic-provider machinery both clouds share: a provider is a cloud (core/cloud.py's
registry) behind Pulumi's check / diff / create / update / read / delete.

What is the same for every cloud lives here: the cloud found by name, the one pipeline
(`core.cloud.prepare`, `deletion`, `execute`), the apply contract's errors (core/contract.py)
turned into the ProviderError the user reads, the plan shown in the Pulumi output, and the host
taught to print those errors without a traceback. What differs is each cloud's subclass: its
settings and property bags (provider/settings.py and props.py for HyperPod; provider/gcp.py for
Google Cloud), its wording, the worlds it connects to.

The instance holds no client, session or credential (each method connects for itself): it is
pickled into the stack's state by its class's module path — `pulumi_hyperpod.provider.provider.
ClusterProvider`, `pulumi_hyperpod.gcp.provider.GcpClusterProvider` — so those paths stay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from pulumi.dynamic import ResourceProvider

from pulumi_hyperpod.provider import errors, process
from pulumi_hyperpod.provider.console import say

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.cloud import AnyCloud, Prepared
    from pulumi_hyperpod.core.contract import ApplyError, ApplyOptions, ApplyResult, PlanRefused, PlanStale
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.plans.policy import Policy


class CloudProvider(ResourceProvider):
    # Nothing secret is captured (a test proves it), so the serialized provider is kept in plain
    # text unless a secret Output was captured; no secrets provider is needed to run offline.
    serialize_as_secret_always = False
    cloud_name: ClassVar[str]  # the registry's key: "aws", "gcp"
    Error: ClassVar[type[errors.ProviderError]] = errors.ProviderError  # what the user reads

    def configure(self, req: Any) -> None:
        # the engine configures a provider only in its host process: teach the host to report
        # errors the user can act on by their message, without a traceback
        errors.install(process.host_module())

    # ---- the one pipeline ----------------------------------------------------------------
    def _cloud(self) -> "AnyCloud":
        from pulumi_hyperpod.core import cloud

        return cloud.get(self.cloud_name)

    def _read_cluster(self, client: Any, name: str) -> Any:
        return self._cloud().read(client, name)

    def _prepared(
        self, client: Any, spec: Any, policy: "Policy", *, observed: Any, skip: str | None = None, context: Any = None
    ) -> "Prepared[Any, Any, Any]":
        """read (`observed` core.cloud.OBSERVE; else a create's None, an update's observation) → the
        cloud's other inputs → plan + cost → preflight (unless `skip`)."""
        from pulumi_hyperpod.core import cloud

        return cloud.prepare(self._cloud(), client, spec, policy, observed=observed, skip_preflight=skip, context=context)

    def _deletion(self, client: Any, name: str, policy: "Policy", observed: Any, context: Any = None) -> "Prepared[Any, Any, Any]":
        from pulumi_hyperpod.core import cloud

        return cloud.deletion(self._cloud(), client, name, policy, observed=observed, context=context)

    def _run(
        self, client: Any, the_plan: "Plan | Prepared[Any, Any, Any]", options: "ApplyOptions", *, policy: Any = None, context: Any = None
    ) -> "ApplyResult":
        """core.cloud.execute, the contract's errors raised as they are."""
        from pulumi_hyperpod.core import cloud

        return cloud.execute(self._cloud(), client, the_plan, options, policy=policy, context=context)

    def _execute(
        self, client: Any, the_plan: "Plan | Prepared[Any, Any, Any]", options: "ApplyOptions", *, policy: Any = None, context: Any = None
    ) -> "ApplyResult":
        """core.cloud.execute, a refused, stale or failed apply raised as the cloud words it."""
        from pulumi_hyperpod.core.contract import ApplyError, PlanRefused, PlanStale

        name = (the_plan.plan if hasattr(the_plan, "plan") else the_plan).cluster_name
        try:
            return self._run(client, the_plan, options, policy=policy, context=context)
        except PlanRefused as refused:
            raise self.Error(self._refused_message(name, refused)) from None
        except PlanStale as stale:
            raise self.Error(self._stale_message(name, stale)) from None
        except ApplyError as error:
            raise self.Error(self._failed_message(name, error)) from None

    # ---- the words, per cloud ------------------------------------------------------------
    def _refused_message(self, name: str, error: "PlanRefused") -> str:
        raise NotImplementedError

    def _stale_message(self, name: str, error: "PlanStale") -> str:
        raise NotImplementedError

    def _failed_message(self, name: str, error: "ApplyError") -> str:
        raise NotImplementedError

    # ---- shown ---------------------------------------------------------------------------
    def _label(self, name: str) -> str:
        """The `[hyperpod NAME]` prefix of the provider's lines."""
        return name

    def _say(self, text: str, name: str) -> None:
        say(text, self._label(name))
