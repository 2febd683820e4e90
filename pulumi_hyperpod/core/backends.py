"""What answers a cloud's client: the one registry every `connect(backend=...)` resolves through.

A backend is a name a user types (`--backend fake`, `backend="fake"` on a resource, the config key
`hyperpod:backend`) for one cloud: the real service, or its simulator (`pulumi_hyperpod.sim`). Each
names its factory as "module:function", imported only when a client is made, so the registry
imports no cloud (tests/quality/test_layers.py) and choosing the real cloud loads no simulator.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any
from collections.abc import Callable


@dataclass(frozen=True, slots=True)
class Backend:
    cloud: str  # core/cloud.py's name of the cloud ("aws", "gcp")
    name: str  # what users type; the first of its names
    factory: str  # "module:function" making the client (the cloud's keyword arguments)
    simulated: bool  # answered by a simulator in this process (its clock, its fast polls)
    aliases: tuple[str, ...] = ()

    def load(self) -> Callable[..., Any]:
        module, _, function = self.factory.partition(":")
        made: Callable[..., Any] = getattr(importlib.import_module(module), function)
        return made


REGISTRY: tuple[Backend, ...] = (
    Backend("aws", "aws", "pulumi_hyperpod.aws.client:service_client", simulated=False),
    Backend("aws", "fake", "pulumi_hyperpod.aws.client:simulated_client", simulated=True, aliases=("sim",)),
    Backend("gcp", "gcp", "pulumi_hyperpod.gcp.client:service_client", simulated=False),
    Backend("gcp", "fake", "pulumi_hyperpod.gcp.client:simulated_client", simulated=True, aliases=("sim",)),
)


def names(cloud: str) -> tuple[str, ...]:
    """The backends of `cloud` by their first names (what the CLI and the provider offer)."""
    return tuple(backend.name for backend in REGISTRY if backend.cloud == cloud)


def resolve(cloud: str, name: str) -> Backend:
    """The backend `name` (or an alias of one) of `cloud`; ValueError, one line, naming the choices."""
    for backend in REGISTRY:
        if backend.cloud == cloud and name in (backend.name, *backend.aliases):
            return backend
    raise ValueError(f"backend must be one of {', '.join(names(cloud))}; got {name!r}")


def is_simulated(cloud: str, name: str) -> bool:
    return resolve(cloud, name).simulated
