"""A cluster spec's `Extensions`: the cluster extensions it wants (docs/specs.md, "Extensions").

`Extensions` is not a member of CreateCluster's input: extensions are installed by their own calls
(CreateClusterExtension, UpdateClusterExtension, DeleteClusterExtension) once the cluster exists. So
the list is taken out of the spec before the CreateCluster request is checked against the model
(`split`), and each entry is checked on its own against CreateClusterExtension's input (`violations`):
an entry is that request without the members the plan sets — `ClusterArn` (the cluster's) and
`ClientToken` (derived from the plan at apply). Then the rules the model states in words: one
extension of a name per cluster, and only on a Slurm cluster with `NodeProvisioningMode: Continuous`
(CreateClusterExtension's documentation and its ClusterArn member's), and `ConfigurationValues` is
"a JSON object serialized as a string".

A spec without the key leaves the cluster's extensions alone; `Extensions: []` removes them all.
"""

from __future__ import annotations

import json
from typing import Any

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.servicemodel import fold
from pulumi_hyperpod.aws.spec.keys import to_model_keys
from pulumi_hyperpod.aws.spec.rules import CONTINUOUS, orchestrator_kind
from pulumi_hyperpod.core.errors import Violation

KEY = "Extensions"
OPERATION = "CreateClusterExtension"
SET_BY_PLAN = ("ClusterArn", "ClientToken")  # CreateClusterExtension's members the plan fills in
MEMBERS = ("ExtensionName", "ExtensionVersion", "ConfigurationValues", "Tags")
# a valid ARN the entry is checked with, so the model's required ClusterArn is not reported
_ANY_CLUSTER = "arn:aws:sagemaker:us-east-1:000000000000:cluster/aaaaaaaaaaaa"
ONLY_ON = "extensions go only on a Slurm cluster with NodeProvisioningMode Continuous (CreateClusterExtension)"


def split(data: dict[str, Any]) -> tuple[dict[str, Any], Any]:
    """(the spec without its Extensions, the Extensions as written; `None` when the key is absent).
    Either spelling (`Extensions`, `extensions`) is the key; both given are left in the spec, where
    the CreateCluster check names the one it does not know."""
    keys = [key for key in data if isinstance(key, str) and fold(key) == fold(KEY)]
    if len(keys) != 1:
        return data, None
    rest = {key: value for key, value in data.items() if key != keys[0]}
    return rest, data[keys[0]]


def checked(extensions: Any, request: dict[str, Any]) -> tuple[list[dict[str, Any]] | None, list[Violation]]:
    """The Extensions spelled the model's way, and every problem with them. `request`: the
    CreateCluster request they go with (its orchestrator and provisioning mode)."""
    if extensions is None:
        return None, []
    if not isinstance(extensions, list):
        return None, [Violation(KEY, f"must be a list of extensions, got {type(extensions).__name__}")]
    shape = servicemodel.input_shape(OPERATION)
    entries = [to_model_keys(shape, entry) for entry in extensions]
    problems: list[Violation] = []
    seen: dict[str, int] = {}
    for index, entry in enumerate(entries):
        where = f"{KEY}[{index}]"
        if not isinstance(entry, dict):
            problems.append(Violation(where, f"must be an object, got {type(entry).__name__}"))
            continue
        problems += _entry_problems(entry, where)
        name = entry.get("ExtensionName")
        if isinstance(name, str):
            if name in seen:
                problems.append(
                    Violation(f"{where}.ExtensionName", f"{name} is also {KEY}[{seen[name]}]: a cluster has one extension of a name")
                )
            seen.setdefault(name, index)
    if entries and (orchestrator_kind(request) != "Slurm" or request.get("NodeProvisioningMode") != CONTINUOUS):
        problems.append(Violation(KEY, ONLY_ON))
    return entries, problems


def _entry_problems(entry: dict[str, Any], where: str) -> list[Violation]:
    problems = [
        Violation(f"{where}.{key}", f"is set by the plan, not the spec ({OPERATION}'s {key})") for key in SET_BY_PLAN if key in entry
    ]
    if problems:
        return problems
    if "ExtensionName" not in entry:
        return [Violation(f"{where}.ExtensionName", "is required")]
    request = {"ClusterArn": _ANY_CLUSTER, **entry}
    for problem in servicemodel.violations(OPERATION, request, where):
        rule = problem.rule
        if rule.startswith("is not a known field"):
            rule = f"is not a known field (allowed: {', '.join(MEMBERS)})"
        problems.append(Violation(problem.path, rule))
    configuration = entry.get("ConfigurationValues")
    if isinstance(configuration, str) and not any(p.path == f"{where}.ConfigurationValues" for p in problems):
        try:
            parsed = json.loads(configuration)
        except ValueError:
            parsed = None
        if not isinstance(parsed, dict):
            problems.append(Violation(f"{where}.ConfigurationValues", "must be a JSON object serialized as a string"))
    return problems
