"""The desired cluster (spec): models, loading, validation."""

from .errors import SpecError
from .models import BUILD_FIELDS, ClusterSpec, InstanceGroupSpec, parse_document

__all__ = ["BUILD_FIELDS", "ClusterSpec", "InstanceGroupSpec", "SpecError", "parse_document"]
