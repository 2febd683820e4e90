# METADATA
# title: hyperpod plan policies
# description: |
#   Rules over the plan JSON of `hyperpod plan --json` (or a plan saved with `--out`), format
#   hyperpod-plan/3. Each rule adds a violation to `deny`: {code, group, message, nodes}. The
#   parameters come from data.hyperpod.params (policies/params.json is an example); a parameter
#   not given takes its value from `defaults` below. See policies/README.md.
package hyperpod.plan

defaults := {
	"max_scale_in_fraction": 0.5, # largest share of a group's nodes one plan may remove
	"allow_replacement": false, # a plan that deletes and re-creates the cluster
	"allow_cluster_deletion": false, # a plan that deletes the cluster
	"max_hourly_cost_increase": null, # USD per hour; null: no ceiling
	"protected_node_ids": [], # node keys (instance ids, or logical ids of nodes not launched yet)
	"deny_refused_plans": true, # a plan the tool itself refused is reported as a violation too
}

params := object.union(defaults, given)

# data.hyperpod.params by its full path (the whole `data` would include these rules)
given := data.hyperpod.params if is_object(data.hyperpod.params)

else := {}

# The plan itself: `hyperpod plan --json` prints it; a saved plan (`--out`) holds it under "plan".
plan := input.plan if is_object(input.plan)

else := input

allow if count(deny) == 0

violation(code, group, message, nodes) := {"code": code, "group": group, "message": message, "nodes": nodes}

# ---- input -------------------------------------------------------------------------------------
deny contains violation("not-a-plan", null, not_a_plan_why, []) if {
	not object.get(plan, "format", null) in known_formats
}

# The native provider's preview returns {"format": "hyperpod-plan-unknown/1", "unknown": why} when it
# cannot make the plan (inputs not known yet, the cluster unreadable): unknown is not safe.
not_a_plan_why := sprintf("no plan could be made: %s", [plan.unknown]) if {
	is_string(plan.unknown)
} else := sprintf("input format %v is not one these rules were written for (%s: hyperpod plan --json)", [object.get(plan, "format", null), concat(", ", known_formats)])

# The plan formats the rules read. A newer format is denied until the rules are checked against it
# (tests/policies fails when the tool writes a format not listed here).
known_formats := {"hyperpod-plan/3"}

# ---- parameters --------------------------------------------------------------------------------
# A mistyped parameter would silently leave its default in force (a protected node unprotected):
# every parameter given must be one of `defaults`, of the right type.
deny contains violation("bad-parameter", null, sprintf("data.hyperpod.params.%s: not a parameter (parameters: %s)", [key, concat(", ", sort(object.keys(defaults)))]), []) if {
	some key, _ in given
	not key in object.keys(defaults)
}

deny contains violation("bad-parameter", null, sprintf("data.hyperpod.params.%s: %s", [key, rule]), []) if {
	some key, rule in parameter_rules
	key in object.keys(given)
	not parameter_ok(key, given[key])
}

parameter_rules := {
	"max_scale_in_fraction": "must be a number from 0 to 1",
	"allow_replacement": "must be true or false",
	"allow_cluster_deletion": "must be true or false",
	"max_hourly_cost_increase": "must be a number of at least 0, or null for no ceiling",
	"protected_node_ids": "must be a list of node ids (strings)",
	"deny_refused_plans": "must be true or false",
}

parameter_ok("max_scale_in_fraction", v) if {
	is_number(v)
	v >= 0
	v <= 1
}

parameter_ok(key, v) if {
	key in {"allow_replacement", "allow_cluster_deletion", "deny_refused_plans"}
	is_boolean(v)
}

parameter_ok("max_hourly_cost_increase", v) if is_null(v)

parameter_ok("max_hourly_cost_increase", v) if {
	is_number(v)
	v >= 0
}

parameter_ok("protected_node_ids", v) if {
	is_array(v)
	every id in v { is_string(id) }
}

# ---- scale-in share ----------------------------------------------------------------------------
# A group that shrinks, or is deleted, loses more than max_scale_in_fraction of its nodes.
deny contains violation("scale-in-share", g.group, msg, []) if {
	some g in plan.groups
	before := count_of(g.target_before)
	before > 0
	removed := before - after_count(g)
	removed / before > params.max_scale_in_fraction
	msg := sprintf(
		"%s: removes %d of %d nodes (%v%%), more than the allowed share (%v%%)",
		[g.group, removed, before, round((removed / before) * 100), round(params.max_scale_in_fraction * 100)],
	)
}

after_count(g) := 0 if g.action == "delete"

else := count_of(g.target_after)

count_of(n) := n if is_number(n)

else := 0

# ---- replacement and deletion ------------------------------------------------------------------
deny contains violation("replacement", null, msg, basis_keys) if {
	not params.allow_replacement
	replaces
	msg := sprintf(
		"cluster %s would be replaced (deleted and created again, all %d nodes lost): %s",
		[plan.cluster_name, count(basis_keys), concat("; ", object.get(plan, "replacements", []))],
	)
}

replaces if plan.action == "replace"

replaces if count(object.get(plan, "replacements", [])) > 0

deny contains violation("cluster-deletion", null, msg, basis_keys) if {
	not params.allow_cluster_deletion
	plan.action == "delete"
	msg := sprintf("cluster %s would be deleted with its %d nodes", [plan.cluster_name, count(basis_keys)])
}

basis_keys := [n.key | some n in object.get(plan, ["basis", "nodes"], [])]

# ---- cost ceiling ------------------------------------------------------------------------------
deny contains violation("cost-increase", null, msg, []) if {
	ceiling := params.max_hourly_cost_increase
	is_number(ceiling)
	some delta in [cost_delta]
	delta > ceiling
	msg := sprintf("the cluster's cost rises by %v %s/hour, more than the ceiling of %v", [delta, plan.cost.currency, ceiling])
}

# Unknown is not safe: with a ceiling set, a plan that adds capacity at an unknown price is denied.
# (Numbers are shown with %v: OPA keeps whole numbers as integers, which %f does not format.)
deny contains violation("cost-unknown", null, msg, []) if {
	is_number(params.max_hourly_cost_increase)
	adds_capacity
	not cost_known
	msg := sprintf(
		"the cost of this plan is not known (%s), so the ceiling of %v/hour cannot be checked",
		[cost_unknown_why, params.max_hourly_cost_increase],
	)
}

# The change per hour; when only its upper bound is known (unpriced groups only shrink), that bound.
cost_delta := d if {
	d := plan.cost.cluster.delta_per_hour
	is_number(d)
} else := d if {
	d := plan.cost.cluster.delta_at_most
	is_number(d)
}

cost_known if is_number(cost_delta)

adds_capacity if plan.action in {"create", "replace"}

adds_capacity if {
	some g in plan.groups
	g.action in {"create", "grow"}
}

cost_unknown_why := sprintf("no price for %s", [concat(", ", plan.cost.unknown_types)]) if {
	count(object.get(plan, ["cost", "unknown_types"], [])) > 0
} else := "the plan has no cost section"

# ---- protected nodes ---------------------------------------------------------------------------
# A protected node is never taken down: not destroyed (removed, replaced, its group deleted, the
# cluster deleted or replaced), and not restarted (rebooted, rolled onto a new image) or drained either.
protected := {id | some id in params.protected_node_ids}

# Each step says what it takes down: `disruption`, which the tool derives from the step kind's
# declaration (plans/steps.py, plans/disruption.py) — the effect (destroyed, restarted, drained), the
# nodes it falls on (victims, the nodes its request names, every node) and the groups whose nodes the
# service chooses among. A kind the tool adds is judged here the day it is added.
deny contains violation("protected-node", object.get(node_group, key, null), taken_down_why(number, step, key), [key]) if {
	some number, step in plan.steps
	some key in step.disruption.nodes
	key in protected
}

# A victim's own reason says why the planner chose it; any other step says what its kind does. A
# move's victims keep their instance but not their volumes (plans/steps.py "move-nodes").
taken_down_why(number, step, key) := sprintf(
	"%s: the plan moves protected node %s to another group, replacing its volumes (%s)",
	[v.group, key, v.reason],
) if {
	step.kind == "move-nodes"
	some v in step.victims
	v.node_id == key
} else := sprintf("%s: the plan removes protected node %s (%s)", [v.group, key, v.reason]) if {
	step.disruption.scope == "victims"
	some v in step.victims
	v.node_id == key
} else := sprintf(
	"step %d (%s) %s protected node %s: %s",
	[number + 1, step.operation, effect_verb[step.disruption.effect], key, step.disruption.how],
)

deny contains violation("protected-node", g.group, msg, nodes) if {
	some number, step in plan.steps
	some g in step.disruption.groups
	nodes := sort([key | some key in g.nodes; key in protected])
	count(nodes) > 0
	msg := sprintf(
		"%s: step %d (%s) %s %d of its nodes, which the service chooses, and the group holds protected node(s) %s",
		[g.group, number + 1, step.operation, effect_verb[step.disruption.effect], g.count, concat(", ", nodes)],
	)
}

effect_verb := {"destroyed": "destroys", "restarted": "restarts", "drained": "drains"}

node_group := {n.key: n.group | some n in object.get(plan, ["basis", "nodes"], [])}

# A plan whose steps carry no disruption (hand-made, or written before the member) is judged by what
# every plan holds: the victims, the groups and the action. Unknown is not safe, so these stay.
disrupted if {
	some step in plan.steps
	says_disruption(step)
}

says_disruption(step) if is_object(step.disruption)

deny contains violation("protected-node", v.group, msg, [v.node_id]) if {
	some step in plan.steps
	not says_disruption(step)
	some v in step.victims
	v.node_id in protected
	msg := sprintf("%s: the plan removes protected node %s (%s)", [v.group, v.node_id, v.reason])
}

# A group the plan deletes, or shrinks by a count the service fulfils by choosing the nodes itself
# (a Controller group, a group that is Creating or Updating): any of its protected nodes may go.
deny contains violation("protected-node", g.group, msg, nodes) if {
	not disrupted
	some g in plan.groups
	unnamed_removal(g)
	nodes := sort([n.key | some n in plan.basis.nodes; n.group == g.group; n.key in protected])
	count(nodes) > 0
	msg := sprintf(
		"%s: the plan %s, and the group holds protected node(s) %s",
		[g.group, unnamed_why(g), concat(", ", nodes)],
	)
}

# Deleting or replacing the cluster removes every node.
deny contains violation("protected-node", null, msg, nodes) if {
	not disrupted
	plan.action in {"delete", "replace"}
	nodes := sort([k | some k in basis_keys; k in protected])
	count(nodes) > 0
	msg := sprintf("%s cluster %s removes protected node(s) %s", [verb[plan.action], plan.cluster_name, concat(", ", nodes)])
}

verb := {"delete": "deleting", "replace": "replacing"}

unnamed_removal(g) if {
	plan.action == "update"
	g.action == "delete"
}

unnamed_removal(g) if {
	plan.action == "update"
	not plan.refused # a refused plan lists no steps, so no victims to compare with
	g.action == "shrink"
	named := count([v | some step in plan.steps; some v in step.victims; v.group == g.group])
	named < count_of(g.target_before) - count_of(g.target_after)
}

unnamed_why(g) := "deletes it" if g.action == "delete"

else := "lowers its count and the service chooses which nodes go"

# ---- the tool's own guards ---------------------------------------------------------------------
deny contains violation("tool-refusal", r.group, sprintf("refused by the tool's guard %s: %s", [r.rule, r.reason]), []) if {
	params.deny_refused_plans
	some r in object.get(plan, "refusals", [])
}
