"""google.rpc.Status errors as the API returns them (HTTP status, canonical code name)."""

from __future__ import annotations

from typing import Any

HTTP_STATUS = {
    "INVALID_ARGUMENT": 400,
    "FAILED_PRECONDITION": 400,
    "OUT_OF_RANGE": 400,
    "UNAUTHENTICATED": 401,
    "PERMISSION_DENIED": 403,
    "NOT_FOUND": 404,
    "ALREADY_EXISTS": 409,
    "ABORTED": 409,
    "RESOURCE_EXHAUSTED": 429,
    "INTERNAL": 500,
    "UNIMPLEMENTED": 501,
    "UNAVAILABLE": 503,
}
CODE_NUMBER = {
    "INVALID_ARGUMENT": 3,
    "FAILED_PRECONDITION": 9,
    "OUT_OF_RANGE": 11,
    "UNAUTHENTICATED": 16,
    "PERMISSION_DENIED": 7,
    "NOT_FOUND": 5,
    "ALREADY_EXISTS": 6,
    "ABORTED": 10,
    "RESOURCE_EXHAUSTED": 8,
    "INTERNAL": 13,
    "UNIMPLEMENTED": 12,
    "UNAVAILABLE": 14,
}


class RpcError(Exception):
    def __init__(self, status: str, message: str, field_violations: list[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.field_violations = list(field_violations)

    @property
    def http_status(self) -> int:
        return HTTP_STATUS[self.status]

    def body(self) -> dict[str, Any]:
        """{"error": google.rpc.Status in its JSON form, plus the HTTP code and status name}."""
        error: dict[str, Any] = {"code": self.http_status, "message": self.message, "status": self.status}
        if self.field_violations:
            error["details"] = [
                {
                    "@type": "type.googleapis.com/google.rpc.BadRequest",
                    "fieldViolations": [{"field": f, "description": d} for f, d in self.field_violations],
                }
            ]
        return {"error": error}

    def status_proto(self) -> dict[str, Any]:
        """The google.rpc.Status carried in a failed Operation's `error` (numeric code)."""
        return {"code": CODE_NUMBER[self.status], "message": self.message}


def invalid(field: str, description: str) -> RpcError:
    return RpcError("INVALID_ARGUMENT", f"Invalid field {field}: {description}" if field else description, [(field, description)])
