"""The Pulumi dynamic provider: check / diff / create / update / read / delete over the core.

Thin (docs/DESIGN.md, "Front ends"): check = spec validation; diff = input comparison plus the live plan printed
for the preview; create/update = the one pipeline (core/cloud.prepare: observe → plan → cost →
preflight) then core/cloud.execute; read = observe; delete = the deletion plan (core/cloud.deletion)
applied. Decisions live in the AWS cloud's stages; this module only translates (props.py) and reports.

The instance is pickled into the state by the SDK (dill) and shared by the provider server's
threads: it holds two plain values — a simulator name for tests and the stack-config defaults —
and builds every client inside the method that needs it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable

from pulumi.dynamic import (
    CheckFailure,
    CheckResult,
    ConfigureRequest,
    CreateResult,
    DiffResult,
    ReadResult,
    UpdateResult,
)

from pulumi_hyperpod.provider import process
from pulumi_hyperpod.provider.base import CloudProvider
from pulumi_hyperpod.provider.console import say
from pulumi_hyperpod.provider.errors import ProviderError
from pulumi_hyperpod.provider.process import gc_paused, in_flight
from pulumi_hyperpod.provider.settings import Defaults, Location, Settings, allows_replacement, locate_inputs

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.apply.progress import Progress
    from pulumi_hyperpod.aws.context import AwsContext
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.plans import Plan
    from pulumi_hyperpod.provider.changes import Replacement
    from pulumi_hyperpod.provider.worlds import Clock

# The pipeline (core/cloud.py: read, plan, cost, preflight; apply) loads at the first call that
# needs it, and apply only in create/update/delete: the program process, which imports this module
# to pickle the provider, runs none of it, and a preview (check + diff) never applies anything.
# Likewise the property bags (props), the replacement rules (changes), the unknowns and the worlds
# (clients) load in the method that uses them: this module's top is what the program process needs
# to make the provider and the provider process needs to unpickle it (settings' Defaults is in it).


def _aws() -> Any:
    """The AWS cloud (core/cloud.py's registry): every stage goes through it."""
    from pulumi_hyperpod.core import cloud

    return cloud.get("aws")


def _context(**given: Any) -> "AwsContext":
    from pulumi_hyperpod.aws.context import AwsContext

    return AwsContext(**given)


def observe(client: Any, name: str) -> "ClusterState | None":
    return _aws().read(client, name)


def plan_text(the_plan: "Plan") -> str:
    """The plan as the preview shows it; a removed-nodes table too long to print in full is listed
    whole in a file the text names (provider/victims.py)."""
    from pulumi_hyperpod.plans import plan_text as text
    from pulumi_hyperpod.plans.render import VICTIMS_SHOWN

    if len(the_plan.victims) <= VICTIMS_SHOWN:
        return text(the_plan)
    from pulumi_hyperpod.provider.victims import write_victims

    path = write_victims(the_plan)
    if path is None:
        return text(the_plan)
    # the path on a line of its own, after the tables: never wrapped, so it can be copied whole
    return (
        text(the_plan, victims_elsewhere="the file named below lists them all") + f"removed nodes, all {len(the_plan.victims):,}: {path}\n"
    )


def render_text(renderable: Any) -> str:
    from pulumi_hyperpod.plans.render import render_text as text

    return text(renderable)


def preflight_renderable(section: Any, the_plan: "Plan") -> Any:
    from pulumi_hyperpod.plans.render import preflight_renderable as render

    return render(section, the_plan)


class PlanUnknown(Exception):
    """The plan a preview would show cannot be made yet, and why."""


class ClusterProvider(CloudProvider):
    """HyperPod's dynamic provider: the shared machinery (provider/base.py) over the AWS cloud."""

    cloud_name = "aws"

    def __init__(self, simulator: str | None = None) -> None:
        super().__init__()
        self.simulator = simulator  # a name in worlds' registry, never the simulator itself
        self.defaults = Defaults()

    def configure(self, req: ConfigureRequest) -> None:
        self.defaults = Defaults.from_config(req.config)
        process.install()  # the engine configures a provider only in its host process
        super().configure(req)  # errors the user can act on: their message, no traceback

    # ---- check ---------------------------------------------------------------------------
    @in_flight
    @gc_paused
    def check(self, _olds: dict[str, Any], news: dict[str, Any]) -> CheckResult:
        from pulumi_hyperpod.provider import props

        inputs, failures = props.check_inputs(news)
        if not failures and not _olds:
            self._show_creation(inputs)
        if not failures and _olds:
            failures = self._refused_replacements(_olds, inputs)
        if failures:
            process.failed()  # the engine stops the deployment: the host shuts down normally
        return CheckResult(inputs, [CheckFailure(path, reason) for path, reason in failures])

    def _refused_replacements(self, olds: dict[str, Any], inputs: dict[str, Any]) -> list[tuple[str, str]]:
        """A change that would replace the cluster (delete all its nodes) without
        policy.allow_replacement fails here, as a check failure naming the property: the engine
        shows it as a plain validation error before anything runs, rather than a traceback."""
        from pulumi_hyperpod.provider import changes, props
        from pulumi_hyperpod.provider.unknowns import unknown_paths

        if unknown_paths(props.settings_inputs(inputs)) or allows_replacement(inputs):
            return []
        found = changes.spec_replacements(props.spec_value(olds), props.spec_value(inputs))
        found += changes.location_replacements(Location.from_outputs(olds.get("location")), self._locate(inputs))
        return [
            (
                r.key,
                f"{r.reason}: this replaces the cluster (all its nodes are deleted, then it is created again). "
                "Set policy={'allow_replacement': True} on the resource to allow it, or undo the change.",
            )
            for r in found
            if r.certain
        ]

    def _show_creation(self, inputs: dict[str, Any]) -> None:
        """A new resource: the engine calls no diff, so the creation plan is shown from here.
        Pure (no API call); with adopt the plan is made against the live cluster at create."""
        from pulumi_hyperpod.core.cloud import PlanRequest
        from pulumi_hyperpod.provider import props
        from pulumi_hyperpod.provider.unknowns import unknown_paths

        unknown = unknown_paths(inputs)
        name = props.cluster_name(inputs)
        if unknown:
            say(_not_known_text(unknown, []), name)
            return
        spec = props.spec_of(inputs)
        settings = Settings.from_inputs(inputs)
        text = plan_text(
            self._cloud().plan(
                PlanRequest(spec, None, settings.policy, _context(roles=settings.roles, region=self._region_or_none(inputs)))
            )
        )
        if inputs.get("adopt"):
            text += f"adopt: if a cluster named {spec.name} exists it is taken over and planned against instead\n"
        say(text, spec.name)

    # ---- diff ----------------------------------------------------------------------------
    @in_flight
    @gc_paused
    def diff(self, _id: str, olds: dict[str, Any], news: dict[str, Any]) -> DiffResult:
        from pulumi_hyperpod.provider import changes, props
        from pulumi_hyperpod.provider.unknowns import unknown_paths

        name = props.cluster_name(news) or props.cluster_name(olds) or _id
        unknown = unknown_paths(news)
        old_spec, new_spec = props.spec_value(olds), props.spec_value(news)
        replacements = changes.spec_replacements(old_spec, new_spec)
        old_location = Location.from_outputs(olds.get("location"))
        new_location = None if unknown_paths(props.settings_inputs(news)) else self._locate(news)
        replacements += changes.location_replacements(old_location, new_location)
        changed = changes.spec_changed(old_spec, new_spec) or props.settings_inputs(olds) != props.settings_inputs(news)

        if unknown:
            say(_not_known_text(unknown, replacements), name)
        elif replacements:
            self._refuse_replacement(news, [r.reason for r in replacements], name)
            say(_replacement_text(replacements), name)  # the new cluster's plan: check prints it
        else:
            live = self._live_plan(news, new_location, name, inputs_changed=changed, olds=olds)
            if live is not None:
                changed = changed or bool(live.steps)
                if live.replacements:
                    self._refuse_replacement(news, list(live.replacements), name)
                    replacements += [changes.Replacement("spec", reason) for reason in live.replacements]

        keys = list(dict.fromkeys(r.key for r in replacements))
        return DiffResult(changes=changed or bool(keys), replaces=keys, delete_before_replace=True)

    def _live_plan(
        self, news: dict[str, Any], location: Location, name: str, inputs_changed: bool, olds: dict[str, Any] | None = None
    ) -> Plan | None:
        """Observe the cluster and show the plan, as `hyperpod plan` would print it — unless
        nothing changed and there is nothing to do (a stack of many clusters stays readable)."""
        from pulumi_hyperpod.provider import props
        from pulumi_hyperpod.provider.worlds import open_backend

        settings = Settings.from_inputs(news).acting_once(olds)
        try:
            client, _ = open_backend(location, self.simulator, reads=True)
            observed = observe(client, name)
        except Exception as error:  # noqa: BLE001 - a preview without access still shows the diff
            say(f"could not read cluster {name} in {location} to plan against it: {error}", name)
            return None
        if observed is None:
            say(f"cluster {name} no longer exists in {location} (deleted outside Pulumi): it will be created again", name)
            from pulumi_hyperpod.plans import Plan

            return Plan(cluster_name=name, action="create", replacements=("the cluster no longer exists",))
        spec = props.spec_of(news)
        result = self._prepare(spec, settings, observed, client, location)
        if inputs_changed or not result.empty:
            say(plan_text(result), name)
        return result

    def _refuse_replacement(self, news: dict[str, Any], reasons: list[str], name: str) -> None:
        settings = Settings.from_inputs(news)
        if settings.policy.allow_replacement or reasons == ["the cluster no longer exists"]:
            return
        raise ProviderError(
            f"cluster {name} would be replaced (deleted with all its nodes, then created again): "
            + "; ".join(reasons)
            + ". Set policy={'allow_replacement': True} on the resource to allow it, or undo the change."
        )

    # ---- create --------------------------------------------------------------------------
    @in_flight
    def create(self, inputs: dict[str, Any]) -> CreateResult:
        from pulumi_hyperpod.provider import props
        from pulumi_hyperpod.provider.worlds import open_backend

        settings, spec, location = Settings.from_inputs(inputs), props.spec_of(inputs), self._locate(inputs)
        client, clock = open_backend(location, self.simulator)
        deadline = clock.monotonic() + settings.timeout
        observed = observe(client, spec.name)
        if observed is not None and not settings.adopt:
            raise ProviderError(
                f"a cluster named {spec.name} already exists in {location} ({observed.arn}, {observed.status}). "
                "Set adopt=True to bring it under this stack (it is then updated to match the spec), "
                "or choose another cluster_name."
            )
        if observed is not None:
            say(f"adopting {observed.arn} ({observed.status})", spec.name)
        result = self._prepare(spec, settings, observed, client, location)
        if observed is None:
            say(render_text(preflight_renderable(result.preflight, result)), spec.name)  # check's creation plan had no preflight
        else:
            say(plan_text(result), spec.name)  # check showed a creation plan; this is the real one
            if result.replacements:
                raise ProviderError(
                    f"cannot adopt cluster {spec.name}: it differs in what cannot change in place: " + "; ".join(result.replacements)
                )
        state = self._apply(client, clock, result, settings, deadline)
        if state is None:
            raise ProviderError(f"cluster {spec.name} was not found after CreateCluster")
        if state.status == "Failed" and observed is None:
            self._undo_failed_create(client, clock, state, settings, deadline)
        return CreateResult(state.arn, props.outputs(inputs, state, location))

    def _undo_failed_create(self, client, clock: Clock, state: ClusterState, settings: Settings, deadline: float) -> None:
        """A create either leaves a working cluster or none (the engine's contract): a Failed new
        cluster is deleted before the error is reported."""
        from pulumi_hyperpod.core.contract import ApplyError, ApplyOptions, PlanRefused, PlanStale

        message = f"cluster {state.name} failed to create: {state.failure_message or 'no reason given'}"
        say(message + "; deleting it (see `hyperpod events` for the details)", state.name)
        try:
            self._run(
                client,
                self._deletion(client, state.name, settings.policy, state),
                ApplyOptions(timeout=max(_remaining(clock, deadline), 1.0), poll_seconds=clock.poll_seconds),
                context=_context(sleep=clock.sleep, monotonic=clock.monotonic),
            )
        except (ApplyError, PlanStale, PlanRefused) as error:
            raise ProviderError(f"{message}; deleting it did not finish: {error}") from None
        raise ProviderError(message)

    # ---- update --------------------------------------------------------------------------
    @in_flight
    def update(self, _id: str, _olds: dict[str, Any], news: dict[str, Any]) -> UpdateResult:
        from pulumi_hyperpod.provider import props
        from pulumi_hyperpod.provider.worlds import open_backend

        settings, spec, location = Settings.from_inputs(news).acting_once(_olds), props.spec_of(news), self._locate(news)
        client, clock = open_backend(location, self.simulator)
        deadline = clock.monotonic() + settings.timeout
        observed = observe(client, spec.name)
        if observed is None:
            raise ProviderError(
                f"cluster {spec.name} no longer exists in {location} (deleted outside Pulumi?). "
                "Run `pulumi refresh`, then `pulumi up` creates it again."
            )
        result = self._prepare(spec, settings, observed, client, location)
        if result.replacements:
            raise ProviderError(
                f"cluster {spec.name} cannot change in place ({'; '.join(result.replacements)}); "
                "run `pulumi preview` again: the change is a replacement"
            )
        # apply checks every resized group reached the TargetCount the plan asked for (a call
        # accepted but not kept, or another writer): a failure, so no spec the cluster is not in is stored
        state = self._apply(client, clock, result, settings, deadline, fail_on_failures=True) or observed
        return UpdateResult(props.outputs(news, state, location))

    def _apply(
        self, client, clock: Clock, the_plan: Plan, settings: Settings, deadline: float, fail_on_failures: bool = False
    ) -> ClusterState | None:
        """Apply as planned. The table was shown by check or diff; each step is reported as it runs."""
        from pulumi_hyperpod.core.contract import ApplyOptions

        name = the_plan.cluster_name
        options = ApplyOptions(
            wait=settings.wait, timeout=max(_remaining(clock, deadline), 1.0), progress=_reporter(name), poll_seconds=clock.poll_seconds
        )
        context = _context(sleep=clock.sleep, monotonic=clock.monotonic)
        result = self._execute(client, the_plan, options, policy=settings.policy, context=context)
        if result.failures and fail_on_failures:
            raise ProviderError(f"cluster {name}: " + "; ".join(result.failures) + "; run `pulumi up` again to continue")
        for failure in result.failures:  # create: the cluster exists, so it must reach the state
            say(f"warning: {failure}", name)
        if result.outcome not in ("done", "partial", "failed") and result.state is not None:  # (the failures said those)
            say(
                f"not waiting any longer ({result.outcome}): the cluster is {result.state.status} with "
                f"{sum(g.current_count for g in result.state.groups)}/{sum(g.target_count for g in result.state.groups)} nodes; "
                "provisioning continues, `pulumi refresh` shows where it got to",
                name,
            )
        return result.state

    # ---- read ----------------------------------------------------------------------------
    @in_flight
    def read(self, id_: str, bag: dict[str, Any]) -> ReadResult:
        from pulumi_hyperpod.provider import props
        from pulumi_hyperpod.provider.worlds import open_backend

        name = props.cluster_name(bag)
        if name is None:
            return ReadResult(id_, bag)
        location = Location.from_outputs(bag.get("location")) or self._locate(bag)
        client, _ = open_backend(location, self.simulator)
        state = observe(client, name)
        if state is None or (id_.startswith("arn:") and state.arn != id_):
            return ReadResult("", {})  # gone: the engine drops it from the state
        spec = props.observed_spec(bag["spec"], state)
        inputs = {**props.settings_inputs(bag), "spec": spec}
        return ReadResult(state.arn, {**inputs, **props.state_outputs(state, location)}, inputs)

    # ---- delete --------------------------------------------------------------------------
    @in_flight
    def delete(self, _id: str, bag: dict[str, Any]) -> None:
        from pulumi_hyperpod.provider import props
        from pulumi_hyperpod.provider.worlds import open_backend

        name = props.cluster_name(bag)
        if name is None:
            return
        settings = Settings.from_inputs(bag)
        location = Location.from_outputs(bag.get("location")) or self._locate(bag)
        client, clock = open_backend(location, self.simulator)
        deadline = clock.monotonic() + settings.timeout
        state = observe(client, name)
        if state is None:
            say(f"cluster {name} is already gone", name)
            return
        if state.status == "Deleting":
            say(f"cluster {name} is already being deleted; waiting until it is gone", name)
            from pulumi_hyperpod.aws.apply.waiters import wait  # no plan to apply: another writer's delete, waited on

            try:
                wait(
                    client,
                    name,
                    "ClusterDeleted",
                    timeout=_remaining(clock, deadline),
                    poll_seconds=clock.poll_seconds,
                    sleep=clock.sleep,
                    monotonic=clock.monotonic,
                    progress=_reporter(name),
                )
            except Exception as error:  # noqa: BLE001 - WaitTimedOut / WaitFailed, reported as one
                raise ProviderError(f"cluster {name}: {error}; run the command again to keep waiting") from None
            return
        deletion = self._deletion(client, name, settings.policy, state).plan
        say(plan_text(deletion), name)  # no diff runs before a delete: this is the only place to show it
        self._apply(client, clock, deletion, settings, deadline)

    # ---- preview -------------------------------------------------------------------------
    def preview_plan(self, news: dict[str, Any]) -> "Plan":
        """The plan a create or update with `news` would run if it ran now: what the native
        provider's preview returns as its `plan` output, for policy packs (policies/README.md).
        Reads the cluster, changes nothing, prints nothing (check and diff showed it). Raises
        PlanUnknown when it cannot be made (inputs not known yet, the cluster unreadable)."""
        from pulumi_hyperpod.provider import props
        from pulumi_hyperpod.core.cloud import PlanRequest
        from pulumi_hyperpod.provider.unknowns import unknown_paths
        from pulumi_hyperpod.provider.worlds import open_backend

        unknown = unknown_paths(news)
        if unknown:
            raise PlanUnknown(f"inputs not known until other resources are created: {', '.join(p or '(all inputs)' for p in unknown)}")
        settings, spec = Settings.from_inputs(news), props.spec_of(news)
        try:
            location = self._locate(news)
            client, _ = open_backend(location, self.simulator)
            observed = observe(client, spec.name)
            if observed is None:
                return self._cloud().plan(PlanRequest(spec, None, settings.policy, _context(roles=settings.roles, region=location.region)))
            return self._prepare(spec, settings, observed, client, location)
        except Exception as error:  # noqa: BLE001 - reported in the plan output, never as safe
            raise PlanUnknown(f"could not plan cluster {spec.name}: {error}") from None

    # ---- helpers -------------------------------------------------------------------------
    def _prepare(self, spec, settings: Settings, observed: ClusterState | None, client, location: Location) -> Plan:
        """The pipeline against the observed cluster: plan, cost, and the preflight (quotas and
        lifecycle consistency, read before anything is applied: a quota refusal stops create/update
        with the numbers)."""
        from pulumi_hyperpod.provider.worlds import open_service

        context = _context(
            roles=settings.roles,
            region=location.region,
            quotas=lambda: open_service(location, "service-quotas", self.simulator),
            s3=lambda: open_service(location, "s3", self.simulator),
        )
        return self._prepared(client, spec, settings.policy, observed=observed, context=context).plan

    # ---- the apply contract's errors, as the user reads them -------------------------------
    def _refused_message(self, name: str, error: Exception) -> str:
        return f"cluster {name}: {error}"

    def _stale_message(self, name: str, error: Exception) -> str:
        return f"{error}: run `pulumi up` again"

    def _failed_message(self, name: str, error: Any) -> str:
        done = f" (calls made: {', '.join(error.done)})" if error.done else ""
        return f"cluster {name}: {error}{done}; run `pulumi up` again to continue"

    def _region_or_none(self, inputs: dict[str, Any]) -> str | None:
        try:
            return self._locate(inputs).region
        except Exception:  # noqa: BLE001 - pricing a preview needs no valid location
            return None

    def _locate(self, bag: dict[str, Any]) -> Location:
        return locate_inputs(bag, self.defaults)


def _reporter(name: str) -> Callable[["Progress"], None]:
    """Progress lines for one call; a poll that saw nothing new is not repeated (a 20-minute wait
    would otherwise print 40 identical lines into the Pulumi output)."""
    last: list[Any] = [None]

    def report(progress: "Progress") -> None:
        polled = progress.phase in ("wait", "retry") and progress.groups
        key = (progress.phase, progress.cluster_status, progress.groups) if polled else None
        if key is not None and key == last[0]:
            return
        last[0] = key
        say(str(progress), name)

    return report


def _remaining(clock: Clock, deadline: float) -> float:
    return max(deadline - clock.monotonic(), 0.0)


def _not_known_text(unknown: list[str], replacements: list["Replacement"]) -> str:
    lines = ["plan not available yet: these inputs are computed by other resources and not known until they are created:"]
    lines += [f"  - {path or '(all inputs)'}" for path in unknown]
    lines += [f"  may replace the cluster: {r.reason}" for r in replacements]
    lines.append(
        "the plan is made against the live cluster when `pulumi up` runs; a change that needs a replacement "
        "is refused then unless policy allow_replacement is set"
    )
    return "\n".join(lines)


def _replacement_text(replacements: list["Replacement"]) -> str:
    lines = ["REPLACE: the cluster is deleted with all its nodes, then created again:"]
    lines += [f"  - {r.reason}" for r in replacements]
    lines.append("then a new cluster is created from the spec (its plan: `create`)")
    return "\n".join(lines) + "\n"
