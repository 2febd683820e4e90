package hyperpod.fleet_test

import data.hyperpod.fleet

scale_in_plan := {"cluster_name": "c", "action": "update", "steps": [{"operation": "BatchDeleteClusterNodes", "victims": [{"node_id": "i-1"}]}], "groups": []}

lower_target_plan := {"cluster_name": "c", "action": "update", "steps": [], "groups": [{"group": "w", "action": "update", "target_before": 4, "target_after": 2}]}

scale_out_plan := {"cluster_name": "c", "action": "update", "steps": [], "groups": [{"group": "w", "action": "update", "target_before": 2, "target_after": 4}], "cost": {"cluster": {"delta_per_hour": 3.5}}}

fleet_of(stacks) := {"format": "hyperpod-fleet-plan/1", "stacks": stacks}

codes(result) := {v.code | some v in result}

test_one_region_scaling_in_is_allowed if {
	input_doc := fleet_of([
		{"stack": "a", "region": "us-west-2", "plans": [scale_in_plan]},
		{"stack": "b", "region": "us-west-2", "plans": [lower_target_plan]},
		{"stack": "c", "region": "us-east-1", "plans": [scale_out_plan]},
	])
	count(fleet.deny) == 0 with input as input_doc
}

test_two_regions_scaling_in_is_denied if {
	input_doc := fleet_of([
		{"stack": "a", "region": "us-west-2", "plans": [scale_in_plan]},
		{"stack": "b", "region": "us-east-1", "plans": [lower_target_plan]},
	])
	result := fleet.deny with input as input_doc
	some v in result
	v.code == "regions-scaling-in"
	v.stacks == ["a", "b"]
	contains(v.message, "2 regions at once (us-east-1, us-west-2")
}

test_the_region_limit_is_a_parameter if {
	input_doc := fleet_of([
		{"stack": "a", "region": "us-west-2", "plans": [scale_in_plan]},
		{"stack": "b", "region": "us-east-1", "plans": [lower_target_plan]},
	])
	count(fleet.deny) == 0 with input as input_doc with data.hyperpod.fleet_params as {"max_regions_scaling_in": 2}
}

test_a_deleted_group_scales_in if {
	fleet.scales_in({"steps": [], "groups": [{"group": "w", "action": "delete"}]})
}

test_a_scale_out_does_not_scale_in if {
	not fleet.scales_in(scale_out_plan)
}

test_the_cost_ceiling_sums_the_fleet if {
	input_doc := fleet_of([
		{"stack": "a", "region": "us-west-2", "plans": [scale_out_plan]},
		{"stack": "b", "region": "us-east-1", "plans": [scale_out_plan]},
	])
	result := fleet.deny with input as input_doc with data.hyperpod.fleet_params as {"max_hourly_cost_increase": 5}
	some v in result
	v.code == "fleet-cost-increase"
	v.stacks == ["a", "b"]
	contains(v.message, "add 7 per hour")
}

test_each_plan_under_the_ceiling_alone_passes if {
	input_doc := fleet_of([{"stack": "a", "region": "us-west-2", "plans": [scale_out_plan]}])
	count(fleet.deny) == 0 with input as input_doc with data.hyperpod.fleet_params as {"max_hourly_cost_increase": 5}
}

test_no_ceiling_by_default if {
	input_doc := fleet_of([{"stack": "a", "region": "us-west-2", "plans": [scale_out_plan, scale_out_plan, scale_out_plan]}])
	count(fleet.deny) == 0 with input as input_doc
}

test_another_document_is_denied if {
	"not-a-fleet-plan" in codes(fleet.deny) with input as {"format": "hyperpod-plan/3"}
}

test_a_mistyped_parameter_is_denied if {
	"bad-parameter" in codes(fleet.deny) with input as fleet_of([]) with data.hyperpod.fleet_params as {"max_region_scaling_in": 2}
	"bad-parameter" in codes(fleet.deny) with input as fleet_of([]) with data.hyperpod.fleet_params as {"max_regions_scaling_in": "two"}
	"bad-parameter" in codes(fleet.deny) with input as fleet_of([]) with data.hyperpod.fleet_params as {"max_hourly_cost_increase": -1}
}
