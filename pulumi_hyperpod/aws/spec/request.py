"""A cluster spec checked as the request it becomes, without building the spec models.

`checked_request` is the whole of a spec's validation (ClusterSpec runs it before it builds anything):
keys spelled the model's way, every rule of the service model, the cross-field rules (rules.py, and the
model's sentences in documented.py), one
problem per field. A request that passes has exactly the members, types and values the models
declare (every enum the models spell as a Literal is the service model's own, and every member they
require the model requires), so the models are built from it by conversion alone, and `api_request`
gives what `ClusterSpec.to_api()` would without building them: a provider's `check` needs the
canonical request, not the models.
"""

from __future__ import annotations

from typing import Any

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.aws.spec.keys import to_model_keys
from pulumi_hyperpod.aws.spec import documented, extensions
from pulumi_hyperpod.aws.spec.rules import spec_rules

OPERATION = "CreateCluster"


def checked_request(data: dict[str, Any]) -> tuple[dict[str, Any], list[Violation]]:
    """The request with the model's key spelling, and every problem with it (none: it is valid).
    A spec's `Extensions` is no member of CreateCluster's input: it is taken out before the model
    check, checked against CreateClusterExtension's (spec/extensions.py), and put back as `Extensions`."""
    data, wanted = extensions.split(data)
    request = to_model_keys(servicemodel.input_shape(OPERATION), data)
    problems = _first_per_field(servicemodel.violations(OPERATION, request), spec_rules(request) + documented.violations(request))
    entries, extension_problems = extensions.checked(wanted, request)
    if entries is not None:
        request = {**request, extensions.KEY: entries}
    return request, _unique(problems + extension_problems)


def api_request(request: dict[str, Any]) -> dict[str, Any]:
    """`ClusterSpec.from_dict(request).to_api()` of a request `checked_request` passed, with no
    null in it (a property bag's nulls are dropped before), its Extensions included: the same members and values (the
    models' empty InstanceGroups, a cluster of restricted groups only, is left out as the model
    requires: at least one entry when given)."""
    return dict(request)


def _first_per_field(model: list[Violation], rules: list[Violation]) -> list[Violation]:
    """One problem per field: the model's first, except that a documented rule explains a field
    the model only calls unknown (InstanceGroupsToDelete in a desired spec) better."""
    explained = {p.path for p in rules}
    kept = [p for p in model if not (p.path in explained and p.rule.startswith("is not a known field"))]
    broken = {p.path for p in kept}
    return kept + [p for p in rules if p.path not in broken]


def _unique(problems: list[Violation]) -> list[Violation]:
    seen: dict[tuple[str, str], Violation] = {}
    for problem in problems:
        seen.setdefault((problem.path, problem.rule), problem)
    return list(seen.values())
