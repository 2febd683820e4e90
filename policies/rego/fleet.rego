# METADATA
# title: hyperpod fleet policies
# description: |
#   Rules over a whole fleet plan (`hyperpod fleet plan FLEET --policy DIR`, docs/fleet.md): the
#   `hyperpod-fleet-plan/1` document with, in each stack, `plans`: every cluster's whole plan
#   (hyperpod-plan/3). Each rule adds a violation to `deny`: {code, message, stacks}. The parameters
#   come from data.hyperpod.fleet_params; a parameter not given takes its value from `defaults`.
package hyperpod.fleet

defaults := {
	"max_regions_scaling_in": 1, # how many regions may have clusters that scale in, in one fleet plan
	"max_hourly_cost_increase": null, # USD per hour the whole fleet may add; null: no ceiling
}

params := object.union(defaults, given)

given := data.hyperpod.fleet_params if is_object(data.hyperpod.fleet_params)

else := {}

allow if count(deny) == 0

violation(code, message, stacks) := {"code": code, "message": message, "stacks": stacks}

# ---- input -------------------------------------------------------------------------------------
deny contains violation("not-a-fleet-plan", sprintf("input format %v is not hyperpod-fleet-plan/1 (hyperpod fleet plan --policy)", [object.get(input, "format", null)]), []) if {
	object.get(input, "format", null) != "hyperpod-fleet-plan/1"
}

deny contains violation("bad-parameter", sprintf("data.hyperpod.fleet_params.%s: not a parameter (parameters: %s)", [key, concat(", ", sort(object.keys(defaults)))]), []) if {
	some key, _ in given
	not key in object.keys(defaults)
}

deny contains violation("bad-parameter", "data.hyperpod.fleet_params.max_regions_scaling_in: must be a whole number of at least 0", []) if {
	v := given.max_regions_scaling_in
	not whole(v)
}

deny contains violation("bad-parameter", "data.hyperpod.fleet_params.max_hourly_cost_increase: must be a number of at least 0, or null for no ceiling", []) if {
	"max_hourly_cost_increase" in object.keys(given)
	v := given.max_hourly_cost_increase
	v != null
	not nonnegative(v)
}

whole(v) if {
	is_number(v)
	v >= 0
	v == round(v)
}

nonnegative(v) if {
	is_number(v)
	v >= 0
}

# ---- scale-in across regions -------------------------------------------------------------------
# A plan scales its cluster in when it removes nodes: a step naming victims, a group whose target
# goes down (or that is deleted), or the cluster deleted.
scales_in(plan) if {
	some step in object.get(plan, "steps", [])
	count(object.get(step, "victims", [])) > 0
}

scales_in(plan) if {
	some g in object.get(plan, "groups", [])
	g.action == "delete"
}

scales_in(plan) if {
	some g in object.get(plan, "groups", [])
	is_number(g.target_before)
	is_number(g.target_after)
	g.target_after < g.target_before
}

scales_in(plan) if plan.action == "delete"

# region → the stacks whose clusters scale in there
scaling_in[region] contains stack.stack if {
	some stack in input.stacks
	some plan in object.get(stack, "plans", [])
	scales_in(plan)
	region := stack.region
}

deny contains violation("regions-scaling-in", msg, sorted_stacks) if {
	count(scaling_in) > params.max_regions_scaling_in
	regions := sort(object.keys(scaling_in))
	sorted_stacks := sort({s | some r in regions; some s in scaling_in[r]})
	msg := sprintf(
		"clusters scale in in %d regions at once (%s: stacks %s); at most %d region(s) may scale in in one fleet plan",
		[count(regions), concat(", ", regions), concat(", ", sorted_stacks), params.max_regions_scaling_in],
	)
}

# ---- the fleet's cost ceiling ------------------------------------------------------------------
cost_rises[stack.stack] := rise if {
	some stack in input.stacks
	rise := sum([d | some plan in object.get(stack, "plans", []); d := delta(plan); d > 0])
	rise > 0
}

delta(plan) := plan.cost.cluster.delta_per_hour if is_number(plan.cost.cluster.delta_per_hour)

else := 0

deny contains violation("fleet-cost-increase", msg, sort(object.keys(cost_rises))) if {
	ceiling := params.max_hourly_cost_increase
	is_number(ceiling)
	total := sum([r | some _, r in cost_rises])
	total > ceiling
	msg := sprintf("the fleet's plans add %v per hour together (stacks %s), more than the fleet's ceiling %v", [total, concat(", ", sort(object.keys(cost_rises))), ceiling])
}
