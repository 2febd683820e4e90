"""What a cluster costs: list prices, the hourly cost of a plan, and metered usage.

- `prices`: the shipped price table (`data/prices.yaml`) and the user's overrides over it.
- `estimate`: before/after/change per hour of a Plan (the typed `plan.cost` section), the budget guard.
- `metering`: instance-hours and money per group and instance, from the simulator's metering or
  estimated on AWS from ListClusterNodes and ListClusterEvents.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.cost.estimate import BUDGET_RULE, budget_refusal, plan_cost, region_of, with_cost
    from pulumi_hyperpod.aws.cost.metering import CostReport, GroupUsage, InstanceUsage, cost_report
    from pulumi_hyperpod.aws.cost.prices import (
        PRICES_ENV,
        Price,
        PriceTable,
        PriceTableError,
        as_price_table,
        default_prices,
        load_prices,
        shipped_prices,
    )

# Loaded on first use (PEP 562): pricing a plan (estimate) does not import metering's rich tables.
_EXPORTS = {
    **dict.fromkeys(["BUDGET_RULE", "budget_refusal", "plan_cost", "region_of", "with_cost"], "pulumi_hyperpod.aws.cost.estimate"),
    **dict.fromkeys(["CostReport", "GroupUsage", "InstanceUsage", "cost_report"], "pulumi_hyperpod.aws.cost.metering"),
    **dict.fromkeys(
        ["PRICES_ENV", "Price", "PriceTable", "PriceTableError", "as_price_table", "default_prices", "load_prices", "shipped_prices"],
        "pulumi_hyperpod.aws.cost.prices",
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
