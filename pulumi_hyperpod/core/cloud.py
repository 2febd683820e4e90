"""What "a cloud" is, defined once: the `Cloud` interface and the registry that finds them.

The model is Terraform's provider interface (internal/providers): a provider reads a resource,
plans a change to it, applies a plan and imports an existing one, each over typed data. Here:

    read(client, name)                          → the cloud's observed cluster, or None
    plan(desired, observed, policy, **context)  → a Plan (pure: planner rules, then its cost)
    preflight(plan, desired, observed, client, policy) → the Plan with its preflight section (reads the account)
    apply(client, plan, options)                → ApplyResult (core/contract.py: one contract)
    import_(client, name)                       → the observed cluster (an error when there is none)

plus what a front end needs to get there: `owns(document)` (is this spec file for me?),
`connect(backend)` and `load_spec(path, **context)`. The pipeline (plan → cost → preflight →
save | apply) is `prepare` below, the same for every cloud.

The registry names each cloud's module; a cloud is imported only when asked for (a HyperPod
command never imports the Google Cloud package).
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:  # pragma: no cover
    from ..plan.model import Plan
    from ..plan.policy import Policy
    from .contract import ApplyOptions, ApplyResult

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

    def plan(self, desired: Any, observed: Any, policy: "Policy", **context: Any) -> "Plan": ...

    def preflight(self, plan: "Plan", desired: Any, observed: Any, client: Any, policy: "Policy") -> "Plan": ...

    def apply(self, client: Any, plan: "Plan", options: "ApplyOptions") -> "ApplyResult": ...

    def import_(self, client: Any, name: str) -> Any: ...


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


@dataclass(frozen=True)
class Prepared:
    """A plan with what it was made from, for any cloud: what a plan file saves and apply needs."""

    cloud: str
    plan: "Plan"
    desired: Any
    observed: Any
    policy: "Policy"


OBSERVE = object()  # prepare(): read the live cluster (the default) rather than a given observation


def prepare(
    cloud: Cloud, client: Any, desired: Any, policy: "Policy", *, observed: Any = OBSERVE, skip_preflight: str | None = None, **context: Any
) -> Prepared:
    """The pipeline, the same for every cloud: read → plan (+ cost) → preflight. `observed`: a
    given observation (a snapshot, or None for no cluster) instead of reading; `skip_preflight`:
    why the account is not read (the plan's preflight section says it)."""
    state = cloud.read(client, desired.name) if observed is OBSERVE else observed
    the_plan = cloud.plan(desired, state, policy, **context)
    if skip_preflight is None and client is not None:
        the_plan = cloud.preflight(the_plan, desired, state, client, policy)
    else:
        from .preflight import section  # neutral: the section's shape, no check

        reason = skip_preflight or "no client to read the account with"
        the_plan = dataclasses.replace(the_plan, preflight=section(the_plan, None, [], [], skipped=reason))
    return Prepared(cloud.name, the_plan, desired, state, policy)


def execute(cloud: Cloud, client: Any, prepared: Prepared | "Plan", options: "ApplyOptions | None" = None) -> "ApplyResult":
    """Apply a prepared plan (or a Plan) through its cloud, under the one contract."""
    from .contract import ApplyOptions

    the_plan = prepared.plan if isinstance(prepared, Prepared) else prepared
    return cloud.apply(client, the_plan, options or ApplyOptions())
