"""The read client of the in-process simulator: a preview's reads without botocore's client.

A preview's `diff` observes the cluster in a new provider process through `connect(backend="fake",
reads=True)`. A botocore client there only serializes each request for the simulator (on
`before-send`) to decode again, and costs the process `botocore.session` and `botocore.client`
(~40 ms to import), the client's creation (~17 ms) and, per page, signing, hooks and request
building (about half of a 5,000-node ListClusterNodes walk). So for the operations a preview reads
(specshapes.READ_OPERATIONS) this client does what the botocore client does, with botocore's own
pieces but not its client:

- a request is validated and serialized by botocore's serializer (`ParamValidationError` as the
  client raises it) and decoded as the simulator decodes the wire; the simulator answers it through
  the same dispatch (its server-side validation included) and the same poll tracking;
- an answer is parsed by botocore's JSON parser (ResponseMetadata, errors and modeled error fields)
  with the simulator's parsed form of a successful body (fake/parsed.py), as the botocore path gets it;
- a service error raises the class `client.exceptions` holds for its code (botocore's error factory
  over the cut model), with the same `response` and operation name;
- retries are botocore's standard mode (`botocore.retries.standard`, the client's default here),
  with the attempts `connect` asks for;
- paginators are botocore's `Paginator` over these methods, with the model's paginator configuration
  (readclient.read_paginators).

Anything else — another operation, its paginator, a waiter — goes to the full botocore client,
made on first need (`full()`), as the cut client does (readclient.with_fallback).
tests/unit/sim/aws/test_direct.py holds every answer and error to the botocore client's.
"""

from __future__ import annotations

import json
import threading
from types import SimpleNamespace
from typing import Any, Callable, Optional

from botocore import xform_name
from botocore.hooks import HierarchicalEmitter, first_non_none_response
from botocore.paginate import Paginator
from botocore.parsers import PROTOCOL_PARSERS
from botocore.retries import standard
from botocore.serialize import create_serializer

from pulumi_hyperpod.aws.sessions import parse_timestamp
from pulumi_hyperpod.sim.aws import wire
from pulumi_hyperpod.sim.aws.clock import PollTracker
from pulumi_hyperpod.sim.aws.parsed import converter

PROTOCOL = "json"  # the one wire the simulator's sagemaker speaks (fake/wire.py)


class Meta:
    """What a caller reads of `client.meta` (botocore's ClientMeta), plus the flags the callers set."""

    def __init__(self, region_name: str, service_model: Any) -> None:
        self.region_name = region_name
        self.service_model = service_model
        self.hyperpod_cut = True  # built on the cut model, as readclient's client is
        self.hyperpod_direct = True


class _Answer:
    """The HTTP response the retry rules look at (status and headers) for one attempt."""

    def __init__(self, status_code: int, headers: dict[str, str]) -> None:
        self.status_code = status_code
        self.headers = headers


class DirectReadClient:
    """The read operations of a sagemaker client, answered by `simulator` in this process."""

    def __init__(
        self,
        simulator: Any,
        region: str,
        service_model: Any,
        paginators: dict[str, dict],
        all_operations: frozenset[str],
        max_attempts: int,
        full: Callable[[], Any],
    ) -> None:
        self.meta = Meta(region, service_model)
        self._simulator = simulator
        self._paginators = {xform_name(name): config for name, config in paginators.items()}
        self._all_operations = all_operations
        self._known: Optional[set[str]] = None  # their method names, made on the first call outside the reads
        self._polls = PollTracker(None)  # the scenario's window, read in the client's first call
        self._serializer = create_serializer(PROTOCOL, include_validation=True)
        self._parser = PROTOCOL_PARSERS[PROTOCOL](timestamp_parser=parse_timestamp)
        # botocore's standard retry handler, registered as on a client, on events only it listens to
        self._events = HierarchicalEmitter()
        self._event_id = service_model.service_id.hyphenize()
        standard.register_retry_handler(
            SimpleNamespace(meta=SimpleNamespace(service_model=service_model, events=self._events)), max_attempts
        )
        self._full = full
        self._made: list[Any] = []
        self._lock = threading.Lock()
        self._exceptions: Any = None

    # -- what the botocore client offers -------------------------------------------------------------
    @property
    def exceptions(self) -> Any:
        """botocore's modeled error classes for the cut model (what the cut client's `exceptions` holds)."""
        if self._exceptions is None:
            from botocore.errorfactory import ClientExceptionsFactory

            self._exceptions = ClientExceptionsFactory().create_client_exceptions(self.meta.service_model)
        return self._exceptions

    def can_paginate(self, operation_name: str) -> bool:
        if operation_name in READ_METHODS:
            return operation_name in self._paginators
        return bool(self._full_client().can_paginate(operation_name))

    def get_paginator(self, operation_name: str) -> Any:
        if operation_name not in READ_METHODS:
            return self._full_client().get_paginator(operation_name)
        if operation_name not in self._paginators:
            from botocore.exceptions import OperationNotPageableError

            raise OperationNotPageableError(operation_name=operation_name)
        model = self.meta.service_model.operation_model(READ_METHODS[operation_name])
        return _paginator_class(model.name)(getattr(self, operation_name), self._paginators[operation_name], model)

    def get_waiter(self, waiter_name: str) -> Any:
        return self._full_client().get_waiter(waiter_name)

    def close(self) -> None:
        if self._made:
            self._made[0].close()

    def __getattr__(self, name: str) -> Any:
        if not name.startswith("_") and self._known is None:
            self._known = {xform_name(operation) for operation in self._all_operations}
        if name.startswith("_") or name not in (self._known or ()):
            raise AttributeError(f"'SageMaker' object has no attribute '{name}'")
        return getattr(self._full_client(), name)

    def _full_client(self) -> Any:
        with self._lock:
            if not self._made:
                self._made.append(self._full())
            return self._made[0]

    # -- one call --------------------------------------------------------------------------------
    def _call(self, operation_name: str, params: dict[str, Any]) -> dict[str, Any]:
        model = self.meta.service_model.operation_model(operation_name)
        service, event_id = self.meta.service_model.service_name, self._event_id
        request = self._serializer.serialize_to_request(params, model)  # ParamValidationError as the client raises it
        wire_params = json.loads(request["body"] or b"{}")
        request_context: dict[str, Any] = {}
        attempts = 1
        while True:
            status, payload, request_id = self._simulator.dispatch(service, self.meta.region_name, operation_name, wire_params, self._polls)
            http, parsed = self._parse(model, status, payload, request_id)
            delay = first_non_none_response(
                self._events.emit(
                    f"needs-retry.{event_id}.{operation_name}",
                    response=(http, parsed),
                    endpoint=None,
                    operation=model,
                    attempts=attempts,
                    caught_exception=None,
                    request_dict={"context": request_context},
                )
            )
            if delay is None or delay is False:
                break
            import time

            time.sleep(delay)
            attempts += 1
        parsed["ResponseMetadata"]["RetryAttempts"] = attempts - 1
        self._events.emit(
            f"after-call.{event_id}.{operation_name}", http_response=http, parsed=parsed, model=model, context=request_context
        )
        if status >= 300:
            raise self.exceptions.from_code(parsed.get("Error", {}).get("Code"))(parsed, operation_name)
        wire.notify(operation_name, parsed, service)
        return parsed

    def _parse(self, model: Any, status: int, payload: dict, request_id: str) -> tuple[_Answer, dict[str, Any]]:
        """botocore's parse of the answer: the body `{}` plus the parsed answer when it succeeded (the
        simulator client's `before-parse`), the error body and its modeled fields when it did not."""
        body = wire.body_of(payload if status >= 300 else {})
        headers = {name.lower(): value for name, value in wire.headers(request_id, body, wire.error_code(status, payload)).items()}
        response = {"headers": headers, "status_code": status, "body": body, "context": {"operation_name": model.name}}
        parsed = self._parser.parse(response, model.output_shape)
        if status < 300:
            shape = model.output_shape
            parsed.update(converter(model.service_model.service_name, shape)(payload) if shape is not None else {})
        else:
            error_shape = model.service_model.shape_for_error_code(parsed.get("Error", {}).get("Code"))
            if error_shape is not None:
                parsed.update(self._parser.parse(response, error_shape))
        return _Answer(status, headers), parsed


_classes: dict[str, type] = {}


def _paginator_class(operation_name: str) -> type:
    """botocore's Paginator under the name the botocore client gives it (sagemaker.Paginator.<Operation>)."""
    made = _classes.get(operation_name)
    if made is None:
        made = _classes[operation_name] = type(f"SageMaker.Paginator.{operation_name}", (Paginator,), {})
    return made


def _method(operation_name: str) -> Callable[..., Any]:
    def method(self: DirectReadClient, *args: Any, **kwargs: Any) -> dict[str, Any]:
        if args:  # botocore's client methods take keyword arguments only
            raise TypeError(f"{xform_name(operation_name)}() only accepts keyword arguments.")
        return self._call(operation_name, kwargs)

    method.__name__ = xform_name(operation_name)
    return method


def _read_methods() -> dict[str, str]:
    from pulumi_hyperpod.aws.specshapes import READ_OPERATIONS

    return {xform_name(name): name for name in READ_OPERATIONS}


READ_METHODS = _read_methods()  # python name -> operation, of the reads this client answers itself
for _name, _operation in READ_METHODS.items():
    setattr(DirectReadClient, _name, _method(_operation))


def direct_read_client(simulator: Any, region: str, max_attempts: int, full: Callable[[], Any]) -> Optional[DirectReadClient]:
    """The direct read client, or None when there is no cut model (the model cache turned off): then
    the botocore client serves (Simulator.client)."""
    from pulumi_hyperpod.aws.readclient import cut_shapes, read_paginators

    shapes = cut_shapes()
    if shapes is None or getattr(shapes.model, "protocol", None) != PROTOCOL:
        return None
    paginators = read_paginators()
    if paginators is None:
        return None
    return DirectReadClient(simulator, region, shapes.model, paginators, shapes.all_operations, max_attempts, full)


__all__ = ["DirectReadClient", "direct_read_client"]
