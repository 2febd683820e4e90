"""Which nodes a scale-in removes, for every ClusterInstanceStatus the service model defines.

The order is the one the service uses for a MinCount rollback (seed 000, "自动回滚行为"), so a
scale-in costs the least running work; each of the model's nine statuses has its place:

| tier | statuses                              | why                                                     |
|------|---------------------------------------|---------------------------------------------------------|
| 0    | Failure, NotFound                     | doing no work: removed first                            |
| 1    | Pending (or no instance yet)          | not running yet: launching, or not launched             |
| 2    | DeepHealthCheckInProgress             | launched, not serving yet (health checks)               |
| 3    | Running                               | serving: the newest go first                            |
| —    | ShuttingDown, DetachInProgress        | already leaving the cluster: never named, not counted   |
| —    | AttachInProgress, SystemUpdating      | the service is acting on them: never named; they count  |
|      |                                       | as present, so a scale-in that needs them is refused    |
|      |                                       | (`not-enough-removable`) until they settle              |

A tier-1 node's reason says what the observation shows: launching (it has an instance), waiting for
capacity (no instance, and its status message is the service's insufficient-capacity one), or not
launched yet (no instance, no shortage reported). Its code is `never-launched` in each case: the
node runs nothing yet, which is why it goes first.

A status the model does not know (a newer service) is never named either: unknown is not safe.
Never a Controller node, never a protected node. Pure: apply calls it again on a fresh observation
when a chosen node changed state in the meantime.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Sequence

from pulumi_hyperpod.aws.planner.codes import VictimReason
from pulumi_hyperpod.aws.observe.state import NodeState
from pulumi_hyperpod.plans.model import Victim

_EPOCH = dt.datetime.min.replace(tzinfo=dt.timezone.utc)

TIERS: dict[str, int] = {"Failure": 0, "NotFound": 0, "Pending": 1, "DeepHealthCheckInProgress": 2, "Running": 3}
LEAVING = frozenset({"ShuttingDown", "DetachInProgress"})  # going already: neither named nor counted as present
BUSY = frozenset({"AttachInProgress", "SystemUpdating"})  # the service is acting on them: never named
STATUSES = frozenset(TIERS) | LEAVING | BUSY  # the nine values of ClusterInstanceStatus (a test reads the model)
_UNTIERED_UNLAUNCHED = LEAVING | BUSY  # a node never launched has tier 1 unless it is in one of these (_tier)
CODES = {
    0: VictimReason.UNHEALTHY,
    1: VictimReason.NEVER_LAUNCHED,
    2: VictimReason.HEALTH_CHECKS,
    3: VictimReason.NEWEST,
}  # Victim.code, by tier
# the insufficient-capacity message of a node the service could not launch: the EC2 error's code and
# sentence ("We currently do not have sufficient ml.p5.48xlarge capacity ...") and the service's
# ("... sufficient capacity to launch new ml.p5.48xlarge instances")
SHORTAGE = re.compile(r"insufficient\s*(?:instance\s*)?capacity|\bsufficient\s+(?:\S+\s+)?capacity", re.IGNORECASE)
_WHY = {
    0: "unhealthy nodes are removed first",
    1: "removed before any running node",
    2: "still in deep health checks, not serving yet: removed before running nodes",
    3: "the newest nodes go first",
}


def _blocked(node: NodeState, blocked: set[str]) -> bool:
    return node.instance_id in blocked or (node.logical_id is not None and node.logical_id in blocked)


def removable(nodes: Iterable[NodeState], node_type: str | None, protected: Iterable[str], exclude: Iterable[str] = ()) -> list[NodeState]:
    """Nodes a plan may name: not a Controller's, not protected, in a status with a tier, listed once."""
    if node_type == "Controller":
        return []
    blocked = set(protected) | set(exclude)
    seen: set[str] = set()
    chosen = []
    # One pass with the checks inlined (key, tier, blocked): at 20,000 nodes this loop is the planner's hot path.
    for node in nodes:
        key = node.instance_id or node.logical_id
        if not key or key in seen:
            continue
        if node.instance_id:
            if node.status not in TIERS:
                continue
        elif node.status in _UNTIERED_UNLAUNCHED:
            continue
        if blocked and _blocked(node, blocked):
            continue
        seen.add(key)  # a listing that names a node twice must never make a request that names it twice
        chosen.append(node)
    return chosen


def held_back(nodes: Iterable[NodeState], protected: Iterable[str]) -> str:
    """Why nodes of a group cannot be named, in words (for a `not-enough-removable` refusal)."""
    guarded = set(protected)
    counts: dict[str, int] = {}
    for node in nodes:
        if node.status in LEAVING:
            continue
        if _blocked(node, guarded):
            counts["protected"] = counts.get("protected", 0) + 1
        elif _tier(node) is None:
            counts[node.status] = counts.get(node.status, 0) + 1
    if not counts:
        return "0 protected"
    return ", ".join(f"{count} {what}" for what, count in sorted(counts.items())) + (
        "; nodes the service is acting on are never named: plan again when they settle" if set(counts) - {"protected"} else ""
    )


def _tier(node: NodeState) -> int | None:
    if not node.launched and node.status not in LEAVING | BUSY:
        return 1  # a logical id only: nothing runs on it yet, whatever the status says
    return TIERS.get(node.status)


def _rank(node: NodeState) -> tuple:
    # newest first inside a tier; the id breaks ties so the choice never depends on list order
    launched = node.launch_time or _EPOCH
    return (_tier(node), -launched.timestamp(), node.key)


def _reason(node: NodeState, tier: int | None = None) -> str:
    """Victim.reason in the service's order; `tier`: _tier(node), when the caller has it already."""
    tier = _tier(node) if tier is None else tier
    if tier == 0:
        detail = f" ({node.message})" if node.message else ""
        return f"{node.status}{detail}: {_WHY[0]}"
    if tier == 1:
        return f"{_not_running(node)}: {_WHY[1]}"
    if tier == 2:
        return f"{node.status}: {_WHY[2]}"
    when = launched_at(node.launch_time) if node.launch_time else "unknown"
    return f"{node.status}, launched {when}: {_WHY[3]}"


def short_of_capacity(node: NodeState) -> bool:
    """No instance, and the service says why: its insufficient-capacity message."""
    return not node.launched and SHORTAGE.search(node.message or "") is not None


def _not_running(node: NodeState) -> str:
    """A tier-1 node in words, from what the observation shows (never a shortage it does not report)."""
    if node.launched:
        since = f" since {launched_at(node.launch_time)}" if node.launch_time else ""
        detail = f" ({node.message})" if node.message else ""  # the service's word on where it is
        return f"{node.status}, launching{since}{detail}"
    if short_of_capacity(node):
        return f"never launched, waiting for capacity ({node.message})"
    return "not launched yet"


def launched_at(when: dt.datetime) -> str:
    """`when.strftime("%Y-%m-%d %H:%M:%SZ")`, at half its cost for the years it writes alike (from 1000 on):
    a scale-in's reasons name hundreds of launch times."""
    if when.year < 1000:
        return when.strftime("%Y-%m-%d %H:%M:%SZ")
    return f"{when.year:04d}-{when.month:02d}-{when.day:02d} {when.hour:02d}:{when.minute:02d}:{when.second:02d}Z"


def choose(nodes: Sequence[NodeState], count: int) -> list[Victim]:
    """The `count` best nodes to remove among `nodes` (already filtered by `removable`)."""
    ordered = sorted(removable(nodes, None, ()), key=_rank)[: max(count, 0)]
    return [
        Victim(group=n.group, node_id=n.key, logical=not n.launched, status=n.status, reason=_reason(n), code=CODES[_tier(n)])
        for n in ordered
    ]
