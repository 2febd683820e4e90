"""A sagemaker client for observing a cluster, built on the preview's shapes rather than the whole model.

A preview's `diff` reads the cluster (specshapes.READ_OPERATIONS) in a new process each time. A
botocore client is built from its service model: the whole sagemaker model is 2.6 MB (loaded even
from `modelcache` it is the larger part of making the client) and becomes ~390 operation methods.
The reads need a handful of operations, whose shapes are already cut and kept on disk for `check`
(specshapes.py: the model's own JSON, keyed by the botocore, package and data-path versions and
the model file it was cut from). So the client here is botocore's own client class, made by the
session as usual, except that the session's loader hands it that cut JSON for the sagemaker
service model; everything else (endpoint rules, partitions, paginators, waiters, retries) comes
from botocore's files through the same loader. Answers are parsed by the same shapes, and the
simulator validates requests and answers against them (servicemodel answers from the cut too).

A call outside the cut is not an error: the first such method, paginator or waiter builds the
full client (`full()`, from a fresh session, as `connect` makes one) and the call goes there.
Exceptions a cut client raises are its own model's (the errors of the operations it holds),
ResourceNotFound included; a call that went to the full client raises that client's classes.
On the in-process simulator, `connect` hands out fake/direct.py's client instead, on the same cut
and the paginator configuration kept here (`read_paginators`).
"""

from __future__ import annotations

from typing import Any, Callable

from pulumi_hyperpod.aws import specshapes

SERVICE = specshapes.SERVICE


class CutLoader:
    """botocore's loader, except that the sagemaker service model is the cut one (api_version unset:
    the latest, which is the one the cut was made from)."""

    def __init__(self, loader: Any, description: dict[str, Any]) -> None:
        self._loader = loader
        self._description = description

    def load_service_model(self, service_name: str, type_name: str, api_version: str | None = None) -> Any:
        if service_name == SERVICE and type_name == specshapes.TYPE and api_version is None:
            return self._description
        return self._loader.load_service_model(service_name, type_name, api_version=api_version)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


def cut_shapes() -> "specshapes.SpecShapes | None":
    """The preview's shapes, or None when the model cache is turned off (then a full client is made)."""
    from pulumi_hyperpod.aws.servicemodel import _spec_shapes

    return _spec_shapes()


def use_cut(session: Any) -> bool:
    """Give `session` the cut sagemaker model for the clients it makes; False when there is none."""
    shapes = cut_shapes()
    if shapes is None:
        return False
    session.register_component("data_loader", CutLoader(session.get_component("data_loader"), shapes.description))
    return True


def with_fallback(client: Any, full: Callable[[], Any]) -> Any:
    """A call to an operation the cut client lacks goes to `full()` (made once, on the first such call)."""
    from botocore import xform_name

    shapes = cut_shapes()
    held = {xform_name(name) for name in client.meta.service_model.operation_names}
    known = {xform_name(name) for name in (shapes.all_operations if shapes is not None else ())}
    made: list[Any] = []

    def full_client() -> Any:
        if not made:
            made.append(full())
        return made[0]

    def method(event_name: str = "", **_: Any) -> Any:
        item = event_name.rsplit(".", 1)[-1]
        return getattr(full_client(), item) if item in known and item not in held else None

    client.meta.events.register(f"getattr.{client.meta.service_model.service_id.hyphenize()}", method)
    cut_paginator, cut_can_paginate, cut_waiter = client.get_paginator, client.can_paginate, client.get_waiter

    def get_paginator(operation_name: str) -> Any:
        return cut_paginator(operation_name) if operation_name in held else full_client().get_paginator(operation_name)

    def can_paginate(operation_name: str) -> bool:
        return cut_can_paginate(operation_name) if operation_name in held else full_client().can_paginate(operation_name)

    def get_waiter(waiter_name: str) -> Any:
        waiter = cut_waiter(waiter_name)
        return waiter if xform_name(waiter.config.operation) in held else full_client().get_waiter(waiter_name)

    client.get_paginator, client.can_paginate, client.get_waiter = get_paginator, can_paginate, get_waiter
    client.meta.hyperpod_cut = True  # tests and the bench: this client is the cut one
    return client


PAGINATORS_PREFIX = "read-paginators-"


def read_paginators() -> "dict[str, dict[str, Any]] | None":
    """The model's paginator configuration of the read operations (sagemaker's paginators-1, as a
    client's `get_paginator` reads it), for the simulator's direct read client (fake/direct.py).
    Kept on disk beside the cut model, keyed as it is and checked against the file it was read from,
    so a preview's process reads it without botocore's session; None when the model cache is off."""
    from pulumi_hyperpod.aws.modelcache import _MISSING, _read, _write, cache_dir
    from pulumi_hyperpod.aws.specshapes import _stat, entry_key

    directory = cache_dir()
    if directory is None:
        return None
    key = PAGINATORS_PREFIX + entry_key()
    entry = _read(directory, key)
    if entry is not _MISSING and isinstance(entry, dict) and isinstance(entry.get("pagination"), dict):
        source = entry.get("source")
        if isinstance(source, list) and len(source) == 3 and isinstance(source[0], str) and _stat(source[0]) == source[1:]:
            return entry["pagination"]
    source, pagination = _paginators_from_botocore()
    _write(directory, key, {"source": source, "pagination": pagination}, replaces=PAGINATORS_PREFIX)
    return pagination


def _paginators_from_botocore() -> "tuple[list[Any], dict[str, dict[str, Any]]]":
    import os

    from pulumi_hyperpod.aws.modelcache import _plain
    from pulumi_hyperpod.aws.servicemodel import botocore_session
    from pulumi_hyperpod.aws.specshapes import _stat

    loader = botocore_session().get_component("data_loader")
    version = loader.determine_latest_version(SERVICE, "paginators-1")
    _, path = loader.load_data_with_path(os.path.join(SERVICE, version, "paginators-1"))
    found = next((path + suffix for suffix in (".json", ".json.gz") if os.path.isfile(path + suffix)), path)
    pagination = loader.load_service_model(SERVICE, "paginators-1")["pagination"]
    kept = {name: _plain(pagination[name]) for name in specshapes.READ_OPERATIONS if name in pagination}
    return [found, *_stat(found)], kept
