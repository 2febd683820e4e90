"""The desired cluster (spec): models, loading, validation.

Names load on first use (PEP 562): the errors or the document reader alone do not pull in the
models and the service model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.documents import MAX_BYTES, parse_document, read_document
    from pulumi_hyperpod.core.errors import InputError, PolicyError, SnapshotError, SpecError
    from pulumi_hyperpod.aws.spec.models import BUILD_FIELDS, AnyGroupSpec, ClusterSpec, InstanceGroupSpec, RestrictedInstanceGroupSpec

_EXPORTS = {
    **dict.fromkeys(["MAX_BYTES", "parse_document", "read_document"], "pulumi_hyperpod.core.documents"),
    **dict.fromkeys(["InputError", "PolicyError", "SnapshotError", "SpecError"], "pulumi_hyperpod.core.errors"),
    **dict.fromkeys(
        ["BUILD_FIELDS", "AnyGroupSpec", "ClusterSpec", "InstanceGroupSpec", "RestrictedInstanceGroupSpec"],
        "pulumi_hyperpod.aws.spec.models",
    ),
}

__all__ = [
    "BUILD_FIELDS",
    "MAX_BYTES",
    "AnyGroupSpec",
    "ClusterSpec",
    "InputError",
    "InstanceGroupSpec",
    "PolicyError",
    "RestrictedInstanceGroupSpec",
    "SnapshotError",
    "SpecError",
    "parse_document",
    "read_document",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
