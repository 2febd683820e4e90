"""What a GCP plan costs per hour: node pools × the list price of their machine type.

Prices come from data/gcp_prices.yaml (overridable with $HYPERPOD_GCP_PRICES). A machine type or
provisioning model with no known price is "price unknown" — the cluster's total is then unknown
too, never computed as if that pool were free.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.core.errors import InputError
import yaml
from pulumi_hyperpod.core.documents import read_document

PRICES_ENV = "HYPERPOD_GCP_PRICES"
_MODEL_SECTION = {"ON_DEMAND": "on_demand", "RESERVATION": "on_demand", None: "on_demand", "SPOT": "spot", "FLEX_START": "flex_start"}


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


class GcpPricesError(InputError):
    """A $HYPERPOD_GCP_PRICES file that is not a price table: every problem with its field path,
    the variable and the file named."""

    kind = "price file"


SECTIONS = ("on_demand", "spot", "flex_start")


def _override(path: str) -> dict:
    """The $HYPERPOD_GCP_PRICES file, read like every other input (size, depth, YAML 1.2: core/documents.py)
    and checked: a price is a number of USD per node-hour, 0 or more (a negative one would let a
    scale-out pass the cost guard)."""
    source = f"${PRICES_ENV} ({path})"
    try:
        extra = read_document(Path(path), GcpPricesError)
    except GcpPricesError as error:
        raise GcpPricesError(error.violations, source=source) from None
    if extra is None:
        return {}
    if not isinstance(extra, dict):
        raise GcpPricesError(
            [Violation("", f"a price file is a mapping (on_demand: {{MACHINE_TYPE: USD}}, …); got a {type(extra).__name__}")], source=source
        )
    problems = []
    for name in SECTIONS:
        section = extra.get(name)
        if section is None:
            continue
        if not isinstance(section, dict):
            problems.append(Violation(name, f"a mapping of machine type to USD per node-hour; got a {type(section).__name__}"))
            continue
        for machine_type, value in section.items():
            price = value.get("usd") if isinstance(value, dict) else value
            if isinstance(price, bool) or not isinstance(price, (int, float)) or not price >= 0 or price == float("inf"):
                problems.append(
                    Violation(
                        f"{name}.{machine_type}", f"a price is a number of USD per node-hour, 0 or more (or {{usd: NUMBER}}); got {price!r}"
                    )
                )
    applies = extra.get("applies_in")
    if applies is not None and not (isinstance(applies, list) and all(isinstance(r, str) for r in applies)):
        problems.append(Violation("applies_in", "a list of regions"))
    if problems:
        raise GcpPricesError(problems, source=source)
    return extra


@lru_cache(maxsize=4)
def _load(override: str | None) -> PriceTable:
    base = yaml.safe_load(resources.files("pulumi_hyperpod").joinpath("data/gcp_prices.yaml").read_text(encoding="utf-8"))
    if override:
        extra = _override(override)
        for key, value in extra.items():
            base[key] = {**base.get(key, {}), **value} if isinstance(value, dict) and isinstance(base.get(key), dict) else value
    sections = {name: {k: float(v["usd"] if isinstance(v, dict) else v) for k, v in (base.get(name) or {}).items()} for name in SECTIONS}
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
            unknown.append(
                f"{pool.machine_type}"
                + (f" ({pool.provisioning_model})" if pool.provisioning_model not in (None, "ON_DEMAND", "RESERVATION") else "")
            )
        else:
            total += price * pool.count
    return (None if unknown else round(total, 6)), sorted(set(unknown))


@dataclass(frozen=True)
class PoolCost:
    pool: str
    action: str
    machine_type: str
    before: int
    after: int
    price: float | None  # USD per node-hour; None: price unknown
    # a pool whose machine type changes across a replacement: what its nodes were, and their price
    machine_type_before: str | None = None
    price_before: float | None = None

    @property
    def old_type(self) -> str:
        return self.machine_type_before or self.machine_type

    @property
    def old_price(self) -> float | None:
        return self.price_before if self.machine_type_before else self.price


@dataclass(frozen=True)
class GcpCost:
    currency: str
    region: str
    prices_from: str
    pools: tuple[PoolCost, ...]
    before: float | None
    after: float | None
    delta: float | None  # known when every changed pool has a price
    unknown: tuple[str, ...]
    unknown_increase: bool
    lines: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        data = dataclasses.asdict(self)
        data["lines"] = list(self.lines)
        return data


def estimate(before: list[PoolCount], after: list[PoolCount], location: str):
    """The plan's cost: each pool before/after at its list price, the cluster's totals, and the
    change (known when every pool whose count changes has a price)."""
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
        action = (
            "create"
            if pool_id not in was
            else "delete"
            if pool_id not in now
            else ("grow" if count_after > count_before else "shrink" if count_after < count_before else "unchanged")
        )
        old_one = was.get(pool_id)
        if (
            old_one is not None
            and pool_id in now
            and (old_one.machine_type, old_one.provisioning_model) != (one.machine_type, one.provisioning_model)
        ):
            # a pool whose machine type changes across a replacement: its old nodes at their price go, the new ones come
            pools.append(
                PoolCost(
                    pool_id,
                    "replace",
                    one.machine_type,
                    count_before,
                    count_after,
                    price,
                    old_one.machine_type,
                    table.hourly(old_one.machine_type, old_one.provisioning_model, location),
                )
            )
            delta = _replaced_line(lines, delta, old_one, one, table, location)
            continue
        pools.append(PoolCost(pool_id, action, one.machine_type, count_before, count_after, price))
        if count_after == count_before:
            continue
        if price is None:
            delta = None
            lines.append(
                f"cost: pool {pool_id} {count_before} → {count_after} × {one.machine_type}: price unknown "
                f"(no list price for it in {location}; add it with a ${PRICES_ENV} file)"
            )
        else:
            change = (count_after - count_before) * price
            delta = None if delta is None else delta + change
            lines.append(f"cost: pool {pool_id} {count_before} → {count_after} × {one.machine_type} at ${price:.4f}/h: {change:+.2f} USD/h")
    unknown = tuple(sorted(set(old_unknown) | set(new_unknown)))
    total = (f"${old:.2f}/h" if old is not None else "unknown") + " → " + (f"${new:.2f}/h" if new is not None else "unknown")
    if before or after:
        lines.append(f"cost: cluster {total} (list prices checked {table.checked}; unknown: {', '.join(unknown) or 'none'})")
    return GcpCost(
        currency="USD",
        region=location,
        prices_from=table.source,
        pools=tuple(pools),
        before=old,
        after=new,
        delta=None if delta is None else round(delta, 6),
        unknown=unknown,
        unknown_increase=_unknown_increase(before, after, location, table),
        lines=tuple(lines),
    )


def _replaced_line(lines: list[str], delta: float | None, old: PoolCount, new: PoolCount, table: PriceTable, location: str) -> float | None:
    old_price = table.hourly(old.machine_type, old.provisioning_model, location)
    new_price = table.hourly(new.machine_type, new.provisioning_model, location)
    what = f"cost: pool {new.pool} replaced: {old.count} × {old.machine_type} → {new.count} × {new.machine_type}"
    if old_price is None or new_price is None:
        lines.append(f"{what}: price unknown (add it with a ${PRICES_ENV} file)")
        return None
    change = new.count * new_price - old.count * old_price
    lines.append(f"{what}: {change:+.2f} USD/h")
    return None if delta is None else delta + change


def _unknown_increase(before: list[PoolCount], after: list[PoolCount], location: str, table: PriceTable) -> bool:
    """An unpriced pool grows: the cost change has no upper bound that can be shown."""
    was = {p.pool: p for p in before}

    def grows(p: PoolCount) -> bool:
        old = was.get(p.pool)
        replaced = old is not None and (old.machine_type, old.provisioning_model) != (p.machine_type, p.provisioning_model)
        return p.count > (0 if old is None or replaced else old.count)

    return any(grows(p) and table.hourly(p.machine_type, p.provisioning_model, location) is None for p in after)
