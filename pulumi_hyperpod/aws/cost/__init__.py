"""What a cluster costs: list prices, the hourly cost of a plan, and metered usage.

- `prices`: the shipped price table (`data/prices.yaml`) and the user's overrides over it.
- `estimate`: before/after/change per hour of a Plan (the typed `plan.cost` section), the budget guard.
- `metering`: instance-hours and money per group and instance, from the simulator's metering or
  estimated on AWS from ListClusterNodes and ListClusterEvents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from .estimate import BUDGET_RULE, budget_refusal, plan_cost, region_of, with_cost
    from .metering import CostReport, GroupUsage, InstanceUsage, cost_report
    from .prices import PRICES_ENV, Price, PriceTable, PriceTableError, as_price_table, default_prices, load_prices, shipped_prices

# Loaded on first use (PEP 562): pricing a plan (estimate) does not import metering's rich tables.
_EXPORTS = {
    **dict.fromkeys(["BUDGET_RULE", "budget_refusal", "plan_cost", "region_of", "with_cost"], ".estimate"),
    **dict.fromkeys(["CostReport", "GroupUsage", "InstanceUsage", "cost_report"], ".metering"),
    **dict.fromkeys(
        ["PRICES_ENV", "Price", "PriceTable", "PriceTableError", "as_price_table", "default_prices", "load_prices", "shipped_prices"],
        ".prices",
    ),
}

__all__ = [
    "BUDGET_RULE",
    "PRICES_ENV",
    "CostReport",
    "GroupUsage",
    "InstanceUsage",
    "Price",
    "PriceTable",
    "PriceTableError",
    "as_price_table",
    "budget_refusal",
    "cost_report",
    "default_prices",
    "load_prices",
    "plan_cost",
    "region_of",
    "shipped_prices",
    "with_cost",
]

__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
