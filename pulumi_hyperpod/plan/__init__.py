"""Turning desired vs observed into ordered API steps (plan)."""

from .model import GroupChange, Plan, Refusal, Step, Victim
from .planner import api_limits, fingerprint, plan
from .policy import Policy
from .render import plan_renderable, plan_text

__all__ = ["GroupChange", "Plan", "Policy", "Refusal", "Step", "Victim", "api_limits", "fingerprint", "plan", "plan_renderable", "plan_text"]
