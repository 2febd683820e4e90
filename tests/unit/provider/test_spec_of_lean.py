"""A preview's `diff` builds the spec of checked inputs (`props.spec_of`) in a fresh provider process
without pydantic (issue 30): the spec classes are dataclasses built from the checked request. Seen by
`sys.modules` in a fresh process, and by comparing the request with the pydantic models' one."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.provider.props import check_inputs
from tests.support import pydantic_clusterspec as oracle
from tests.support.fresh import run_fresh

from tests.support.provider_specs import slurm_spec, wire

SPEC_OF = """
import json, sys
from pulumi_hyperpod.provider.props import check_inputs, spec_of
inputs, failures = check_inputs(json.loads(sys.stdin.read()))
spec = spec_of(inputs)
print(json.dumps({
    "failures": failures,
    "request": spec.to_api(),
    "pydantic": sorted(name for name in sys.modules if name.split(".")[0] in ("pydantic", "pydantic_core")),
}))
"""


@pytest.mark.parametrize("workers", [1, 3])
def test_the_spec_of_a_checked_demo_spec_is_built_without_pydantic_and_sends_the_same_request(workers):
    news = wire({"spec": slurm_spec(workers=workers), "backend": "fake"})  # numbers as the engine sends them
    fresh = json.loads(run_fresh(SPEC_OF, json.dumps(news)))
    assert fresh["failures"] == [] and fresh["pydantic"] == []
    inputs, _ = check_inputs(news)
    expected = oracle.ClusterSpec.from_dict(inputs["spec"]).to_api()
    assert json.dumps(fresh["request"]) == json.dumps(expected)  # the same members, values and key order
    assert fresh["request"]["InstanceGroups"][-1]["InstanceCount"] == workers


def test_the_spec_models_import_no_pydantic():
    loaded = run_fresh("import sys, pulumi_hyperpod.aws.spec.models\nprint(sorted(m for m in sys.modules if 'pydantic' in m))")
    assert loaded == "[]"


def test_a_cluster_spec_given_as_spec_is_sent_as_its_request():
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.provider.resource import ClusterArgs, build_spec

    spec = ClusterSpec.from_dict(slurm_spec(workers=2))
    assert build_spec(ClusterArgs(spec=spec)) == spec.to_api()
    assert build_spec(ClusterArgs(spec=spec, cluster_name="renamed"))["ClusterName"] == "renamed"
