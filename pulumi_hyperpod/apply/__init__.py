"""Executing a Plan through the client (apply)."""

from .executor import ApplyError, ApplyResult, ConcurrentChange, PlanRefused, PlanStale, apply, client_token
from .progress import Progress
from .waiters import WAIT_POLICIES, WaitFailed, WaitTimedOut, wait

__all__ = ["ApplyError", "ApplyResult", "ConcurrentChange", "PlanRefused", "PlanStale", "Progress", "WAIT_POLICIES", "WaitFailed", "WaitTimedOut", "apply", "client_token", "wait"]
