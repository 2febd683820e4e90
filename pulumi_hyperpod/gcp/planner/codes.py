"""Google Cloud's reason codes: the stable words beside a plan's sentences that tools and policies match
on, one enum per idea, their values the words the plan's JSON has always carried (text only at the
edges, being `str`s: plans/codes.py). HyperPod's are aws/planner/codes.py."""

from __future__ import annotations

from pulumi_hyperpod.plans.codes import Code


class StepReason(Code):
    """Step.codes: why a step is in the plan."""

    ABSENT = "absent"  # no cluster: create it
    NOT_DESIRED = "not-desired"  # a cluster no spec wants: delete it
    CANNOT_UPDATE_IN_PLACE = "cannot-update-in-place"  # a replacement's two steps

    @staticmethod
    def changed(field: str) -> str:
        """The code of a PATCH per update-mask path it changes: `changed:<path>` (one per field, not an enum member)."""
        return f"changed:{field}"


class RefusalRule(Code):
    """Refusal.rule: the guard that said no (spelled as the Policy members they enforce, where one does)."""

    APPLY_GUARD = "apply-guard"
    CLUSTER_STATE = "cluster_state"
    LOGIN_SCALE_IN = "login_scale_in"
    MAX_HOURLY_COST_INCREASE = "max_hourly_cost_increase"
    MAX_SCALE_IN_FRACTION = "max_scale_in_fraction"
    PROTECTED_NODES = "protected_nodes"
    REPLACEMENT = "replacement"
    QUOTA = "gcp-quota"
    MACHINE_TYPE = "gcp-machine-type"
    RESERVATION = "gcp-reservation"
