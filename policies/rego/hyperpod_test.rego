# Unit tests of the rules on small hand-made plans (`opa test policies/rego`); the scenario tests
# in tests/policies/ run them on plans `hyperpod plan --json` made on the simulator.
package hyperpod.plan_test

import data.hyperpod.plan

base := {
	"format": "hyperpod-plan/3",
	"cluster_name": "c",
	"action": "update",
	"refused": false,
	"refusals": [],
	"replacements": [],
	"steps": [],
	"groups": [],
	"basis": {"nodes": [
		{"key": "i-0aaaaaaaaaaaaaaa1", "group": "workers", "status": "Running"},
		{"key": "i-0aaaaaaaaaaaaaaa2", "group": "workers", "status": "Running"},
		{"key": "i-0ccccccccccccccc1", "group": "controller", "status": "Running"},
	]},
	"cost": {"currency": "USD", "unknown_types": [], "cluster": {"delta_per_hour": 0, "delta_at_most": null}},
}

shrink(before, after) := {"group": "workers", "action": "shrink", "target_before": before, "target_after": after}

codes(result) := {v.code | some v in result}

test_an_empty_plan_is_allowed if {
	plan.allow with input as base
}

test_a_scale_in_above_the_share_is_denied if {
	codes(plan.deny) == {"scale-in-share"} with input as object.union(base, {"groups": [shrink(4, 1)]})
}

test_a_scale_in_at_the_share_is_allowed if {
	plan.allow with input as object.union(base, {"groups": [shrink(4, 2)]})
		with data.hyperpod.params as {"max_scale_in_fraction": 0.5}
}

test_deleting_a_group_removes_all_its_nodes if {
	deleted := {"group": "workers", "action": "delete", "target_before": 2, "target_after": null}
	codes(plan.deny) == {"scale-in-share"} with input as object.union(base, {"groups": [deleted]})
		with data.hyperpod.params as {"max_scale_in_fraction": 0.9}
}

test_a_named_protected_victim_is_denied if {
	step := {"operation": "BatchDeleteClusterNodes", "victims": [{"group": "workers", "node_id": "i-0aaaaaaaaaaaaaaa2", "reason": "newest"}]}
	result := plan.deny with input as object.union(base, {"groups": [shrink(2, 1)], "steps": [step]})
		with data.hyperpod.params as {"max_scale_in_fraction": 1, "protected_node_ids": ["i-0aaaaaaaaaaaaaaa2"]}
	[v] := [v | some v in result]
	v.code == "protected-node"
	v.nodes == ["i-0aaaaaaaaaaaaaaa2"]
}

test_a_count_the_service_fulfils_in_a_group_with_a_protected_node_is_denied if {
	# UpdateCluster lowers the count: no victims named, the service chooses
	step := {"operation": "UpdateCluster", "victims": []}
	result := plan.deny with input as object.union(base, {"groups": [shrink(2, 1)], "steps": [step]})
		with data.hyperpod.params as {"max_scale_in_fraction": 1, "protected_node_ids": ["i-0aaaaaaaaaaaaaaa1"]}
	codes(result) == {"protected-node"}
}

test_a_protected_node_in_another_group_does_not_matter if {
	step := {"operation": "UpdateCluster", "victims": []}
	plan.allow with input as object.union(base, {"groups": [shrink(2, 1)], "steps": [step]})
		with data.hyperpod.params as {"max_scale_in_fraction": 1, "protected_node_ids": ["i-0ccccccccccccccc1"]}
}

# Each step's disruption (derived by the tool from the step kind's declaration) is what the rule reads:
# a node replaced (its volumes destroyed), rebooted or rolled onto a new image is taken down too.
disrupting(operation, effect, nodes) := {"operation": operation, "victims": [], "disruption": {
	"effect": effect, "scope": "named", "how": "in words", "nodes": nodes, "groups": [],
}}

test_a_protected_node_a_step_replaces_reboots_or_rolls_is_denied if {
	every operation, effect in {"BatchReplaceClusterNodes": "destroyed", "BatchRebootClusterNodes": "restarted", "UpdateClusterSoftware": "restarted"} {
		result := plan.deny with input as object.union(base, {"steps": [disrupting(operation, effect, ["i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2"])]})
			with data.hyperpod.params as {"protected_node_ids": ["i-0aaaaaaaaaaaaaaa2"]}
		[v] := [v | some v in result]
		v.code == "protected-node"
		v.group == "workers"
		v.nodes == ["i-0aaaaaaaaaaaaaaa2"]
		contains(v.message, operation)
	}

	# a node the plan's basis does not list is judged all the same (its group unknown)
	[stranger] := [v | some v in plan.deny] with input as object.union(base, {"steps": [disrupting("BatchRebootClusterNodes", "restarted", ["node-9"])]})
		with data.hyperpod.params as {"protected_node_ids": ["node-9"]}
	stranger.group == null
	plan.allow with input as object.union(base, {"steps": [disrupting("BatchRebootClusterNodes", "restarted", ["i-0aaaaaaaaaaaaaaa1"])]})
		with data.hyperpod.params as {"protected_node_ids": ["i-0aaaaaaaaaaaaaaa2"]}
}

test_a_protected_node_a_move_takes_is_denied_and_said_moved if {
	# MoveClusterNodes (kind move-nodes): the node keeps its instance, its volumes are replaced
	step := {"operation": "MoveClusterNodes", "kind": "move-nodes", "victims": [{"group": "workers", "node_id": "i-0aaaaaaaaaaaaaaa2", "reason": "moves to serve; newest"}], "disruption": {
		"effect": "destroyed", "scope": "victims", "how": "in words", "nodes": ["i-0aaaaaaaaaaaaaaa2"], "groups": [],
	}}
	result := plan.deny with input as object.union(base, {"groups": [shrink(2, 1)], "steps": [step]})
		with data.hyperpod.params as {"max_scale_in_fraction": 1, "protected_node_ids": ["i-0aaaaaaaaaaaaaaa2"]}
	[v] := [v | some v in result]
	v.code == "protected-node"
	v.nodes == ["i-0aaaaaaaaaaaaaaa2"]
	contains(v.message, "moves protected node i-0aaaaaaaaaaaaaaa2 to another group")
}

test_a_group_whose_nodes_the_service_chooses_is_denied_when_it_holds_a_protected_node if {
	chosen := {"operation": "UpdateCluster", "victims": [], "disruption": {
		"effect": "destroyed", "scope": "chosen-by-service", "how": "in words", "nodes": [],
		"groups": [{"group": "workers", "count": 1, "nodes": ["i-0aaaaaaaaaaaaaaa1", "i-0aaaaaaaaaaaaaaa2"]}],
	}}
	result := plan.deny with input as object.union(base, {"steps": [chosen]})
		with data.hyperpod.params as {"protected_node_ids": ["i-0aaaaaaaaaaaaaaa1"]}
	[v] := [v | some v in result]
	v.code == "protected-node"
	v.group == "workers"
	plan.allow with input as object.union(base, {"steps": [chosen]})
		with data.hyperpod.params as {"protected_node_ids": ["i-0ccccccccccccccc1"]}
}

test_a_replacement_is_denied_unless_allowed if {
	replace := object.union(base, {"action": "replace", "replacements": ["VpcConfig cannot change after creation"]})
	codes(plan.deny) == {"replacement"} with input as replace
	plan.allow with input as replace with data.hyperpod.params as {"allow_replacement": true}
}

test_deleting_the_cluster_is_denied_and_names_protected_nodes if {
	result := plan.deny with input as object.union(base, {"action": "delete"})
		with data.hyperpod.params as {"protected_node_ids": ["i-0ccccccccccccccc1"]}
	codes(result) == {"cluster-deletion", "protected-node"}
}

test_the_cost_ceiling if {
	grow := {"group": "workers", "action": "grow", "target_before": 2, "target_after": 4}
	dearer := object.union(base, {"groups": [grow], "cost": {"cluster": {"delta_per_hour": 12.5}}})
	codes(plan.deny) == {"cost-increase"} with input as dearer with data.hyperpod.params as {"max_hourly_cost_increase": 10}
	plan.allow with input as dearer with data.hyperpod.params as {"max_hourly_cost_increase": 20}
	plan.allow with input as dearer # no ceiling by default
}

test_an_unknown_cost_is_not_under_the_ceiling if {
	grow := {"group": "workers", "action": "grow", "target_before": 2, "target_after": 4}
	unpriced := object.union(base, {"groups": [grow], "cost": {"unknown_types": ["ml.x.new"], "cluster": {"delta_per_hour": null}}})
	result := plan.deny with input as unpriced with data.hyperpod.params as {"max_hourly_cost_increase": 10}
	[v] := [v | some v in result]
	v.code == "cost-unknown"
	contains(v.message, "ml.x.new")
}

test_a_saved_plan_is_read_through_its_plan_member if {
	saved := {"format": "hyperpod-plan/3", "spec": {}, "plan": object.union(base, {"groups": [shrink(4, 1)]})}
	codes(plan.deny) == {"scale-in-share"} with input as saved
}

test_the_tools_refusals_are_reported if {
	refused := object.union(base, {"refused": true, "refusals": [{"rule": "controller-group", "reason": "no", "group": "controller"}]})
	codes(plan.deny) == {"tool-refusal"} with input as refused
	plan.allow with input as refused with data.hyperpod.params as {"deny_refused_plans": false}
}

test_an_unknown_plan_is_denied if {
	codes(plan.deny) == {"not-a-plan"} with input as {"format": "hyperpod-plan-unknown/1", "unknown": "inputs not known"}
	codes(plan.deny) == {"not-a-plan"} with input as {"hello": "world"}
}

test_a_mistyped_or_mistaken_parameter_is_denied if {
	typo := plan.deny with input as base with data.hyperpod.params as {"protected_node_id": ["i-0aaaaaaaaaaaaaaa1"]}
	[v] := [v | some v in typo]
	v.code == "bad-parameter"
	contains(v.message, "data.hyperpod.params.protected_node_id: not a parameter")
	wrong := plan.deny with input as base with data.hyperpod.params as {"max_scale_in_fraction": "half", "protected_node_ids": "i-0aaaaaaaaaaaaaaa1"}
	{v.message | some v in wrong} == {
		"data.hyperpod.params.max_scale_in_fraction: must be a number from 0 to 1",
		"data.hyperpod.params.protected_node_ids: must be a list of node ids (strings)",
	}
	plan.allow with input as base with data.hyperpod.params as {"max_hourly_cost_increase": null, "allow_replacement": true}
}
