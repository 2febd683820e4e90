"""The provider written once: check / diff / create / update / read / delete over the `Cloud`
interface (core/cloud.py), for every cloud.

The two transports are thin over it: the dynamic providers (provider/provider.py's
`ClusterProvider`, provider/gcp.py's `GcpClusterProvider`) turn its outcomes into the SDK's
results, the native server's handlers (native/core.py, native/gcp.py) into gRPC responses. What a
cloud supplies is its `CloudAdapter` (provider/aws_adapter.py, provider/gcp_adapter.py): its
inputs checked and read into a spec and `RunSettings`, where the cluster lives and the client to
reach it, its own diff of inputs (what forces a replacement), its state as outputs, its wording.

The flow, the same for both clouds (docs/provider.md):
- check: the inputs checked; with previous inputs, a replacement the policy does not allow is a
  failure naming the property; for a new resource (no diff follows) what create meets first is
  met here the same way — the region resolved, the credentials read, the name looked up — so a
  preview fails with the line `up` would (a name taken without adopt), then the creation plan is
  shown; an input not known yet that decides those is said to be unchecked, never passed;
- diff: the cloud's input diff; unless it forces a replacement, the plan made against the live
  cluster (core.cloud.prepare) is shown and decides whether anything changes;
- create / update: the plan made again against the live cluster, then core.cloud.execute with the
  policy, so apply checks the plan's guards again on the cluster as it reads it before each write
  (a protected node is never taken down, whatever the plan object says);
- read: the live cluster as outputs (gone: an empty id); delete: the deletion plan applied.

Errors the user can act on are raised as `ProviderError`, worded by provider/errors.py.
Nothing here holds a client or a credential: every call connects through the adapter.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from pulumi_hyperpod.provider.console import say
from pulumi_hyperpod.provider.errors import ProviderError, contract_message
from pulumi_hyperpod.provider.refresh import REFRESHES, drift_text, gone_text

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.cloud import AnyCloud
    from pulumi_hyperpod.core.contract import ApplyResult
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.plans.policy import Policy

Bag = dict[str, Any]
Failures = list[tuple[str, str]]  # (property path, reason)

GONE = "the cluster no longer exists"  # the replacement a diff reports for a cluster deleted outside Pulumi


class PlanUnknown(Exception):
    """The plan a preview would show cannot be made yet, and why."""


class Replaced:
    """The ids of the clusters a diff in this process said are replaced, each taken once by the
    check of the replacement's create (`CloudProvider._existing`). In the process, not the state:
    the engine sends that check no previous inputs and no id, and it runs in the provider process
    the diff ran in, moments later, in the same preview or `up`."""

    def __init__(self) -> None:
        self._ids: set[str] = set()
        self._lock = threading.Lock()

    def note(self, id_: str) -> None:
        with self._lock:
            self._ids.add(id_)

    def taken(self, id_: str) -> bool:
        """Whether `id_` was noted; it is forgotten then."""
        with self._lock:
            if id_ in self._ids:
                self._ids.discard(id_)
                return True
            return False

    def clear(self) -> None:
        with self._lock:
            self._ids.clear()


REPLACED = Replaced()


# ---- what the provider answers, whatever the transport ------------------------------------------
@dataclass(frozen=True, slots=True)
class Checked:
    inputs: Bag
    failures: Failures = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Diffed:
    changes: bool
    replaces: list[str] = field(default_factory=list)
    delete_before_replace: bool = True


@dataclass(frozen=True, slots=True)
class Created:
    id: str
    outputs: Bag


@dataclass(frozen=True, slots=True)
class Found:
    """What read found: an empty `id` means the cluster is gone; `inputs` None: keep the stored ones."""

    id: str
    outputs: Bag
    inputs: Bag | None = None


@dataclass(frozen=True, slots=True)
class Replacement:
    key: str  # the property path reported to the engine in `replaces`
    reason: str
    certain: bool = True  # False: a value not known yet may or may not force it


@dataclass(frozen=True, slots=True)
class RunSettings:
    """What every cloud's settings say about one run: the guards, the wait, its bound, adoption."""

    policy: Policy
    wait: str = "InService"
    timeout: float = 1200.0
    adopt: bool = False


@dataclass(frozen=True, slots=True)
class Session:
    """A connection for one call: the client, where it reaches (for messages), the clock its waits
    run on, and the cloud's contexts (core/cloud.py's `context`) for a plan and for an apply."""

    client: Any
    where: str
    sleep: Callable[[float], Any] | None = None
    monotonic: Callable[[], float] | None = None
    poll_seconds: float | None = None
    plan_context: Any = None
    apply_context: Any = None

    def now(self) -> float:

        return (self.monotonic or time.monotonic)()


class CloudAdapter(Protocol):
    """What one cloud supplies to the CloudProvider: its inputs ↔ spec and settings, its state →
    outputs, its diff of inputs, where its clusters live, its words."""

    cloud_name: str  # the registry's key (core/cloud.py)

    def check_inputs(self, olds: Bag, news: Bag) -> tuple[Bag, Failures]:
        """The inputs as stored (canonical), and what is wrong with them."""
        ...

    def unknown(self, inputs: Mapping[str, Any]) -> list[str]:
        """The paths of the inputs not known yet (a preview before other resources exist)."""
        ...

    def name_of(self, bag: Mapping[str, Any]) -> str | None: ...

    def lookup_name(self, inputs: Mapping[str, Any]) -> str | None:
        """The name a create reads (its spec's), when it and the settings (where the cluster lives,
        adopt) are known; None while one is not: a create's preview cannot check it then."""
        ...

    def label(self, name: str) -> str:
        """The `[hyperpod NAME]` prefix of the provider's lines."""
        ...

    def desired(self, inputs: Mapping[str, Any]) -> Any:
        """The cloud's spec of checked inputs."""
        ...

    def settings(self, inputs: Mapping[str, Any], olds: Mapping[str, Any] | None = None) -> RunSettings: ...

    def open(self, bag: Mapping[str, Any], settings: RunSettings | None = None, *, stored: bool = False) -> Session:
        """A session where the cluster of `bag` lives: where its inputs say, or with `stored` (read,
        delete) where the outputs recorded it lives."""
        ...

    def may_replace(self, inputs: Mapping[str, Any]) -> bool:
        """Whether a replacement is allowed, or cannot be judged yet (settings not known): then check
        leaves it to the diff. Read from the inputs without building the policy."""
        ...

    allow_hint: str  # how to allow a replacement, after "Set policy={'allow_replacement': True} on the resource"

    def exists_text(self, name: str, session: Session, state: Any) -> str:
        """Why a create stops on a cluster that already exists, and what to do."""
        ...

    def replacements(self, olds: Mapping[str, Any], inputs: Mapping[str, Any]) -> list[Replacement]:
        """What in the inputs' change forces a replacement, read from the inputs alone (no call)."""
        ...

    def inputs_changed(self, olds: Mapping[str, Any], news: Mapping[str, Any]) -> bool: ...

    def creation_plan(self, inputs: Mapping[str, Any], settings: RunSettings) -> Plan:
        """The plan of a create, made offline (check shows it: no diff runs for a new resource)."""
        ...

    def creation_note(self, inputs: Mapping[str, Any]) -> str:
        """A line under the creation plan (AWS: what adopt does), or ''."""
        ...

    def resource_id(self, state: Any) -> str: ...

    def is_it(self, id_: str, state: Any) -> bool:
        """Whether the cluster read is the one the resource id names (an ARN is one cluster)."""
        ...

    def outputs(self, inputs: Mapping[str, Any], state: Any, session: Session) -> Bag: ...

    def found(self, id_: str, bag: Mapping[str, Any], state: Any, session: Session) -> Found:
        """Read's answer for a cluster that exists."""
        ...

    def failed(self, state: Any) -> str | None:
        """Why a cluster a create just made is unusable (AWS `Failed`, Google Cloud `ERROR`), or None."""
        ...

    def being_deleted(self, state: Any) -> bool: ...

    def wait_deleted(self, session: Session, name: str, timeout: float, progress: Callable[[Any], None]) -> None:
        """Wait for another writer's delete to finish."""
        ...

    def delete_wait(self, settings: RunSettings) -> str:
        """What a delete waits for (the contract's WAITS)."""
        ...

    def summary(self, state: Any) -> str:
        """The cluster in a few words, for a message (its status, its nodes)."""
        ...


class CloudProvider:
    """check / diff / create / update / read / delete over one cloud, through its adapter."""

    def __init__(self, adapter: CloudAdapter) -> None:
        self.adapter = adapter

    # ---- the pipeline --------------------------------------------------------------------------
    @property
    def cloud(self) -> AnyCloud:
        from pulumi_hyperpod.core import cloud  # noqa: PLC0415 - core.cloud, the clouds' registry: unpickling the provider loads this module and must not load it (test_program_lean)

        return cloud.get(self.adapter.cloud_name)

    def _say(self, text: str, name: str | None) -> None:
        say(text, self.adapter.label(name) if name else None)

    def _show(self, the_plan: Plan, name: str, note: str = "") -> None:
        """Say the plan as the preview shows it and, when $HYPERPOD_PLAN_DIR is set, write it there too."""
        self._say(plan_text(the_plan) + note, name)
        write_plan_file(the_plan)

    def _read(self, session: Session, name: str) -> Any:
        return self.cloud.read(session.client, name)

    def _prepare(self, session: Session, spec: Any, settings: RunSettings, observed: Any) -> Plan:
        """The pipeline against the observed cluster: plan, cost, and the preflight (read before
        anything is applied: a quota refusal stops create/update with the numbers)."""
        from pulumi_hyperpod.core import cloud  # noqa: PLC0415 - core.cloud, the clouds' registry: unpickling the provider loads this module and must not load it (test_program_lean)

        return cloud.prepare(self.cloud, session.client, spec, settings.policy, observed=observed, context=session.plan_context).plan

    def _pinned(self, made: Plan) -> Plan:
        """The plan to apply: `made`, or with $HYPERPOD_PINNED_PLAN_DIR the pinned plan it must be (provider/pinned.py)."""
        from pulumi_hyperpod.provider.pinned import PinError, pinned  # noqa: PLC0415 - a pinned apply only

        try:
            return pinned(made, self.adapter.cloud_name)
        except PinError as error:
            raise ProviderError(str(error)) from None

    def _apply(self, session: Session, the_plan: Plan, settings: RunSettings, deadline: float, *, wait: str | None = None) -> ApplyResult:
        """Apply as planned, the policy's guards checked again on the live cluster before each write;
        a refused, stale or failed apply raised as the one message (provider/errors.py)."""
        from pulumi_hyperpod.core import cloud  # noqa: PLC0415 - core.cloud, the clouds' registry: unpickling the provider loads this module and must not load it (test_program_lean)
        from pulumi_hyperpod.core.contract import ApplyError, ApplyOptions, PlanRefused, PlanStale  # noqa: PLC0415 - core.contract: unpickling the provider loads this module and must not load it (test_program_lean)

        name = the_plan.cluster_name
        options = ApplyOptions(
            wait=wait or settings.wait,
            timeout=max(deadline - session.now(), 1.0),
            progress=reporter(self.adapter.label(name)),
            poll_seconds=session.poll_seconds,
        )
        try:
            return cloud.execute(self.cloud, session.client, the_plan, options, policy=settings.policy, context=session.apply_context)
        except (PlanRefused, PlanStale, ApplyError) as error:
            raise ProviderError(contract_message(error, name)) from None

    # ---- check ---------------------------------------------------------------------------------
    def check(self, olds: Bag, news: Bag) -> Checked:
        REFRESHES.checked()  # the program runs: every diff from now on is a preview's
        inputs, failures = self.adapter.check_inputs(olds, news)
        if failures:
            return Checked(inputs, failures)
        if olds:
            return Checked(inputs, self._refused_replacements(olds, inputs))
        self._show_creation(inputs)
        return Checked(inputs)

    def _refused_replacements(self, olds: Bag, inputs: Bag) -> Failures:
        """A change that would replace the cluster (delete all its nodes) without
        policy.allow_replacement fails here, naming the property: the engine shows it as a plain
        validation error before anything runs."""
        if self.adapter.may_replace(inputs):
            return []
        return [
            (
                r.key,
                f"{r.reason}: this replaces the cluster (all its nodes are deleted, then it is created again). "
                f"Set policy={{'allow_replacement': True}} on the resource to allow it{self.adapter.allow_hint}, or undo the change.",
            )
            for r in self.adapter.replacements(olds, inputs)
            if r.certain
        ]

    def _show_creation(self, inputs: Bag) -> None:
        """A new resource: the engine calls no diff, so the create's preview is made here. What
        create meets before its first write is met first, by the same call (`_existing`): the
        region, the credentials, the name taken or free — a read, nothing else. Then the creation
        plan (offline: create runs the preflight) or, adopting, the plan against the cluster there."""
        unknown = self.adapter.unknown(inputs)
        name = self.adapter.lookup_name(inputs)
        if name is None:
            self._say(unchecked_text(unknown), self.adapter.name_of(inputs))
            return
        settings = self.adapter.settings(inputs)
        session, observed = self._existing(inputs, name, settings, preview=True)
        if unknown:
            self._say(not_known_text(unknown, []), name)
        elif observed is not None:
            self._adopted(session, self.adapter.desired(inputs), settings, observed)
        else:
            the_plan = self.adapter.creation_plan(inputs, settings)
            self._show(the_plan, the_plan.cluster_name, note=self.adapter.creation_note(inputs))

    def _existing(self, inputs: Bag, name: str, settings: RunSettings, *, preview: bool = False) -> tuple[Session, Any]:
        """Where a create of `inputs` goes and what is there now, for the create and for its
        preview alike: the session opened where the inputs say (the region resolved, or the
        NoRegionError), the cluster read by its name (no credentials: botocore's
        NoCredentialsError before any request). A cluster there without adopt stops the create
        with the adapter's line; the errors are worded by the one renderer (core/messages.py).

        A replacement's create is checked too: after a diff says "replace", the engine checks the
        inputs again as a new resource's, while the cluster being replaced is still there (it is
        deleted first). That cluster, and only it (its id, the one the diff was given), is no
        obstacle: the preview shows the creation plan."""
        session = self.adapter.open(inputs, settings)
        observed = self._read(session, name)
        if observed is not None and preview and REPLACED.taken(self.adapter.resource_id(observed)):
            return session, None
        if observed is not None and not settings.adopt:
            raise ProviderError(self.adapter.exists_text(name, session, observed))
        return session, observed

    # ---- diff ----------------------------------------------------------------------------------
    def diff(self, id_: str, olds: Bag, news: Bag) -> Diffed:
        name = self.adapter.name_of(news) or self.adapter.name_of(olds) or id_
        unknown = self.adapter.unknown(news)
        replacements = self.adapter.replacements(olds, news)
        changed = self.adapter.inputs_changed(olds, news)
        if REFRESHES.is_refresh_diff(id_):  # what the refresh changed: read said it, no plan runs
            keys = list(dict.fromkeys(r.key for r in replacements if r.certain))
            return Diffed(changes=changed or bool(keys), replaces=keys, delete_before_replace=True)
        if unknown:
            self._say(not_known_text(unknown, replacements), name)
        elif replacements:
            self._refuse_replacement(news, [r.reason for r in replacements], name)
            self._say(replacement_text(replacements), name)  # the new cluster's plan: check prints it
        else:
            live = self._live_plan(news, name, inputs_changed=changed, olds=olds)
            if live is not None:
                changed = changed or bool(live.steps)
                if live.replacements:
                    self._refuse_replacement(news, list(live.replacements), name)
                    replacements += [Replacement("spec", reason) for reason in live.replacements]
        keys = list(dict.fromkeys(r.key for r in replacements))
        if keys and id_:
            REPLACED.note(id_)
        return Diffed(changes=changed or bool(keys), replaces=keys, delete_before_replace=True)

    def _live_plan(self, news: Bag, name: str, inputs_changed: bool, olds: Bag | None = None) -> Plan | None:
        """Observe the cluster and show the plan, as `hyperpod plan` would print it — unless
        nothing changed and there is nothing to do (a stack of many clusters stays readable)."""
        settings = self.adapter.settings(news, olds)
        try:
            session = self.adapter.open(news, settings)
            observed = self._read(session, name)
        except Exception as error:
            self._say(f"could not read cluster {name} to plan against it: {error}", name)
            return None
        if observed is None:
            self._say(f"cluster {name} no longer exists in {session.where} (deleted outside Pulumi): it will be created again", name)
            from pulumi_hyperpod.plans import Plan  # noqa: PLC0415 - the Plan model: unpickling the provider loads this module and must not load it (test_program_lean)

            return Plan(cluster_name=name, action="create", replacements=(GONE,))
        result = self._prepare(session, self.adapter.desired(news), settings, observed)
        if inputs_changed or not result.empty:
            self._show(result, name)
        return result

    def _refuse_replacement(self, news: Bag, reasons: list[str], name: str) -> None:
        if reasons == [GONE] or self.adapter.settings(news).policy.allow_replacement:
            return
        raise ProviderError(
            f"cluster {name} would be replaced (deleted with all its nodes, then created again): "
            + "; ".join(reasons)
            + ". Set policy={'allow_replacement': True} on the resource to allow it, or undo the change."
        )

    # ---- create --------------------------------------------------------------------------------
    def create(self, inputs: Bag) -> Created:
        settings, spec = self.adapter.settings(inputs), self.adapter.desired(inputs)
        name = spec.name
        session, observed = self._existing(inputs, name, settings)
        deadline = session.now() + settings.timeout
        if observed is None:
            result = self._prepare(session, spec, settings, None)
            if result.preflight is not None:  # check's creation plan had no preflight
                self._say(preflight_text(result), name)
        else:
            result = self._adopted(session, spec, settings, observed)
        result = self._pinned(result)
        try:
            applied = self._apply(session, result, settings, deadline)
        except ProviderError as error:
            if observed is None:
                self._undo_failed_create(session, name, settings, deadline, str(error))
            raise
        self._report(applied, name)
        state = applied.state if applied.state is not None else self._read(session, name)
        if state is None:
            raise ProviderError(f"cluster {name} was not found after its create")
        why = self.adapter.failed(state) if observed is None else None
        if why is not None:
            self._undo_failed_create(session, name, settings, deadline, why)
            raise ProviderError(why)
        outputs = self.adapter.outputs(inputs, state, session)
        self._say_launching(applied, outputs, name)
        return Created(self.adapter.resource_id(state), outputs)

    def _adopted(self, session: Session, spec: Any, settings: RunSettings, observed: Any) -> Plan:
        """The plan that takes over the cluster there (adopt), shown; one that differs in what cannot
        change in place stops the create — and its preview, which shows this plan too."""
        name = spec.name
        self._say(f"adopting {self.adapter.summary(observed)}", name)
        result = self._prepare(session, spec, settings, observed)
        self._show(result, name)
        if result.replacements:
            raise ProviderError(
                f"cannot adopt cluster {name}: it differs in what cannot change in place: " + "; ".join(result.replacements)
            )
        return result

    def _undo_failed_create(self, session: Session, name: str, settings: RunSettings, deadline: float, why: str) -> None:
        """A create either leaves a working cluster or none (the engine's contract): a cluster the
        failed create left unusable is deleted before the error is reported."""
        from pulumi_hyperpod.core import cloud  # noqa: PLC0415 - core.cloud, the clouds' registry: unpickling the provider loads this module and must not load it (test_program_lean)

        state = self._read(session, name)
        if state is None or self.adapter.failed(state) is None:
            return
        self._say(f"{why}; deleting the cluster the failed create left", name)
        try:
            deletion = cloud.deletion(self.cloud, session.client, name, settings.policy, observed=state).plan
            self._apply(session, deletion, settings, max(deadline, session.now() + 1.0), wait="InService")
        except ProviderError as error:
            raise ProviderError(f"{why}; deleting it did not finish: {error}") from None

    # ---- update --------------------------------------------------------------------------------
    def update(self, id_: str, olds: Bag, news: Bag) -> Bag:
        settings, spec = self.adapter.settings(news, olds), self.adapter.desired(news)
        session = self.adapter.open(news, settings)
        deadline = session.now() + settings.timeout
        observed = self._read(session, spec.name)
        if observed is None:
            raise ProviderError(
                f"cluster {spec.name} no longer exists in {session.where} (deleted outside Pulumi?). "
                "Run `pulumi refresh`, then `pulumi up` creates it again."
            )
        result = self._prepare(session, spec, settings, observed)
        if result.replacements:
            raise ProviderError(
                f"cluster {spec.name} cannot change in place ({'; '.join(result.replacements)}); "
                "run `pulumi preview` again: the change is a replacement"
            )
        applied = self._apply(session, self._pinned(result), settings, deadline)
        # every resized group must reach what the plan asked for (a call accepted but not kept,
        # or another writer): a failure, so no spec the cluster is not in is stored
        if applied.failures:
            raise ProviderError(f"cluster {spec.name}: " + "; ".join(applied.failures) + "; run `pulumi up` again to continue")
        self._report(applied, spec.name)
        outputs = self.adapter.outputs(news, applied.state if applied.state is not None else observed, session)
        self._say_launching(applied, outputs, spec.name)
        return outputs

    def _report(self, result: ApplyResult, name: str) -> None:
        for failure in result.failures:  # create: the cluster exists, so it must reach the state
            self._say(f"warning: {failure}", name)
        if result.outcome not in ("done", "started", "partial", "failed") and result.state is not None:  # (the failures said those)
            self._say(
                f"not waiting any longer ({result.outcome}): the cluster is {self.adapter.summary(result.state)}; "
                "provisioning continues, `pulumi refresh` shows where it got to",
                name,
            )

    def _say_launching(self, result: ApplyResult, outputs: Bag, name: str) -> None:
        """An apply that returned before every node is up (a wait short of `Target`) says which are
        still coming, so `pulumi up` never ends on a count it did not reach without saying so."""
        if result.outcome in ("done", "started"):  # a wait cut short said so already (_report)
            text = launching_text(outputs)
            if text:
                self._say(text, name)

    # ---- read ----------------------------------------------------------------------------------
    def read(self, id_: str, bag: Bag) -> Found:
        name = self.adapter.name_of(bag)
        if name is None:
            return Found(id_, bag)
        session = self.adapter.open(bag, stored=True)
        state = self._read(session, name)
        if state is None or not self.adapter.is_it(id_, state):
            self._say(gone_text(name), name)
            return Found("", {})  # gone: the engine drops it from the state
        found = self.adapter.found(id_, bag, state, session)
        drift = drift_text(bag, found.outputs)
        if drift:
            self._say(drift, name)
        REFRESHES.read(found.id)
        return found

    # ---- delete --------------------------------------------------------------------------------
    def delete(self, id_: str, bag: Bag) -> None:
        from pulumi_hyperpod.core import cloud  # noqa: PLC0415 - core.cloud, the clouds' registry: unpickling the provider loads this module and must not load it (test_program_lean)

        name = self.adapter.name_of(bag) or id_
        if not name:
            return
        settings = self.adapter.settings(bag)
        session = self.adapter.open(bag, settings, stored=True)
        deadline = session.now() + settings.timeout
        state = self._read(session, name)
        if state is None:
            self._say(f"cluster {name} is already gone", name)
            return
        if self.adapter.being_deleted(state):
            self._say(f"cluster {name} is already being deleted; waiting until it is gone", name)
            self.adapter.wait_deleted(session, name, max(deadline - session.now(), 0.0), reporter(self.adapter.label(name)))
            return
        deletion = cloud.deletion(self.cloud, session.client, name, settings.policy, observed=state).plan
        self._show(deletion, name)  # no diff runs before a delete: this is the only place to show it
        self._report(self._apply(session, self._pinned(deletion), settings, deadline, wait=self.adapter.delete_wait(settings)), name)

    # ---- preview -------------------------------------------------------------------------------
    def preview_plan(self, news: Bag) -> Plan:
        """The plan a create or update with `news` would run if it ran now: what the native
        provider's preview returns as its `plan` output, for policy packs (policies/README.md).
        Reads the cluster, changes nothing, prints nothing (check and diff showed it). Raises
        PlanUnknown when it cannot be made (inputs not known yet, the cluster unreadable)."""
        unknown = self.adapter.unknown(news)
        if unknown:
            raise PlanUnknown(f"inputs not known until other resources are created: {', '.join(p or '(all inputs)' for p in unknown)}")
        settings, spec = self.adapter.settings(news), self.adapter.desired(news)
        try:
            session = self.adapter.open(news, settings)
            observed = self._read(session, spec.name)
            if observed is None:
                return self.adapter.creation_plan(news, settings)
            return self._prepare(session, spec, settings, observed)
        except Exception as error:
            raise PlanUnknown(f"could not plan cluster {spec.name}: {error}") from None


# ---- the text the provider shows -----------------------------------------------------------------
PLAN_DIR_ENV = "HYPERPOD_PLAN_DIR"  # docs/fleet.md: `hyperpod fleet plan` reads each stack's plans from there


def write_plan_file(the_plan: Plan) -> None:
    """With $HYPERPOD_PLAN_DIR set, the plan the provider shows as `<dir>/<cluster>.json` (its
    `hyperpod-plan/3` JSON, what `hyperpod plan --json` prints: names, counts, costs, never a
    credential), replaced whole so a reader never meets half a file."""
    directory = os.environ.get(PLAN_DIR_ENV)
    if not directory:
        return
    from pulumi_hyperpod.core.plandir import plan_path  # noqa: PLC0415 - unpickling the provider loads this module and must not load it (test_program_lean)

    path = plan_path(directory, the_plan.cluster_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.{os.getpid()}")
    partial.write_text(the_plan.to_json(), encoding="utf-8")
    os.replace(partial, path)


def plan_text(the_plan: Plan) -> str:
    """The plan as the preview shows it; a removed-nodes table too long to print in full is listed
    whole in a file the text names (provider/victims.py)."""
    from pulumi_hyperpod.plans import plan_text as text  # noqa: PLC0415 - the Plan model: unpickling the provider loads this module and must not load it (test_program_lean)
    from pulumi_hyperpod.plans.render import VICTIMS_SHOWN  # noqa: PLC0415 - plans.render loads rich: only a preview that shows a plan needs it

    if len(the_plan.victims) <= VICTIMS_SHOWN:
        return text(the_plan)
    from pulumi_hyperpod.provider.victims import write_victims  # noqa: PLC0415 - the victims file (sim.worldfile): unpickling the provider loads this module and must not load it (test_program_lean)

    path = write_victims(the_plan)
    if path is None:
        return text(the_plan)
    # the path on a line of its own, after the tables: never wrapped, so it can be copied whole
    return (
        text(the_plan, victims_elsewhere="the file named below lists them all") + f"removed nodes, all {len(the_plan.victims):,}: {path}\n"
    )


def preflight_text(the_plan: Plan) -> str:
    from pulumi_hyperpod.plans.render import preflight_renderable, render_text  # noqa: PLC0415 - plans.render loads rich: only a preview that shows a plan needs it

    if the_plan.preflight is None:
        return ""
    return str(render_text(preflight_renderable(the_plan.preflight, the_plan)))


def reporter(label: str) -> Callable[[Any], None]:
    """Progress lines for one call; a poll that saw nothing new is not repeated (a 20-minute wait
    would otherwise print 40 identical lines into the Pulumi output)."""
    last: list[Any] = [None]

    def report(progress: Any) -> None:
        phase = getattr(progress, "phase", None)
        polled = phase in ("wait", "retry") and getattr(progress, "groups", None)
        key = (phase, getattr(progress, "cluster_status", None), progress.groups) if polled else None
        if key is not None and key == last[0]:
            return
        last[0] = key
        say(str(progress), label, progress=True)

    return report


def launching_text(outputs: Mapping[str, Any]) -> str:
    """The groups of `outputs` short of their target (`current_count` < `target_count`) and how to
    see them come up; "" when none is."""
    groups = outputs.get("groups")
    counts = [
        (group, _count(g.get("current_count")), _count(g.get("target_count")))
        for group, g in (groups.items() if isinstance(groups, Mapping) else ())
        if isinstance(g, Mapping)
    ]
    short = [f"{group} {current:g} of {target:g}" for group, current, target in counts if current < target]
    if not short:
        return ""
    text = (
        f"still launching: {', '.join(short)} nodes up; provisioning continues after this call "
        '(wait="Target" waits for every node), `pulumi refresh` shows where it got to'
    )
    location = outputs.get("location")
    if isinstance(location, Mapping) and location.get("backend") == "fake":
        text += "; on the simulator, `hyperpod fake advance 10m` moves its clock on"
    return text


def _count(value: Any) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def not_known_text(unknown: list[str], replacements: list[Replacement]) -> str:
    lines = ["plan not available yet: these inputs are computed by other resources and not known until they are created:"]
    lines += [f"  - {path or '(all inputs)'}" for path in unknown]
    lines += [f"  may replace the cluster: {r.reason}" for r in replacements]
    lines.append(
        "the plan is made against the live cluster when `pulumi up` runs; a change that needs a replacement "
        "is refused then unless policy allow_replacement is set"
    )
    return "\n".join(lines)


def unchecked_text(unknown: list[str]) -> str:
    """A create's preview that could not be checked: said so, never shown as fine."""
    lines = [
        "not checked yet: the region, the credentials and whether the cluster's name is free depend on inputs not known until other resources are created:"
    ]
    lines += [f"  - {path or '(all inputs)'}" for path in unknown]
    lines.append("`pulumi up` checks them before it creates anything, and fails there if the name is taken (unless adopt is set)")
    return "\n".join(lines)


def replacement_text(replacements: list[Replacement]) -> str:
    lines = ["REPLACE: the cluster is deleted with all its nodes, then created again:"]
    lines += [f"  - {r.reason}" for r in replacements]
    lines.append("then a new cluster is created from the spec (its plan: `create`)")
    return "\n".join(lines) + "\n"
