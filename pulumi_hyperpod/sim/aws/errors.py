"""Service errors with the real codes and HTTP statuses, so botocore raises (and retries) as for AWS."""

from __future__ import annotations

from collections.abc import Iterable

from pulumi_hyperpod.core.errors import Violation


class ServiceError(Exception):
    """An error answer: `{"__type": code, "message": message}` with `status`."""

    code = "InternalFailure"
    status = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class ValidationException(ServiceError):
    code, status = "ValidationException", 400

    @classmethod
    def from_violations(cls, violations: Iterable[Violation]) -> ValidationException:
        items = [str(violation) for violation in violations]
        noun = "error" if len(items) == 1 else "errors"
        return cls(f"{len(items)} validation {noun} detected: " + "; ".join(items))

    @classmethod
    def field(cls, path: str, rule: str) -> ValidationException:
        return cls.from_violations([Violation(path, rule)])


class SerializationException(ServiceError):
    """A request body that is not a JSON object (the JSON protocol's own error for it)."""

    code, status = "SerializationException", 400


class ResourceNotFound(ServiceError, LookupError):
    code, status = "ResourceNotFound", 400


class ResourceLimitExceeded(ServiceError):
    code, status = "ResourceLimitExceeded", 400


class ConflictException(ServiceError):
    code, status = "ConflictException", 400


class ResourceInUse(ServiceError):
    code, status = "ResourceInUse", 400


class ThrottlingException(ServiceError):
    code, status = "ThrottlingException", 400


class InternalFailure(ServiceError):
    code, status = "InternalFailure", 500


class ServiceUnavailable(ServiceError):
    code, status = "ServiceUnavailable", 503


class UnknownOperation(ServiceError):
    """An operation (or a whole service) this simulator does not implement."""

    code, status = "UnknownOperationException", 400
