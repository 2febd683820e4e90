"""HyperPod's reason codes: the stable words beside a plan's sentences that tools and policies match on
(Terraform's ActionReason). One enum per idea — why a step is planned, why a node is the one removed,
which guard refused — whose values are the words the plan's JSON has always carried (policies/rego
and the CrossGuard pack read them); they become text only at the edges (plans/render.py, the JSON),
being `str`s (plans/codes.py)."""

from __future__ import annotations

from pulumi_hyperpod.plans.codes import Code


class StepReason(Code):
    """Step.codes: why a step is in the plan."""

    ABSENT = "absent"  # no cluster: create it
    NOT_DESIRED = "not-desired"  # a cluster no spec wants: delete it
    CANNOT_UPDATE_IN_PLACE = "cannot-update-in-place"  # a replacement's two steps
    GROW = "grow"
    SHRINK = "shrink"
    SCALE_IN = "scale-in"  # the drain before a scale-in's deletes
    CANARY = "canary"  # the first nodes of a canary scale-out (aws/planner/canary.py)
    AFTER_CANARY = "after-canary"  # the rest, once the canary passed
    TAGS_DIFFER = "tags-differ"
    IMAGE_DIFFERS = "image-differs"  # a software rollout
    FAILED_NODE = "failed-node"  # a node in Failure, replaced (policy failed_nodes=replace)
    REBOOT_REQUESTED = "reboot-requested"  # --reboot
    REPLACE_REQUESTED = "replace-requested"  # --replace
    MOVE = "move"  # nodes one group loses and another gains of the same type: moved (aws/planner/moves.py)
    EXTENSION_DIFFERS = "extension-differs"  # a cluster extension's version or configuration (aws/planner/extensions.py)
    FLEET_MOVE = "fleet-move"  # ... and the gaining group is another cluster's of the fleet (fleet/moves.py)

    @classmethod
    def requested(cls, verb: str) -> StepReason:
        """The code of a repair asked for by node (`verb`: reboot | replace)."""
        return cls(f"{verb}-requested")


class VictimReason(Code):
    """Victim.code: why this node is removed rather than another (aws/planner/victims.py, workload_order.py)."""

    UNHEALTHY = "unhealthy"
    NEVER_LAUNCHED = "never-launched"
    HEALTH_CHECKS = "health-checks"
    NEWEST = "newest"
    OLDEST = "oldest"
    REMOVE_FIRST = "remove-first"  # policy remove_first
    DRAINED_ALREADY = "drained-already"
    MARKED_FOR_REPLACEMENT = "marked-for-replacement"
    IDLE = "idle"
    WORK_ENDS_SOONEST = "work-ends-soonest"
    WORK_WITHOUT_END = "work-without-end"
    WORKLOAD_UNKNOWN = "workload-unknown"
    DISRUPTION_BUDGET = "disruption-budget"


class RefusalRule(Code):
    """Refusal.rule: the guard that said no."""

    APPLY_GUARD = "apply-guard"  # apply's re-check against the cluster as it is (aws/apply/guards.py)
    AUTOSCALING_CLUSTER_ROLE = "autoscaling-cluster-role"
    CLUSTER_DELETING = "cluster-deleting"
    CONFLICTING_NODE_REQUESTS = "conflicting-node-requests"
    CONTROLLER_DISRUPTION = "controller-disruption"
    CONTROLLER_GROUP = "controller-group"
    CONTROLLER_REPLACE = "controller-replace"
    CONTROLLER_SCALE_IN = "controller-scale-in"
    EXTENSION_BUSY = "extension-busy"  # a wanted extension still being deleted (aws/planner/extensions.py)
    EXTENSION_DOWNGRADE = "extension-downgrade"  # a version earlier than the installed one
    GROUP_DELETING = "group-deleting"
    IMMUTABLE_GROUP_FIELD = "immutable-group-field"
    LOGIN_DISRUPTION = "login-disruption"
    LOGIN_SCALE_IN = "login-scale-in"
    MAX_HOURLY_COST_INCREASE = "max-hourly-cost-increase"
    MAX_SCALE_IN_FRACTION = "max-scale-in-fraction"
    MAX_UNAVAILABLE_FRACTION = "max-unavailable-fraction"
    NODE_LEAVING = "node-leaving"
    NOT_ENOUGH_REMOVABLE = "not-enough-removable"
    NOT_LAUNCHED = "not-launched"
    PROTECTED_NODE = "protected-node"
    REPLACEMENT = "replacement"
    ROLES_DISAGREE = "roles-disagree"
    SERVICE_QUOTA = "service-quota"
    SLURM_CHANGE = "slurm-change"
    SLURM_MIGRATION = "slurm-migration"
    SLURM_ROLES_UNKNOWN = "slurm-roles-unknown"
    SLURM_UNKNOWN = "slurm-unknown"
    TRAINING_PLAN = "training-plan"
    UNKNOWN_NODE = "unknown-node"
