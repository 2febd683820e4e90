"""HyperPod's adapter to the CloudProvider (provider/cloud_provider.py): what only AWS says.

Inputs ↔ spec and settings through props.py and settings.py (the spec in its CreateCluster form,
backend/region/profile resolved to a `Location` with the stack-config defaults), its diff of inputs
(changes.py: what UpdateCluster cannot change, another backend or region), the observed cluster as
outputs (per-group counts, never a per-node list), where it lives (worlds.py: a client built for
the call; an in-memory simulator by its registered name in tests), its wording.

The modules behind each answer load in the method that needs it: a preview's check loads the
spec's shapes and no more (tests/unit/provider/test_check_lean.py).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.provider.cloud_provider import Bag, Failures, Found, Replacement, RunSettings, Session
from pulumi_hyperpod.provider.settings import Defaults, Location, Settings, allows_replacement, locate_inputs
from pulumi_hyperpod.provider.unknowns import unknown_paths
import time
from pulumi_hyperpod.provider.errors import ProviderError
from pulumi_hyperpod.aws.context import AwsContext
from pulumi_hyperpod.provider import changes, props
from pulumi_hyperpod.provider.worlds import open_backend, open_service
from pulumi_hyperpod.core import cloud
from pulumi_hyperpod.core.messages import CLUSTER_NAME_TAKEN, Front

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.context import AwsContext
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.plans.model import Plan


def _context(**given: Any) -> AwsContext:

    return AwsContext(**given)


@dataclass(frozen=True, slots=True)
class AwsSettings(RunSettings):
    """The run settings with HyperPod's own: the Slurm role of a group that states none."""

    roles: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class AwsAdapter:
    simulator: str | None = None  # a name in worlds' registry, never the simulator itself
    defaults: Defaults = field(default_factory=Defaults)
    front: Front = "python"  # whose words a hint uses (core/messages.py's ErrorLine): the dynamic Cluster's program is Python

    cloud_name = "aws"
    allow_hint = ""

    # ---- inputs --------------------------------------------------------------------------------
    def check_inputs(self, olds: Bag, news: Bag) -> tuple[Bag, Failures]:

        return props.check_inputs(news)

    def unknown(self, inputs: Mapping[str, Any]) -> list[str]:
        return unknown_paths(inputs)

    def name_of(self, bag: Mapping[str, Any]) -> str | None:

        name = props.cluster_name(bag)
        return name if isinstance(name, str) else None

    def lookup_name(self, inputs: Mapping[str, Any]) -> str | None:
        return None if unknown_paths(props.settings_inputs(inputs)) else self.name_of(inputs)

    def label(self, name: str) -> str:
        return name

    def desired(self, inputs: Mapping[str, Any]) -> Any:

        return props.spec_of(inputs)

    def settings(self, inputs: Mapping[str, Any], olds: Mapping[str, Any] | None = None) -> AwsSettings:
        given = Settings.from_inputs(inputs).acting_once(olds)
        return AwsSettings(policy=given.policy, wait=given.wait, timeout=given.timeout, adopt=given.adopt, roles=given.roles)

    def may_replace(self, inputs: Mapping[str, Any]) -> bool:

        return bool(unknown_paths(props.settings_inputs(inputs))) or allows_replacement(inputs)

    def inputs_changed(self, olds: Mapping[str, Any], news: Mapping[str, Any]) -> bool:

        return changes.spec_changed(props.spec_value(olds), props.spec_value(news)) or props.settings_inputs(olds) != props.settings_inputs(
            news
        )

    def replacements(self, olds: Mapping[str, Any], inputs: Mapping[str, Any]) -> list[Replacement]:

        found = changes.spec_replacements(props.spec_value(olds), props.spec_value(inputs))
        new_location = None if unknown_paths(props.settings_inputs(inputs)) else self.locate(inputs)
        return found + changes.location_replacements(Location.from_outputs(olds.get("location")), new_location)

    # ---- where ---------------------------------------------------------------------------------
    def locate(self, bag: Mapping[str, Any]) -> Location:
        return locate_inputs(bag, self.defaults)

    def open(self, bag: Mapping[str, Any], settings: RunSettings | None = None, *, stored: bool = False) -> Session:

        location = (Location.from_outputs(bag.get("location")) if stored else None) or self.locate(bag)
        client, clock = open_backend(location, self.simulator)
        simulator = self.simulator
        roles = settings.roles if isinstance(settings, AwsSettings) else {}
        return Session(
            client=client,
            where=str(location),
            sleep=clock.sleep,
            monotonic=clock.monotonic,
            poll_seconds=clock.poll_seconds,
            plan_context=_context(
                roles=roles,
                region=location.region,
                quotas=lambda: open_service(location, "service-quotas", simulator),
                s3=lambda: open_service(location, "s3", simulator),
            ),
            apply_context=_context(sleep=clock.sleep, monotonic=clock.monotonic),
        )

    # ---- plans ---------------------------------------------------------------------------------
    def creation_plan(self, inputs: Mapping[str, Any], settings: RunSettings) -> Plan:

        roles = settings.roles if isinstance(settings, AwsSettings) else {}
        context = _context(roles=roles, region=self.locate(inputs).region)  # the region create uses: its prices
        return cloud.get(self.cloud_name).plan(cloud.PlanRequest(self.desired(inputs), None, settings.policy, context))

    def creation_note(self, inputs: Mapping[str, Any]) -> str:
        if not inputs.get("adopt"):
            return ""
        return f"adopt: if a cluster named {self.name_of(inputs)} exists it is taken over and planned against instead\n"

    # ---- the cluster ---------------------------------------------------------------------------
    def resource_id(self, state: ClusterState) -> str:
        return str(state.arn)

    def is_it(self, id_: str, state: ClusterState) -> bool:
        return not id_.startswith("arn:") or state.arn == id_

    def outputs(self, inputs: Mapping[str, Any], state: ClusterState, session: Session) -> Bag:

        return props.outputs(dict(inputs), state, self.locate(inputs))

    def found(self, id_: str, bag: Mapping[str, Any], state: ClusterState, session: Session) -> Found:

        location = Location.from_outputs(bag.get("location")) or self.locate(bag)
        inputs = {**props.settings_inputs(bag), "spec": props.observed_spec(bag["spec"], state)}
        return Found(str(state.arn), {**inputs, **props.state_outputs(state, location)}, inputs)

    def failed(self, state: ClusterState) -> str | None:
        if state.status != "Failed":
            return None
        return (
            f"cluster {state.name} failed to create: {state.failure_message or 'no reason given'} (see `hyperpod events` for the details)"
        )

    def being_deleted(self, state: ClusterState) -> bool:
        return bool(state.status == "Deleting")

    def wait_deleted(self, session: Session, name: str, timeout: float, progress: Callable[[Any], None]) -> None:
        """Another writer's delete: no plan to apply, its end waited on."""

        from pulumi_hyperpod.aws.apply.waiters import wait  # noqa: PLC0415 - botocore's waiters: only a delete that waits loads them

        try:
            wait(
                session.client,
                name,
                "ClusterDeleted",
                timeout=timeout,
                poll_seconds=session.poll_seconds,
                sleep=session.sleep or time.sleep,
                monotonic=session.monotonic or time.monotonic,
                progress=progress,
            )
        except Exception as error:
            raise ProviderError(f"cluster {name}: {error}; run the command again to keep waiting") from None

    def delete_wait(self, settings: RunSettings) -> str:
        return settings.wait

    def summary(self, state: ClusterState) -> str:
        current = sum(g.current_count for g in state.groups)
        target = sum(g.target_count for g in state.groups)
        return f"{state.arn} ({state.status}, {current}/{target} nodes)"

    def exists_text(self, name: str, session: Session, state: ClusterState) -> str:
        return CLUSTER_NAME_TAKEN.text(self.front, name=name, where=session.where, arn=str(state.arn), status=str(state.status))
