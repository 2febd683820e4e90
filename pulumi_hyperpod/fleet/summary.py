"""The fleet plan: every stack's `hyperpod-plan/3` documents gathered into one (pure functions).

Nothing is recomputed: each cluster's steps, victims and cost delta are read from its plan. What
no single plan can know is the fleet's preflight on quota: plans of one account and region draw on
the same quota, so for each account × region × instance type the instances the plans add are
summed and compared with the headroom (quota − in use) the plans' own preflight sections report.
Two scale-outs that each fit alone but not together are refused here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

FLEET_PLAN_FORMAT = "hyperpod-fleet-plan/1"
DEFAULT_ACCOUNT = "default"  # a stack without `account`: the account its credentials are
# HyperPod's one quota of each cluster on its own, not of the account and region: never summed over
# the fleet (aws/preflight/quotas.py's PER_CLUSTER, code and names; tests/unit/fleet compares them)
PER_CLUSTER_QUOTA = frozenset(
    {
        "l-2ce978fc",
        "maximum number instances allowed per sagemaker hyperpod cluster",
        "maximum number of instances allowed per sagemaker hyperpod cluster",
    }
)


@dataclass(frozen=True)
class StackPlans:
    """One stack's preview: the plans its provider wrote, or the error that stopped it."""

    stack: str
    account: str | None
    region: str
    plans: tuple[Mapping[str, Any], ...] = ()
    error: str | None = None
    changes: Mapping[str, int] = field(default_factory=dict)  # the engine's own count per operation
    clusters: tuple[str, ...] = ()  # after an up: the clusters in the stack's state (a no-op up shows no plan)


@dataclass(frozen=True)
class QuotaDraw:
    """What the fleet's plans together add against one quota of one account and region."""

    account: str
    region: str
    instance_type: str
    quota_name: str
    adds: int
    headroom: float | None  # quota − in use, the smallest any plan reported (None: no plan read the quota)
    stacks: tuple[str, ...]  # the stacks that add to it, in fleet order

    @property
    def over(self) -> bool:
        return self.headroom is not None and self.adds > self.headroom

    def to_dict(self) -> dict[str, Any]:
        return {
            "account": self.account,
            "region": self.region,
            "instance_type": self.instance_type,
            "quota_name": self.quota_name,
            "adds": self.adds,
            "headroom": self.headroom,
            "stacks": list(self.stacks),
            "over": self.over,
        }

    def refusal(self) -> str:
        return (
            f"stacks {', '.join(self.stacks)} together add {self.adds} {self.instance_type} in account {self.account} "
            f"region {self.region}; the quota {self.quota_name!r} has room for {_number(self.headroom)}"
        )


def quota_draws(stacks: Iterable[StackPlans], moved: Mapping[tuple[str, str], Mapping[str, int]] | None = None) -> list[QuotaDraw]:
    """Per account × region × instance type, the instances every plan adds and the headroom. `moved`:
    per (stack, cluster), the nodes fleet moves bring it by instance type (fleet/moves.py): held
    already, so not added again (nor to a quota of every type)."""
    moved = moved or {}
    adds: dict[tuple[str, str, str], int] = {}
    headroom: dict[tuple[str, str, str], float] = {}
    names: dict[tuple[str, str, str], str] = {}
    who: dict[tuple[str, str, str], list[str]] = {}
    for stack in stacks:
        for plan in stack.plans:
            brought = moved.get((stack.stack, str(plan.get("cluster_name"))), {})
            for check in _quota_checks(plan):
                kind = check.get("instance_type") or check.get("quota_name") or "?"
                key = (stack.account or DEFAULT_ACCOUNT, stack.region, str(kind))
                names.setdefault(key, str(check.get("quota_name") or kind))
                held = brought.get(str(check["instance_type"]), 0) if check.get("instance_type") else sum(brought.values())
                added = max(int(check.get("adds") or 0) - held, 0)
                adds[key] = adds.get(key, 0) + added
                if added and stack.stack not in who.setdefault(key, []):
                    who[key].append(stack.stack)
                quota = check.get("quota")
                if quota is not None:
                    room = float(quota) - int(check.get("in_use") or 0)
                    headroom[key] = min(room, headroom.get(key, room))
    return [
        QuotaDraw(*key, quota_name=names[key], adds=adds[key], headroom=headroom.get(key), stacks=tuple(who.get(key, ())))
        for key in sorted(adds)
        if adds[key]
    ]


def _quota_checks(plan: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    quotas = (plan.get("preflight") or {}).get("quotas") or {}
    return [c for c in quotas.get("checks") or () if isinstance(c, Mapping) and not _per_cluster(c)]


def _per_cluster(check: Mapping[str, Any]) -> bool:
    return any(str(check.get(key) or "").lower() in PER_CLUSTER_QUOTA for key in ("quota_code", "quota_name"))


def cluster_summary(plan: Mapping[str, Any]) -> dict[str, Any]:
    """One cluster's line of the fleet plan, read from its plan."""
    steps = plan.get("steps") or []
    victims = [v for step in steps for v in step.get("victims") or ()]
    cost = ((plan.get("cost") or {}).get("cluster") or {}).get("delta_per_hour")
    return {
        "cluster": plan.get("cluster_name"),
        "action": plan.get("action"),
        "steps": [step.get("operation") for step in steps],
        "victims": [{"node_id": v.get("node_id"), "group": v.get("group"), "reason": v.get("reason")} for v in victims],
        "cost_delta_per_hour": cost,
        "currency": (plan.get("cost") or {}).get("currency"),
        "refusals": [r.get("reason") for r in plan.get("refusals") or ()],
        "empty": bool(plan.get("empty")),
    }


def fleet_plan(stacks: Sequence[StackPlans], moves: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The `hyperpod-fleet-plan/1` document of the fleet's previews. `moves`: the fleet moves section
    (fleet/moves.py `section`), whose moved nodes the quota preflight does not count as added."""
    moves = moves or {"enabled": False, "moves": [], "notes": []}
    moved: dict[tuple[str, str], dict[str, int]] = {}
    for move in moves["moves"]:
        per_type = moved.setdefault((move["target"]["stack"], move["target"]["cluster"]), {})
        per_type[move["instance_type"]] = per_type.get(move["instance_type"], 0) + len(move["nodes"])
    draws = quota_draws(stacks, moved)
    over = [d for d in draws if d.over]
    rows: list[dict[str, Any]] = []
    for stack in stacks:
        clusters = [cluster_summary(p) for p in stack.plans]
        rows.append(
            {
                "stack": stack.stack,
                "account": stack.account,
                "region": stack.region,
                "error": stack.error,
                "changes": dict(stack.changes),
                "clusters": clusters,
            }
        )
    refused = bool(over) or any(c["refusals"] for row in rows for c in row["clusters"])
    return {
        "format": FLEET_PLAN_FORMAT,
        "stacks": rows,
        "moves": dict(moves),
        "quotas": [d.to_dict() for d in draws],
        "refusals": [d.refusal() for d in over],
        "refused": refused,
        "errors": sum(1 for row in rows if row["error"]),
        "empty": all(not row["changes"] and all(c["empty"] for c in row["clusters"]) for row in rows),
    }


def _number(value: float | None) -> str:
    if value is None:
        return "?"
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
