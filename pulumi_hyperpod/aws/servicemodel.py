"""botocore's `sagemaker` service model as the contract.

Limits, enums and patterns are read from the model, never copied into our code (docs/DESIGN.md,
behaviour from data). botocore itself only checks types and required members client-side; the
service checks the rest. `violations()` is that server-side check, shared by the spec (before any
call is made) and the simulator (which answers ValidationException like the real service); it is
built on botocore's ParamValidator in `servicerules`.

Importing this module loads neither botocore nor the model (a Pulumi program imports it to declare
a cluster): the session and the model load with the first lookup, once per process. Until then, a
lookup of what a spec check reads (CreateCluster, UpdateCluster and the shapes they reach) is
answered from those shapes alone, kept on disk (specshapes.py), without the session.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from pulumi_hyperpod.core.errors import Violation  # the neutral (path, rule) pair; the model checks produce them
from pulumi_hyperpod.aws.memberkeys import fold as fold  # exported: the spec's keys and the provider's inputs fold with it
from pulumi_hyperpod.aws.sessions import botocore_session, data_loader as data_loader  # the process's session and loader

SERVICE = "sagemaker"


@lru_cache(maxsize=1)
def service_model():
    return botocore_session().get_service_model(SERVICE)


@lru_cache(maxsize=1)
def _spec_shapes():
    from pulumi_hyperpod.aws.specshapes import load  # noqa: PLC0415 - botocore's loader and model classes: only a spec check reads the cut

    return load()


def model_for(name: str, *, operation: bool = False):
    """The model to read `name` (an operation's, or a shape's) from: the whole model once this process
    loaded it; before that, the spec's shapes (specshapes.py) when they hold the name, so checking a
    spec loads neither the session nor the 2.6 MB model. The two give the same shapes."""
    if service_model.cache_info().currsize:
        return service_model()
    small = _spec_shapes()
    if small is not None and name in (small.operations if operation else small.shapes):
        return small.model
    return service_model()


def has_operation(name: str) -> bool:
    """Whether `name` is one of the model's operations (else it names a shape)."""
    small = None if service_model.cache_info().currsize else _spec_shapes()
    if small is not None and (name in small.operations or name in small.shapes):
        return name in small.all_operations
    return name in service_model().operation_names


def input_shape(operation: str):
    return model_for(operation, operation=True).operation_model(operation).input_shape


def output_shape(operation: str):
    return model_for(operation, operation=True).operation_model(operation).output_shape


def shape(name: str):
    return model_for(name).shape_for(name)


def member_shape(structure: str, *path: str):
    """The shape at `structure.member.member…` (lists step into their member)."""
    current = shape(structure)
    for name in path:
        if current.type_name == "list":
            current = current.member
        current = current.members[name]
    return current


def limit(structure: str, *path: str, key: str = "max") -> int:
    """A numeric limit of the model, e.g. limit("BatchAddClusterNodesRequest", "NodesToAdd")."""
    return member_shape(structure, *path).metadata[key]


# Limits the API reference states in words, which the model's numbers alone do not carry:
# - BatchAddClusterNodes.NodesToAdd: "up to 5 instance groups in a single request, with a maximum of
#   50 nodes total across all instance groups";
# - BatchDeleteClusterNodes.NodeIds: "If you need to delete more than 99 instances, contact Support";
# - BatchDeleteClusterNodes.NodeLogicalIds: "up to 50 NodeLogicalIds … NodeLogicalIds, InstanceIds,
#   or both, with a combined maximum of 50 identifiers".
_DOCUMENTED = {"add_total": 50, "delete_ids": 99, "delete_logical_ids": 50, "delete_combined": 50}


def api_limits() -> dict[str, int]:
    """Per-call limits: the service model's numbers (docs/DESIGN.md: behaviour from data), tightened by
    what its documentation states in words; a botocore upgrade that lowers a number still wins."""
    model = {
        "add_increment": limit("AddClusterNodeSpecification", "IncrementTargetCountBy"),
        "add_entries": limit("BatchAddClusterNodesRequest", "NodesToAdd"),
        "add_total": limit("AddClusterNodeSpecification", "IncrementTargetCountBy"),
        "delete_ids": limit("BatchDeleteClusterNodesRequest", "NodeIds"),
        "delete_logical_ids": limit("BatchDeleteClusterNodesRequest", "NodeLogicalIds"),
        "delete_combined": limit("BatchDeleteClusterNodesRequest", "NodeLogicalIds"),
    }
    return {key: min(value, _DOCUMENTED.get(key, value)) for key, value in model.items()}


def enum(structure: str, *path: str) -> list[str]:
    return list(member_shape(structure, *path).enum)


def violations(
    shape_or_operation, params: Any, path: str = "", *, check_required: bool = True, allow_unknown: bool = False
) -> list[Violation]:
    """Every way `params` breaks the model's rules for the shape (or an operation's input): see
    `servicerules.violations`."""
    from pulumi_hyperpod.aws.servicerules import violations as check  # noqa: PLC0415 - botocore's validator and regex: declaring a cluster checks nothing

    target = shape_or_operation
    if isinstance(shape_or_operation, str):
        target = input_shape(shape_or_operation) if has_operation(shape_or_operation) else shape(shape_or_operation)
    return check(target, params, path, check_required=check_required, allow_unknown=allow_unknown)
