"""A provider's `check` reads what one spec needs and no more (issue 30): the spec's shapes, not the
session, the client modules or the 2.6 MB model; the request checked without the pydantic models.
And it stores exactly what it stored when it went through them. Checked by `sys.modules` and by
comparing results, never by timing."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.aws.spec.models import ClusterSpec
from pulumi_hyperpod.aws.spec.request import api_request, checked_request
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.provider.settings import Defaults, Settings, allows_replacement, check_settings, locate_inputs, policy_inputs
from pulumi_hyperpod.provider.unknowns import is_unknown

from tests.support.fresh import run_fresh
from tests.support.provider_specs import slurm_spec
from tests.support.paths import REPO

SPECS = sorted((REPO / "examples" / "specs").glob("*.json"))
NOT_IN_CHECK = (
    "pydantic",
    "botocore.session",
    "botocore.client",
    "botocore.waiter",
    "botocore.docs",
    "pulumi_hyperpod.aws.spec.models",
)

CHECK = """
import json, sys
from pulumi_hyperpod.provider.provider import ClusterProvider
olds, news = json.loads(sys.stdin.read())
result = ClusterProvider().check(olds, news)
servicemodel = sys.modules["pulumi_hyperpod.aws.servicemodel"]
print(json.dumps({
    "inputs": result.inputs,
    "failures": [[f.property, f.reason] for f in result.failures],
    "loaded": sorted(name for name in NOT_IN_CHECK if name in sys.modules),
    "whole_model": bool(servicemodel.service_model.cache_info().currsize),
}))
"""


@pytest.fixture(autouse=True)
def own_world(monkeypatch, tmp_path):
    """A new resource's check reads the simulated world for its name (the create's preview): this
    test's own, in this process and in the fresh one, never the repository's."""
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(tmp_path / "fake.sqlite"))


def fresh_check(olds: dict, news: dict) -> dict:
    return json.loads(run_fresh(f"NOT_IN_CHECK = {NOT_IN_CHECK!r}\n" + CHECK, json.dumps([olds, news])))


def in_process_check(olds: dict, news: dict) -> dict:
    from pulumi_hyperpod.provider.provider import ClusterProvider

    result = ClusterProvider().check(olds, news)
    return {"inputs": result.inputs, "failures": [[f.property, f.reason] for f in result.failures]}


@pytest.mark.parametrize(
    "case",
    ["new", "unchanged", "bad"],
)
def test_a_fresh_check_loads_no_client_models_or_pydantic_and_stores_the_same(case):
    news = {"spec": slurm_spec(workers=2), "backend": "fake"}
    olds = {}
    if case == "unchanged":  # a preview of a stack already up: check with the stored inputs
        olds = {**in_process_check({}, news)["inputs"], "location": {"backend": "fake", "region": "us-west-2"}}
    if case == "bad":
        news["spec"]["InstanceGroups"][1]["InstanceCount"] = -1
    fresh = fresh_check(olds, news)
    if case != "new":  # a new resource's check also shows its creation plan: the planner runs then
        assert fresh["loaded"] == [] and not fresh["whole_model"]
    assert {k: fresh[k] for k in ("inputs", "failures")} == in_process_check(olds, news)
    assert bool(fresh["failures"]) == (case == "bad")


def test_a_policy_given_is_still_checked_by_the_policy_model():
    news = {"spec": slurm_spec(), "backend": "fake", "policy": {"max_scale_in_fraction": 2, "allow_replacement": True}}
    fresh = fresh_check({}, news)
    assert {k: fresh[k] for k in ("inputs", "failures")} == in_process_check({}, news)
    assert [path for path, _ in fresh["failures"]] == ["policy.max_scale_in_fraction"]


def spellings(spec: dict) -> dict:
    """The spec with every key in snake_case, as a Python program may write it."""
    import re

    def snake(key: str) -> str:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()

    if isinstance(spec, dict):
        return {snake(k): spellings(v) for k, v in spec.items()}
    if isinstance(spec, list):
        return [spellings(v) for v in spec]
    return spec


RESTRICTED = {
    "InstanceGroupName": "restricted",
    "InstanceType": "ml.p5.48xlarge",
    "InstanceCount": 2,
    "ExecutionRole": "arn:aws:iam::111122223333:role/iam-role-for-cluster",
    "EnvironmentConfig": {"FSxLustreConfig": {"SizeInGiB": 1200, "PerUnitStorageThroughput": 125}},
}
OPTIONAL_TOP = ("VpcConfig", "Tags", "NodeRecovery", "NodeProvisioningMode", "Orchestrator", "InstanceGroups", "RestrictedInstanceGroups")
OPTIONAL_GROUP = ("LifeCycleConfig", "ThreadsPerCore", "OnStartDeepHealthChecks", "TrainingPlanArn", "MinInstanceCount", "SlurmConfig")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_request_checked_without_the_models_is_what_the_models_give(data):
    """`api_request` of a request that passed is `ClusterSpec.from_dict(..).to_api()`: any example
    spec, with optional members taken away or added, in either spelling."""
    spec = json.loads(data.draw(st.sampled_from(SPECS)).read_text())
    if "Eks" in (spec.get("Orchestrator") or {}) and data.draw(st.booleans()):
        spec["RestrictedInstanceGroups"] = [RESTRICTED]  # then InstanceGroups may go: the models' one non-null default
    extra_top = {"Tags": [{"Key": "team", "Value": "ml"}], "NodeRecovery": data.draw(st.sampled_from(["Automatic", "None"]))}
    for key, value in extra_top.items():
        if data.draw(st.booleans()):
            spec[key] = value
    for key in OPTIONAL_TOP:
        if key in spec and data.draw(st.booleans()):
            del spec[key]
    for group in spec.get("InstanceGroups") or []:
        if data.draw(st.booleans()):
            group["ThreadsPerCore"] = data.draw(st.sampled_from([1, 2]))
        if data.draw(st.booleans()):
            group["TrainingPlanArn"] = ""  # the documented "not set"
        for key in OPTIONAL_GROUP:
            if key in group and data.draw(st.booleans()):
                del group[key]
    if data.draw(st.booleans()):
        spec = spellings(spec)
    request, problems = checked_request(spec)
    try:
        modelled = ClusterSpec.from_dict(spec).to_api()
    except Exception:
        modelled = None
    assert (modelled is None) == bool(problems)
    if modelled is not None:
        assert api_request(request) == modelled
    event("valid" if modelled is not None else "refused")
    event("no InstanceGroups" if modelled is not None and "InstanceGroups" not in request else "InstanceGroups given")


@pytest.mark.parametrize("policy", [None, {}])
def test_no_policy_is_stored_as_the_default_policy_is(policy):
    news = {} if policy is None else {"policy": policy}
    inputs, failures = check_settings(news, is_unknown)
    assert failures == [] and inputs["policy"] == policy_inputs(Policy()) == {}


@pytest.mark.parametrize("region", ["mars-north-9", "aws-global", "us-west-2\x1b[2J"])
def test_a_region_no_aws_partition_has_is_a_check_failure(region):
    _inputs, failures = check_settings({"backend": "fake", "region": region}, is_unknown)
    assert [(key, "not an AWS region" in reason, "\x1b" in reason) for key, reason in failures] == [("region", True, False)]


@pytest.mark.parametrize(
    "inputs",
    [
        {},
        {"backend": "fake"},
        {"backend": "fake", "region": "eu-west-1", "profile": "ml"},
        {"backend": "fake", "policy": {"allow_replacement": True}},
        {"backend": "fake", "policy": {"max_scale_in_fraction": 0.5}},
    ],
)
def test_location_and_replacement_read_from_the_inputs_as_the_settings_read_them(inputs):
    checked, failures = check_settings(inputs, is_unknown)
    assert failures == []
    defaults = Defaults(backend="fake", region="us-east-1")
    settings_ = Settings.from_inputs(checked)
    assert locate_inputs(checked, defaults) == settings_.locate(defaults)
    assert allows_replacement(checked) == settings_.policy.allow_replacement
