"""The desired cluster (spec): models, loading, validation."""

from .documents import MAX_BYTES, parse_document, read_document
from .errors import InputError, PolicyError, SnapshotError, SpecError
from .models import BUILD_FIELDS, ClusterSpec, InstanceGroupSpec

__all__ = ["BUILD_FIELDS", "MAX_BYTES", "ClusterSpec", "InputError", "InstanceGroupSpec", "PolicyError", "SnapshotError",
           "SpecError", "parse_document", "read_document"]
