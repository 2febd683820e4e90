"""The wire: botocore's prepared HTTP request in, `AWSResponse` out (moto's responses.py role).

The simulator sits on a real client's `before-send` event, so botocore serialises the request,
and parses, raises and retries the answer exactly as it would for AWS. This module only speaks the
AWS JSON 1.1 protocol (`X-Amz-Target: SageMaker.<Op>`, JSON body, `{"__type", "message"}` errors)
and injects the scenario's wire faults; the operations themselves never see HTTP.

Adding a simulated service is one module with an `OPERATIONS` table plus one line in `SERVICES`.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from pulumi_hyperpod.sim.aws import reconcile
from pulumi_hyperpod.sim.aws.body import RawBody
from pulumi_hyperpod.sim.aws.errors import (
    InternalFailure,
    SerializationException,
    ServiceError,
    ServiceUnavailable,
    ThrottlingException,
    UnknownOperation,
)
from pulumi_hyperpod.sim.aws.sagemaker import OPERATIONS as SAGEMAKER_OPERATIONS
from pulumi_hyperpod.sim.aws.quotas import OPERATIONS as QUOTA_OPERATIONS
from pulumi_hyperpod.sim.aws.world import World

if TYPE_CHECKING:  # pragma: no cover
    from botocore.awsrequest import AWSResponse

Operation = Callable[[World, str, dict], dict]

# service name (botocore's, e.g. "sagemaker", "service-quotas") -> operation name -> implementation
SERVICES: dict[str, dict[str, Operation]] = {"sagemaker": SAGEMAKER_OPERATIONS, "service-quotas": QUOTA_OPERATIONS}

# Called with (operation, parsed response, service) after every successful call of a simulator
# client; the conformance tests use it to validate every response against botocore's output shapes.
OBSERVERS: list[Callable[[str, dict, str], None]] = []

JSON_PROTOCOLS = ("json", "rest-json")


class NotSimulatedError(RuntimeError):
    """A service the simulator does not answer, whose protocol cannot carry a JSON error."""


def decode(request: Any) -> tuple[str, dict]:
    """(operation name, params) of a botocore AWSPreparedRequest using the JSON protocol."""
    target = request.headers.get("X-Amz-Target") or b""
    if isinstance(target, bytes):
        target = target.decode()
    operation = target.rpartition(".")[2]
    body = request.body or b"{}"
    if hasattr(body, "read"):
        body = body.read()
    try:
        params = json.loads(body.decode() if isinstance(body, bytes) else body or "{}")
    except (ValueError, UnicodeDecodeError):  # the decoder's text (line, column, its class) is not the client's business
        raise SerializationException("The request body is not valid JSON (UTF-8 JSON text is expected).") from None
    if not isinstance(params, dict):
        kind = "array" if isinstance(params, list) else "string" if isinstance(params, str) else "value"
        raise SerializationException(f"The request body is a JSON {kind}, not an object of the operation's members.")
    return operation, params


def encode(url: str, status: int, payload: dict, request_id: str) -> AWSResponse:
    from botocore.awsrequest import AWSResponse  # noqa: PLC0415 - botocore in the preview's provider path: only a client's (or `fake serve`'s) answer travels as HTTP

    body = body_of(payload)
    return AWSResponse(url, status, headers(request_id, body, error_code(status, payload)), RawBody(body))


def body_of(payload: dict) -> bytes:
    return json.dumps(payload, separators=(",", ":")).encode()


def headers(request_id: str, body: bytes, error: str | None = None) -> dict[str, str]:
    """The HTTP headers of an answer with `body`; `error`: its error code, in a header too, as the JSON
    services send it (botocore reads either)."""
    answer = {"x-amzn-RequestId": request_id, "Content-Type": "application/x-amz-json-1.1", "Content-Length": str(len(body))}
    if error is not None:
        answer["x-amzn-ErrorType"] = error
    return answer


def error_code(status: int, payload: dict) -> str | None:
    """The error code of an answer (None: it is not an error)."""
    return payload.get("__type") if status >= 300 else None


def error_payload(error: ServiceError) -> dict:
    return {"__type": error.code, "message": error.message}


def _fault(world: World) -> ServiceError | None:
    rng = world.fault_rng
    throttle_rate, server_error_rate = world.setting("faults", "throttle_rate"), world.setting("faults", "server_error_rate")
    if throttle_rate and rng.random() < throttle_rate:
        return ThrottlingException("Rate exceeded")
    if server_error_rate and rng.random() < server_error_rate:
        if rng.random() < 0.5:
            return InternalFailure("We encountered an internal error. Please try again.")
        return ServiceUnavailable("Service is temporarily unavailable. Please try again.")
    return None


def dispatch(world: World, service: str, operation: str, region: str, params: dict) -> tuple[int, dict]:
    """Run one request against the world (already caught up to now): (HTTP status, JSON payload)."""
    try:
        operations = SERVICES.get(service)
        if operations is None:
            raise UnknownOperation(
                f"The HyperPod simulator does not simulate the {service} service "
                f"(operation {operation}); simulated services: {', '.join(SERVICES)}."
            )
        handler = operations.get(operation)
        if handler is None:
            raise UnknownOperation(
                f"{operation} is not simulated by the HyperPod simulator; simulated {service} operations: {', '.join(operations)}."
            )
        fault = _fault(world)
        if fault is not None:
            raise fault
        result = handler(world, region, params)
        reconcile.reconcile_pending(world)
        return 200, result
    except ServiceError as error:
        reconcile.reconcile_pending(world)
        return error.status, error_payload(error)


def notify(operation: str, parsed: dict, service: str = "sagemaker") -> None:
    if OBSERVERS:
        body = {key: value for key, value in parsed.items() if key != "ResponseMetadata"}
        for observer in list(OBSERVERS):
            observer(operation, body, service)
