"""Capacity pools per (instance type, availability zone).

A pool holds the number of *free* instances; launching takes one, terminating gives it back. A
pair the scenario does not mention is unlimited. A pool without an AZ is shared by every AZ of
that type (handy for "12 p5s in the region"); a per-AZ pool, when present, wins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws.scenario import Scenario

ANY_AZ = "*"


def reserved(instance_type: str, training_plan: str) -> str:
    """The pool of a training plan's reserved instances of a type (not the on-demand pool)."""
    return f"{instance_type}@{training_plan}"


def _key(instance_type: str, az: str | None) -> str:
    return f"{instance_type}|{az or ANY_AZ}"


class CapacityPools:
    def __init__(self, pools: dict[str, int] | None = None) -> None:
        self.pools: dict[str, int] = dict(pools or {})

    @classmethod
    def from_scenario(cls, scenario: Scenario) -> CapacityPools:
        pools = cls()
        for pool in scenario.capacity:
            pools.set(pool.instance_type, pool.availability_zone, pool.available)
        for arn, plan in scenario.training_plans.items():
            pools.set(reserved(plan.instance_type, arn), None, plan.count)
        return pools

    def set(self, instance_type: str, az: str | None, available: int) -> None:
        self.pools[_key(instance_type, az)] = max(0, int(available))

    def unlimit(self, instance_type: str, az: str | None) -> None:
        """The pair becomes unlimited again (a shortage lifted)."""
        self.pools.pop(_key(instance_type, az), None)

    def add(self, instance_type: str, az: str | None, count: int) -> None:
        """Grow (or shrink) a pool; growing an unlimited pair makes no sense, so it stays unlimited."""
        key = _key(instance_type, az)
        if key in self.pools:
            self.pools[key] = max(0, self.pools[key] + int(count))

    def _pool(self, instance_type: str, az: str) -> str | None:
        for key in (_key(instance_type, az), _key(instance_type, None)):
            if key in self.pools:
                return key
        return None

    def available(self, instance_type: str, az: str) -> int | None:
        """Free instances, or None for unlimited."""
        key = self._pool(instance_type, az)
        return None if key is None else self.pools[key]

    def take(self, instance_type: str, az: str) -> tuple[bool, list | None]:
        """(launched?, the pool to give the instance back to on termination)."""
        key = self._pool(instance_type, az)
        if key is None:
            return True, None
        if self.pools[key] <= 0:
            return False, None
        self.pools[key] -= 1
        type_, zone = key.split("|")
        return True, [type_, None if zone == ANY_AZ else zone]

    def release(self, held: list | None) -> None:
        if held:
            key = _key(held[0], held[1])
            if key in self.pools:
                self.pools[key] += 1

    def to_row(self) -> dict[str, int]:
        return dict(self.pools)
