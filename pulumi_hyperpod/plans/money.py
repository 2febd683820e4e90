"""Money as people read it: the one formatting of dollars the plan tables and messages use."""

from __future__ import annotations


def usd(value: float) -> str:
    return f"-${-value:,.2f}" if value < 0 else f"${value:,.2f}"


def signed(value: float) -> str:
    return f"+{usd(value)}" if value > 0 else (usd(value) if value < 0 else "±$0.00")


def money(value: float | None) -> str:
    return "price unknown" if value is None else usd(value)


def rate(per_hour: float) -> str:
    text = f"{per_hour:,.4f}".rstrip("0")
    if len(text.split(".")[1]) < 2:
        text = f"{per_hour:,.2f}"
    return f"${text}/h"
