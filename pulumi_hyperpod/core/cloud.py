"""What "a cloud" is, defined once: the `Cloud` interface and the registry that finds them.

The model is Terraform's provider interface (internal/providers): a provider reads a resource,
plans a change to it, applies a plan and imports an existing one, each over typed data. Here a
cloud is `Cloud[Spec, State, Client, Context]` — its spec, its observed cluster, its client and its
context (the inputs it needs beyond the spec and policy: AWS's aws/context.AwsContext; Google
Cloud's None) — and each stage takes and gives one typed record:

    read(client, name)                  → State | None (None: no such cluster)
    read_inputs(client, PlanRequest)    → PlanRequest: the same with what else the plan is made from,
                                          read now (AWS: tags, Slurm roles, the workload)
    plan(PlanRequest)                   → Plan (pure: planner rules, then its cost)
    annotate(plan, PlanRequest)         → Plan with the cloud's own sections (AWS: the legacy Slurm
                                          migration, the Slurm section, notes)
    preflight(plan, PlanRequest, client) → Plan with its preflight section (reads the account)
    apply(client, ApplyRequest)         → ApplyResult (core/contract.py: one contract)
    import_(client, name)               → State (an error when there is none)
    save_plan(Prepared, path, target=, inputs=) / load_plan(path, target=) → the plan file's body

plus what a front end needs to get there: `owns(document)` (is this spec file for me?),
`connect(backend)` and `load_spec(path, **context)`.

The pipeline (read → other inputs → plan + cost → the cloud's sections → preflight → save | apply)
is `prepare` / `deletion` / `execute` below and core/planfile's `save` / `load`, the same for every
cloud. It runs one way: these functions call the cloud's stages, no stage calls back into them,
and a cloud's library API (aws/pipeline) sits on top of them. Every front end (cli, provider,
native) calls them and wires no stage itself.

The registry names each cloud's module; a cloud is imported only when asked for (a HyperPod
command never imports the Google Cloud package).
"""

from __future__ import annotations

from dataclasses import dataclass
import dataclasses
import enum
import importlib
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeVar, runtime_checkable
from pulumi_hyperpod.core.preflight import section
from pulumi_hyperpod.core.contract import ApplyOptions

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.contract import ApplyOptions, ApplyResult
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.plans.policy import Policy

# cloud name → "module:attribute" of its implementation
REGISTRY: dict[str, str] = {
    "aws": "pulumi_hyperpod.aws.cloud:AWS",
    "gcp": "pulumi_hyperpod.gcp.cloud:GCP",
}
DETECTION_ORDER = ("gcp", "aws")  # the first cloud that owns a document; AWS last (its loader explains errors)


class NamedSpec(Protocol):
    """What the pipeline reads of any cloud's spec: the name of the cluster it declares."""

    @property
    def name(self) -> str: ...


SpecT = TypeVar("SpecT", bound=NamedSpec)
StateT = TypeVar("StateT")
ClientT = TypeVar("ClientT")
ContextT = TypeVar("ContextT")

Target = Mapping[str, Any]  # where a plan is for: cloud, backend, region/project, account (None values: not compared)
InputFiles = Iterable["str | os.PathLike[str]"]  # the files a plan was made from, which its plan file must not overwrite


class Read(enum.Enum):
    """`observed=OBSERVE`: read the live cluster now. The pipeline's one "read it yourself" value;
    `observed=None` is a different answer (there is no cluster)."""

    LIVE = "read the live cluster"


OBSERVE: Final = Read.LIVE


@dataclass(frozen=True, slots=True)
class PlanRequest(Generic[SpecT, StateT, ContextT]):
    """What a plan is made from. `read_inputs` returns it completed; plan, annotate and preflight read it."""

    desired: SpecT | None  # None: the cluster is to be deleted
    observed: StateT | None  # None: there is no cluster
    policy: Policy
    context: ContextT | None = None  # None: the cloud's defaults


@dataclass(frozen=True, slots=True)
class ApplyRequest(Generic[ContextT]):
    """What apply acts on: the plan, how to wait, the guards checked again (`policy`) and the cloud's context."""

    plan: Plan
    options: ApplyOptions
    policy: Policy | None = None
    context: ContextT | None = None


@dataclass(frozen=True, slots=True)
class Prepared(Generic[SpecT, StateT, ContextT]):
    """A plan with what it was made from, for any cloud: what a plan file saves and apply needs."""

    cloud: str
    plan: Plan
    desired: SpecT | None
    observed: StateT | None
    policy: Policy
    context: ContextT | None = None  # the cloud's context as read_inputs left it (AWS: the Slurm roles, the workload view)

    @property
    def request(self) -> PlanRequest[SpecT, StateT, ContextT]:
        return PlanRequest(self.desired, self.observed, self.policy, self.context)


@runtime_checkable
class Cloud(Protocol[SpecT, StateT, ClientT, ContextT]):
    name: str  # the registry's key: "aws", "gcp"
    title: str  # for people: "Amazon SageMaker HyperPod"

    def owns(self, document: object) -> bool: ...

    def connect(self, backend: str) -> ClientT: ...

    def load_spec(self, path: str, **context: str | None) -> SpecT: ...

    def read(self, client: ClientT, name: str) -> StateT | None: ...

    def read_inputs(
        self, client: ClientT | None, request: PlanRequest[SpecT, StateT, ContextT]
    ) -> PlanRequest[SpecT, StateT, ContextT]: ...

    def plan(self, request: PlanRequest[SpecT, StateT, ContextT]) -> Plan: ...

    def annotate(self, plan: Plan, request: PlanRequest[SpecT, StateT, ContextT]) -> Plan: ...

    def preflight(self, plan: Plan, request: PlanRequest[SpecT, StateT, ContextT], client: ClientT) -> Plan: ...

    def apply(self, client: ClientT, request: ApplyRequest[ContextT]) -> ApplyResult: ...

    def import_(self, client: ClientT, name: str) -> StateT: ...

    def save_plan(
        self, prepared: Prepared[SpecT, StateT, ContextT], path: str, *, target: Target | None = None, inputs: InputFiles = ()
    ) -> None: ...

    def load_plan(self, path: str, *, target: Target | None = None) -> Prepared[SpecT, StateT, ContextT]: ...


AnyCloud = Cloud[Any, Any, Any, Any]  # a cloud found by name: its types are known only to code that names it


class UnknownCloud(LookupError):
    pass


def names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def get(name: str) -> AnyCloud:
    """The cloud registered as `name`."""
    where = REGISTRY.get(name)
    if where is None:
        raise UnknownCloud(f"no cloud {name!r}; the clouds are {', '.join(REGISTRY)}")
    module, attribute = where.split(":")
    found = getattr(importlib.import_module(module), attribute)
    if not isinstance(found, Cloud):  # a registry entry that does not implement the interface is a bug
        raise TypeError(f"{where} does not implement the Cloud interface")
    return found


def for_document(document: object) -> AnyCloud:
    """The cloud a spec document is for, from its shape alone (no I/O)."""
    for name in DETECTION_ORDER:
        cloud = get(name)
        if cloud.owns(document):
            return cloud
    return get(DETECTION_ORDER[-1])


def _observed(
    cloud: Cloud[SpecT, StateT, ClientT, ContextT], client: ClientT | None, name: str, observed: StateT | Read | None
) -> StateT | None:
    if not isinstance(observed, Read):
        return observed
    if client is None:
        raise ValueError(f"no client to read cluster {name} with: give the observed cluster (or None for none)")
    return cloud.read(client, name)


def prepare(
    cloud: Cloud[SpecT, StateT, ClientT, ContextT],
    client: ClientT | None,
    desired: SpecT,
    policy: Policy,
    *,
    observed: StateT | Read | None = OBSERVE,
    skip_preflight: str | None = None,
    context: ContextT | None = None,
) -> Prepared[SpecT, StateT, ContextT]:
    """The pipeline, the same for every cloud: read → the other inputs → plan (+ cost) → the
    cloud's sections → preflight. `observed`: a given observation (a snapshot, or None for no
    cluster) instead of reading (OBSERVE); `skip_preflight`: why the account is not read (the
    plan's preflight section says it); `context`: the cloud's typed context (None: its defaults)."""
    state = _observed(cloud, client, desired.name, observed)
    request = cloud.read_inputs(client, PlanRequest(desired, state, policy, context))
    the_plan = cloud.annotate(cloud.plan(request), request)
    if skip_preflight is None and client is not None:
        the_plan = cloud.preflight(the_plan, request, client)
    else:
        reason = skip_preflight or "no client to read the account with"
        the_plan = dataclasses.replace(the_plan, preflight=section(the_plan, None, [], [], skipped=reason))
    return Prepared(cloud.name, the_plan, request.desired, request.observed, request.policy, request.context)


def deletion(
    cloud: Cloud[SpecT, StateT, ClientT, ContextT],
    client: ClientT | None,
    name: str,
    policy: Policy,
    *,
    observed: StateT | Read | None = OBSERVE,
    context: ContextT | None = None,
) -> Prepared[SpecT, StateT, ContextT]:
    """The plan that deletes cluster `name` (action "none" when there is none); `observed`: the
    cluster as the caller already read it (default OBSERVE: read it now). No account to check: a
    delete adds nothing."""
    state = _observed(cloud, client, name, observed)
    request: PlanRequest[SpecT, StateT, ContextT] = PlanRequest(None, state, policy, context)
    return Prepared(cloud.name, cloud.plan(request), None, state, policy, context)


def execute(
    cloud: Cloud[SpecT, StateT, ClientT, ContextT],
    client: ClientT,
    prepared: Prepared[SpecT, StateT, ContextT] | Plan,
    options: ApplyOptions | None = None,
    *,
    policy: Policy | None = None,
    context: ContextT | None = None,
) -> ApplyResult:
    """Apply a prepared plan (or a Plan) through its cloud, under the one contract. `policy` and
    `context`: the guards apply checks again and the cloud's context for the apply (default: the
    ones the plan was prepared with)."""
    if isinstance(prepared, Prepared):
        the_plan = prepared.plan
        policy = policy if policy is not None else prepared.policy
        context = context if context is not None else prepared.context
    else:
        the_plan = prepared
    return cloud.apply(client, ApplyRequest(the_plan, options or ApplyOptions(), policy, context))
