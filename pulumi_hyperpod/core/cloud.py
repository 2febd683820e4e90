"""What "a cloud" is, defined once: the `Cloud` interface and the registry that finds them.

The model is Terraform's provider interface (internal/providers): a provider reads a resource,
plans a change to it, applies a plan and imports an existing one, each over typed data. Here:

    read(client, name)                          → the cloud's observed cluster, or None
    read_inputs(client, desired, observed, context) → (observed, context): what else the plan is made
                                                  from, read now (AWS: tags, Slurm roles, the workload)
    plan(desired, observed, policy, context=)   → a Plan (pure: planner rules, then its cost)
    annotate(plan, desired, observed, context)  → the Plan with the cloud's own sections (AWS: the
                                                  legacy Slurm migration, the Slurm section, notes)
    preflight(plan, desired, observed, client, policy, context=) → the Plan with its preflight section (reads the account)
    apply(client, plan, options, policy=, context=) → ApplyResult (core/contract.py: one contract)
    import_(client, name)                       → the observed cluster (an error when there is none)
    save_plan(prepared, path, target=, inputs=) / load_plan(path, target=) → the plan file's body

plus what a front end needs to get there: `owns(document)` (is this spec file for me?),
`connect(backend)` and `load_spec(path, **context)`. `context` is the cloud's typed context (AWS:
aws/context.AwsContext; Google Cloud: None): the inputs a cloud needs beyond the spec and policy.
The pipeline (read → plan + cost → preflight → save | apply) is `prepare` / `deletion` /
`execute` below and core/planfile's `save` / `load`, the same for every cloud; every front end
(cli, provider, native) calls them and wires no stage itself.

The registry names each cloud's module; a cloud is imported only when asked for (a HyperPod
command never imports the Google Cloud package).
"""

from __future__ import annotations

from dataclasses import dataclass
import dataclasses
import importlib
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable


if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.plans.policy import Policy
    from pulumi_hyperpod.core.contract import ApplyOptions, ApplyResult

# cloud name → "module:attribute" of its implementation
REGISTRY: dict[str, str] = {
    "aws": "pulumi_hyperpod.aws.cloud:AWS",
    "gcp": "pulumi_hyperpod.gcp.cloud:GCP",
}
DETECTION_ORDER = ("gcp", "aws")  # the first cloud that owns a document; AWS last (its loader explains errors)


@runtime_checkable
class Cloud(Protocol):
    name: str  # the registry's key: "aws", "gcp"
    title: str  # for people: "Amazon SageMaker HyperPod"

    def owns(self, document: Any) -> bool: ...

    def connect(self, backend: str) -> Any: ...

    def load_spec(self, path: str, **context: Any) -> Any: ...

    def read(self, client: Any, name: str) -> Any: ...

    def read_inputs(self, client: Any, desired: Any, observed: Any, context: Any) -> tuple[Any, Any]: ...

    def plan(self, desired: Any, observed: Any, policy: "Policy", context: Any = None) -> "Plan": ...

    def annotate(self, plan: "Plan", desired: Any, observed: Any, context: Any) -> "Plan": ...

    def preflight(self, plan: "Plan", desired: Any, observed: Any, client: Any, policy: "Policy", context: Any = None) -> "Plan": ...

    def apply(
        self, client: Any, plan: "Plan", options: "ApplyOptions", *, policy: "Policy | None" = None, context: Any = None
    ) -> "ApplyResult": ...

    def import_(self, client: Any, name: str) -> Any: ...

    def save_plan(self, prepared: "Prepared", path: str, *, target: Any = None, inputs: Any = ()) -> None: ...

    def load_plan(self, path: str, *, target: Any = None) -> "Prepared": ...


class UnknownCloud(LookupError):
    pass


def names() -> tuple[str, ...]:
    return tuple(REGISTRY)


def get(name: str) -> Cloud:
    """The cloud registered as `name`."""
    where = REGISTRY.get(name)
    if where is None:
        raise UnknownCloud(f"no cloud {name!r}; the clouds are {', '.join(REGISTRY)}")
    module, attribute = where.split(":")
    found = getattr(importlib.import_module(module), attribute)
    if not isinstance(found, Cloud):  # a registry entry that does not implement the interface is a bug
        raise TypeError(f"{where} does not implement the Cloud interface")
    return found


def for_document(document: Any) -> Cloud:
    """The cloud a spec document is for, from its shape alone (no I/O)."""
    for name in DETECTION_ORDER:
        cloud = get(name)
        if cloud.owns(document):
            return cloud
    return get(DETECTION_ORDER[-1])


@dataclass(frozen=True, slots=True)
class Prepared:
    """A plan with what it was made from, for any cloud: what a plan file saves and apply needs."""

    cloud: str
    plan: "Plan"
    desired: Any
    observed: Any
    policy: "Policy"
    context: Any = None  # the cloud's context as read_inputs left it (AWS: the Slurm roles, the workload view)


OBSERVE = object()  # prepare(): read the live cluster (the default) rather than a given observation


def prepare(
    cloud: Cloud,
    client: Any,
    desired: Any,
    policy: "Policy",
    *,
    observed: Any = OBSERVE,
    skip_preflight: str | None = None,
    context: Any = None,
) -> Prepared:
    """The pipeline, the same for every cloud: read → the other inputs → plan (+ cost) → the
    cloud's sections → preflight. `observed`: a given observation (a snapshot, or None for no
    cluster) instead of reading; `skip_preflight`: why the account is not read (the plan's
    preflight section says it); `context`: the cloud's typed context."""
    state = cloud.read(client, desired.name) if observed is OBSERVE else observed
    state, context = cloud.read_inputs(client, desired, state, context)
    the_plan = cloud.plan(desired, state, policy, context=context)
    the_plan = cloud.annotate(the_plan, desired, state, context)
    if skip_preflight is None and client is not None:
        the_plan = cloud.preflight(the_plan, desired, state, client, policy, context=context)
    else:
        from pulumi_hyperpod.core.preflight import section  # neutral: the section's shape, no check

        reason = skip_preflight or "no client to read the account with"
        the_plan = dataclasses.replace(the_plan, preflight=section(the_plan, None, [], [], skipped=reason))
    return Prepared(cloud.name, the_plan, desired, state, policy, context)


def deletion(cloud: Cloud, client: Any, name: str, policy: "Policy", *, observed: Any = OBSERVE, context: Any = None) -> Prepared:
    """The plan that deletes cluster `name` (action "none" when there is none); `observed`: the
    cluster as the caller already read it (default: read it now). No account to check: a delete
    adds nothing."""
    state = cloud.read(client, name) if observed is OBSERVE else observed
    return Prepared(cloud.name, cloud.plan(None, state, policy, context=context), None, state, policy, context)


def execute(
    cloud: Cloud,
    client: Any,
    prepared: Prepared | "Plan",
    options: "ApplyOptions | None" = None,
    *,
    policy: "Policy | None" = None,
    context: Any = None,
) -> "ApplyResult":
    """Apply a prepared plan (or a Plan) through its cloud, under the one contract. `policy` and
    `context`: the guards apply checks again and the cloud's context for the apply (default: the
    ones the plan was prepared with)."""
    from pulumi_hyperpod.core.contract import ApplyOptions

    the_plan = prepared.plan if isinstance(prepared, Prepared) else prepared
    if isinstance(prepared, Prepared):
        policy = policy if policy is not None else prepared.policy
        context = context if context is not None else prepared.context
    return cloud.apply(client, the_plan, options or ApplyOptions(), policy=policy, context=context)
