"""Task governance's reason codes (plans/codes.py): the guard that refused a plan, and what a change
does to running work — a step's `preempts:<code>` beside its sentence (planner.py)."""

from __future__ import annotations

from pulumi_hyperpod.plans.codes import Code


class GovernanceRefusal(Code):
    NOT_EKS = "not-eks"  # task governance is for EKS-orchestrated clusters
    BUSY = "busy"  # the resource is Creating, Updating or Deleting: the service refuses a change until it settles


class Preemption(Code):
    """What a change can preempt, where botocore's model documents it (planner.py's docstring cites each)."""

    QUOTA_LOWERED = "quota-lowered"
    QUOTA_DISABLED = "quota-disabled"
    QUOTA_DELETED = "quota-deleted"
    LENDING_STOPPED = "lending-stopped"
    BORROWING_STOPPED = "borrowing-stopped"
    BORROW_LIMIT_CUT = "borrow-limit-cut"
    TEAM_PREEMPTION_ON = "team-preemption-on"
    PRIORITIES_CHANGED = "priorities-changed"
    FAIR_SHARE_OFF = "fair-share-off"
    POLICY_DELETED = "policy-deleted"

    @property
    def code(self) -> str:
        return f"preempts:{self.value}"


def changed(member: str) -> str:
    """The code of a step that changes `member` in place."""
    return f"changed:{member}"
