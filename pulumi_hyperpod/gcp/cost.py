"""What a GCP plan costs per hour: node pools × the list price of their machine type.

Prices come from data/gcp_prices.yaml (overridable with $HYPERPOD_GCP_PRICES). A machine type or
provisioning model with no known price is "price unknown" — the cluster's total is then unknown
too, never computed as if that pool were free.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path

PRICES_ENV = "HYPERPOD_GCP_PRICES"
_MODEL_SECTION = {"ON_DEMAND": "on_demand", "RESERVATION": "on_demand", None: "on_demand",
                  "SPOT": "spot", "FLEX_START": "flex_start"}


@dataclass(frozen=True)
class PriceTable:
    sections: dict[str, dict[str, float]]
    applies_in: tuple[str, ...]
    checked: str
    override: str | None = None  # the $HYPERPOD_GCP_PRICES file layered over the shipped table

    @property
    def source(self) -> str:
        shipped = f"data/gcp_prices.yaml (checked {self.checked})"
        return f"{shipped} + {self.override} (${PRICES_ENV})" if self.override else shipped

    def hourly(self, machine_type: str, provisioning_model: str | None, location: str) -> float | None:
        if self.applies_in and location not in self.applies_in:
            return None
        section = self.sections.get(_MODEL_SECTION.get(provisioning_model, "on_demand"), {})
        return section.get(machine_type)


@lru_cache(maxsize=4)
def _load(override: str | None) -> PriceTable:
    import yaml

    base = yaml.safe_load(resources.files("pulumi_hyperpod").joinpath("data/gcp_prices.yaml").read_text(encoding="utf-8"))
    if override:
        extra = yaml.safe_load(Path(override).read_text(encoding="utf-8")) or {}
        for key, value in extra.items():
            base[key] = {**base.get(key, {}), **value} if isinstance(value, dict) and isinstance(base.get(key), dict) else value
    sections = {name: {k: float(v["usd"] if isinstance(v, dict) else v) for k, v in (base.get(name) or {}).items()}
                for name in ("on_demand", "spot", "flex_start")}
    return PriceTable(sections, tuple(base.get("applies_in") or ()), str(base.get("checked") or ""), override)


def price_table() -> PriceTable:
    return _load(os.environ.get(PRICES_ENV) or None)


@dataclass(frozen=True)
class PoolCount:
    pool: str
    machine_type: str
    provisioning_model: str | None
    count: int


def hourly(pools: list[PoolCount], location: str, table: PriceTable) -> tuple[float | None, list[str]]:
    """(total USD/hour or None, the machine types with no price)."""
    total, unknown = 0.0, []
    for pool in pools:
        if pool.count == 0:
            continue
        price = table.hourly(pool.machine_type, pool.provisioning_model, location)
        if price is None:
            unknown.append(f"{pool.machine_type}" + (f" ({pool.provisioning_model})" if pool.provisioning_model not in (None, "ON_DEMAND", "RESERVATION") else ""))
        else:
            total += price * pool.count
    return (None if unknown else round(total, 6)), sorted(set(unknown))


def estimate(before: list[PoolCount], after: list[PoolCount], location: str):
    """The plan's cost: each pool before/after at its list price, the cluster's totals, and the
    change (known when every pool whose count changes has a price)."""
    from .plan_build import GcpCost, PoolCost

    table = price_table()
    old, old_unknown = hourly(before, location, table)
    new, new_unknown = hourly(after, location, table)
    was = {p.pool: p for p in before}
    now = {p.pool: p for p in after}
    pools, lines = [], []
    delta: float | None = 0.0
    for pool_id in [*now, *(p for p in was if p not in now)]:
        one = now.get(pool_id) or was[pool_id]
        count_before = was[pool_id].count if pool_id in was else 0
        count_after = now[pool_id].count if pool_id in now else 0
        price = table.hourly(one.machine_type, one.provisioning_model, location)
        action = "create" if pool_id not in was else "delete" if pool_id not in now else (
            "grow" if count_after > count_before else "shrink" if count_after < count_before else "unchanged")
        pools.append(PoolCost(pool_id, action, one.machine_type, count_before, count_after, price))
        if count_after == count_before:
            continue
        if price is None:
            delta = None
            lines.append(f"cost: pool {pool_id} {count_before} → {count_after} × {one.machine_type}: price unknown "
                         f"(no list price for it in {location}; add it with a ${PRICES_ENV} file)")
        else:
            change = (count_after - count_before) * price
            delta = None if delta is None else delta + change
            lines.append(f"cost: pool {pool_id} {count_before} → {count_after} × {one.machine_type} at ${price:.4f}/h: "
                         f"{change:+.2f} USD/h")
    unknown = tuple(sorted(set(old_unknown) | set(new_unknown)))
    total = (f"${old:.2f}/h" if old is not None else "unknown") + " → " + (f"${new:.2f}/h" if new is not None else "unknown")
    if before or after:
        lines.append(f"cost: cluster {total} (list prices checked {table.checked}; unknown: {', '.join(unknown) or 'none'})")
    return GcpCost(currency="USD", region=location, prices_from=table.source,
                   pools=tuple(pools), before=old, after=new, delta=None if delta is None else round(delta, 6),
                   unknown=unknown, unknown_increase=_unknown_increase(before, after, location, table), lines=tuple(lines))


def _unknown_increase(before: list[PoolCount], after: list[PoolCount], location: str, table: PriceTable) -> bool:
    """An unpriced pool grows: the cost change has no upper bound that can be shown."""
    was = {p.pool: p.count for p in before}
    return any(p.count > was.get(p.pool, 0) and table.hourly(p.machine_type, p.provisioning_model, location) is None
               for p in after)
