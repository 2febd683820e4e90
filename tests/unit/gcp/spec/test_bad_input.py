"""Adversarial specs: any value at any place of seed 002's body either loads or fails with a
GcpSpecError naming a field path — never another exception, never a traceback."""

from __future__ import annotations

import copy
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.gcp.spec import ClusterSpec, GcpSpecError

from tests.support.gcp import EXAMPLE

BASE = json.loads(EXAMPLE.read_text())


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*prefix, index))


PATHS = [p for p in _paths(BASE) if p]
values = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 10**12) | st.floats(allow_nan=True) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=6,
)


def _replace(document, path, value):
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(PATHS), values), min_size=1, max_size=3))
def test_any_mutation_loads_or_names_a_field(mutations):
    document = copy.deepcopy(BASE)
    for path, value in mutations:
        try:
            _replace(document, path, value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier mutation replaced a parent of this path
    try:
        ClusterSpec.from_document(document)
    except GcpSpecError as error:
        assert error.violations and all(isinstance(p, str) and isinstance(r, str) and r for p, r in error.violations)


def test_yaml_numbers_in_slurm_config_are_strings_on_the_wire():
    document = copy.deepcopy(BASE)
    document["orchestratorSpec"]["slurmSpec"]["config"]["PriorityWeightAge"] = 1000
    spec = ClusterSpec.from_document(document)
    assert spec.body()["orchestrator_spec"]["slurm_spec"]["config"]["PriorityWeightAge"] == "1000"
