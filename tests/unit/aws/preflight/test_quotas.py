"""Seed 004, "Update時の注意点" 1: a scale-out fails on a Service Quota, and raising one can take
weeks — so the plan says so before anything is applied, with the numbers."""

from __future__ import annotations

from pulumi_hyperpod.plans import Policy, plan_text

from .conftest import G5, g5_quota, json_section, spec


def _check(the_plan, instance_type=None, code=None):
    checks = json_section(the_plan)["quotas"]["checks"]
    return next(c for c in checks if (instance_type and c["instance_type"] == instance_type) or (code and c["quota_code"] == code))


def test_a_scale_out_past_the_instance_type_quota_is_refused_with_the_numbers(make_world):
    world = make_world({"quotas": [g5_quota(4)]})
    world.build(spec("other-team", workers=2))  # another cluster of the account already runs 2
    world.build(spec("demo", workers=1))

    the_plan = world.checked(spec("demo", workers=3))

    assert the_plan.refused
    [refusal] = the_plan.refusals
    assert refusal.rule == "service-quota" and refusal.group == "workers"
    assert f"{G5} for cluster usage" in refusal.reason and "is 4 in us-west-2" in refusal.reason
    assert "3 in use across 2 cluster(s)" in refusal.reason
    assert "asks for 2 more → 5 > 4" in refusal.reason
    assert "request an increase" in refusal.reason and "weeks" in refusal.reason
    assert "lower the count" in refusal.reason and "flexible group" in refusal.reason
    check = _check(the_plan, G5)
    assert (check["quota"], check["in_use"], check["after"], check["status"], check["source"]) == (4, 3, 5, "over", "applied")
    assert json_section(the_plan)["quotas"]["clusters_counted"] == ["other-team"]
    assert json_section(the_plan)["verdict"] == "refused"


def test_near_the_quota_warns_and_still_applies(make_world):
    world = make_world({"quotas": [g5_quota(4)]})
    world.build(spec("demo", workers=1))

    the_plan = world.checked(spec("demo", workers=4))  # 4 of 4: over the 0.9 margin, not over the quota

    assert not the_plan.refused
    assert _check(the_plan, G5)["status"] == "near"
    [warning] = json_section(the_plan)["warnings"]
    assert "would be at 100% of the quota (4 in us-west-2)" in warning and "request an increase" in warning
    assert json_section(the_plan)["verdict"] == "warnings"
    relaxed = world.checked(spec("demo", workers=4), policy=Policy(quota_warning_margin=1.0))
    assert json_section(relaxed)["warnings"] == [] and json_section(relaxed)["verdict"] == "ok"


def test_cluster_wide_quotas_by_code_and_aws_defaults_where_nothing_is_applied(make_world):
    # a new account (only AWS's defaults) with the increases this cluster needs granted
    granted = [g5_quota(10), {"quota_name": "ml.m5.large for cluster usage", "value": 10}]
    world = make_world({"account": "new", "quotas": [{"quota_code": "L-2CE978FC", "value": 3}, *granted]})  # instances per cluster
    world.build(spec("demo", workers=1))

    the_plan = world.checked(spec("demo", workers=3))

    [refusal] = the_plan.refusals
    assert "Maximum number instances allowed per SageMaker HyperPod cluster (L-2CE978FC) is 3" in refusal.reason
    assert "2 in use" in refusal.reason and "4 > 3" in refusal.reason
    assert _check(the_plan, G5)["source"] == "applied"
    across = _check(the_plan, code="L-3308CCC7")
    assert (across["status"], across["source"]) == ("ok", "AWS default")  # no applied value: ListAWSDefaultServiceQuotas


def test_a_new_account_is_refused_every_instance_until_an_increase_is_granted(make_world):
    world = make_world("new-account")  # the scenario the package ships: AWS's defaults, 0 of every type

    the_plan = world.checked(spec("demo", workers=2))

    assert the_plan.refused
    reasons = " ".join(r.reason for r in the_plan.refusals)
    assert "ml.g5.xlarge for cluster usage" in reasons and "ml.m5.large for cluster usage" in reasons
    assert _check(the_plan, G5)["source"] == "AWS default"


def test_a_spot_group_is_checked_against_its_spot_quota_in_preflight_and_in_the_simulator(make_world):
    spot = {"CapacityRequirements": {"Spot": {}}}
    world = make_world({"quotas": [{"quota_name": f"{G5} for spot cluster usage", "value": 2}]})

    the_plan = world.checked(spec("demo", workers=3, **spot))

    [refusal] = the_plan.refusals
    assert f"{G5} for spot cluster usage" in refusal.reason
    # the simulator, the independent witness, refuses the same request for the same quota
    from botocore.exceptions import ClientError

    try:
        world.sagemaker.create_cluster(**spec("demo", workers=3, **spot).to_api("CreateCluster"))
    except ClientError as error:
        assert error.response["Error"]["Code"] == "ResourceLimitExceeded"
        assert "spot cluster usage" in error.response["Error"]["Message"]
    else:
        raise AssertionError("the simulator created a Spot group past its Spot quota")


def test_a_flexible_group_fits_across_the_quotas_of_its_types(make_world):
    types = ["ml.p5.48xlarge", "ml.p4d.24xlarge"]

    def flexible(count):
        return spec("demo", workers=count, worker_type=None, InstanceType=None, InstanceRequirements={"InstanceTypes": types})

    roomy = make_world(
        {
            "quotas": [
                {"quota_name": "ml.p5.48xlarge for cluster usage", "value": 2},
                {"quota_name": "ml.p4d.24xlarge for cluster usage", "value": 8},
            ]
        }
    )
    the_plan = roomy.checked(flexible(6))
    assert not the_plan.refused
    assert (_check(the_plan, "ml.p5.48xlarge")["after"], _check(the_plan, "ml.p4d.24xlarge")["after"]) == (2, 4)

    tight = make_world(
        {
            "quotas": [
                {"quota_name": "ml.p5.48xlarge for cluster usage", "value": 2},
                {"quota_name": "ml.p4d.24xlarge for cluster usage", "value": 2},
            ]
        }
    )
    [refusal] = tight.checked(flexible(6)).refusals
    assert refusal.group == "workers" and "2 more instance(s) of ml.p5.48xlarge / ml.p4d.24xlarge do not fit" in refusal.reason


def test_unreadable_quotas_are_said_and_the_plan_goes_on(make_world):
    world = make_world({"quotas_access_denied": True, "quotas": [g5_quota(1)]})
    the_plan = world.checked(spec("demo", workers=5))

    assert not the_plan.refused
    quotas = json_section(the_plan)["quotas"]
    assert quotas["status"] == "unreadable" and "AccessDeniedException" in quotas["error"]
    assert any("could not be read" in line and "not checked" in line for line in json_section(the_plan)["warnings"])
    assert "could not be read" in plan_text(the_plan)
    assert json_section(the_plan)["verdict"] == "warnings"
    assert json_section(world.checked(spec("demo"), quotas=None))["quotas"]["status"] == "unreadable"


def test_a_plan_that_adds_no_instances_reads_no_quota(make_world):
    world = make_world()
    world.build(spec("demo", workers=3))
    world.sim.set_quota(1, name=g5_quota(1)["quota_name"])  # lowered since: a scale-in must not be refused for it
    world.sim.reset_calls()

    the_plan = world.checked(spec("demo", workers=2))

    assert not the_plan.refused and json_section(the_plan)["quotas"]["status"] == "not-needed"
    assert world.calls("ListServiceQuotas", "ListAWSDefaultServiceQuotas", "ListClusters", "DescribeClusterNode") == 0


def test_the_shipped_scenarios_load_by_name_and_default_is_the_world_with_no_scenario():
    import pytest as _pytest

    from pulumi_hyperpod.sim.aws.scenario import Scenario, load_scenario, named_scenarios

    assert set(named_scenarios()) == {"default", "new-account"}
    assert load_scenario("default") == Scenario()
    assert load_scenario("new-account").account == "new"
    with _pytest.raises(ValueError, match="neither a file nor a scenario the package ships"):
        load_scenario("new-acount")
