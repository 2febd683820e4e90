"""An enum of more than 12 values is refused with the closest values as a hint (servicerules'
`_enum_rule`, whose difflib is imported on this path only: a valid spec never loads it)."""

from __future__ import annotations

from pulumi_hyperpod.aws import servicemodel

from tests.support.provider_specs import slurm_spec


def test_a_misspelt_instance_type_is_refused_with_the_close_ones_named():
    spec = slurm_spec()
    spec["InstanceGroups"][1]["InstanceType"] = "ml.p5.48xlarg"
    found = [v for v in servicemodel.violations("CreateCluster", spec) if v.path == "InstanceGroups[1].InstanceType"]
    assert len(found) == 1, found
    assert found[0].rule.startswith("'ml.p5.48xlarg' is not one of the ")
    assert "values the service accepts (did you mean ml.p5.48xlarge" in found[0].rule
