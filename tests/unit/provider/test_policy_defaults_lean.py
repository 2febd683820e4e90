"""The default policy costs no pydantic (issue 30): a no-change preview's `diff` makes its Settings from
inputs whose policy is `{}`, and in a fresh provider process that loads neither pydantic nor the
validating model. A policy with any other value still goes through the model. Checked by
`sys.modules`, never by timing."""

from __future__ import annotations

import json

from tests.support.fresh import run_fresh
from tests.support.provider_specs import slurm_spec

SETTINGS = """
import json, sys
from pulumi_hyperpod.provider.settings import Settings, check_settings, policy_inputs
from pulumi_hyperpod.provider.unknowns import is_unknown
from pulumi_hyperpod.plans.policy import Policy

olds, news = json.loads(sys.stdin.read())
checked, failures = check_settings(news, is_unknown)
made = {"failures": failures}
if not failures:  # what `diff` does with the checked inputs
    policy = Settings.from_inputs({**news, **checked}).acting_once(olds).policy
    made.update(stored=policy_inputs(policy), dump=policy.model_dump(mode="json"), is_default=policy == Policy() == Policy.model_validate({}))
made["pydantic"] = sorted(name for name in ("pydantic", "pydantic_core") if name in sys.modules)
print(json.dumps(made))
"""


def fresh_settings(olds: dict, news: dict) -> dict:
    return json.loads(run_fresh(SETTINGS, json.dumps([olds, news])))


def test_default_settings_from_inputs_load_no_pydantic():
    inputs = {"spec": slurm_spec(workers=2), "backend": "fake", "policy": {}}
    made = fresh_settings(inputs, inputs)  # a no-change preview: the stored inputs, the same again
    assert made["pydantic"] == [] and made["is_default"] and made["failures"] == [] and made["stored"] == {}
    assert made["dump"]["max_nodes_per_delete_call"] == 99 and made["dump"]["protected_node_ids"] == []


def test_a_policy_written_out_as_its_defaults_loads_no_pydantic_either():
    news = {"spec": slurm_spec(), "backend": "fake", "policy": {"allow_replacement": False, "drain": "none", "drain_timeout": 3600.0}}
    made = fresh_settings({}, news)
    assert made["failures"] == [] and made["stored"] == {} and made["is_default"] and made["pydantic"] == []


def test_a_value_of_another_type_goes_through_the_model_even_when_equal_to_a_default():
    news = {"spec": slurm_spec(), "backend": "fake", "policy": {"remove_first": [], "max_nodes_per_delete_call": 99.0}}
    made = fresh_settings({}, news)  # a list is made a frozenset, 99.0 the int 99, by the model
    assert made["failures"] == [] and made["stored"] == {} and made["is_default"]
    assert made["pydantic"] == ["pydantic", "pydantic_core"]


def test_a_policy_with_other_values_is_validated_by_the_model():
    news = {"spec": slurm_spec(), "backend": "fake", "policy": {"max_scale_in_fraction": 2, "drain": "cordon"}}
    made = fresh_settings({}, news)
    assert made["failures"] == [["policy.max_scale_in_fraction", "Input should be less than or equal to 1"]]
    assert made["pydantic"] == ["pydantic", "pydantic_core"]


GCP_SETTINGS = """
import json
from pulumi_hyperpod.plans.policy import Policy, validator
from pulumi_hyperpod.provider.gcp_adapter import settings_of

policy = settings_of({"backend": "fake", "policy": {}}).policy
print(json.dumps({"is_default": policy == Policy(), "model_built": validator.cache_info().currsize}))
"""


def test_the_gcp_providers_default_policy_builds_no_validating_model():
    # the GCP spec is a pydantic model, so pydantic is loaded there anyway; the Policy's model is not built
    assert json.loads(run_fresh(GCP_SETTINGS)) == {"is_default": True, "model_built": 0}
