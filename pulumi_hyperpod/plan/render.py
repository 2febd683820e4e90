"""A Plan for people: a rich table (CLI) and the same table as plain text (Pulumi previews)."""

from __future__ import annotations

import io
from typing import Any

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .model import Plan

_ACTION_STYLE = {"create": "green", "grow": "green", "shrink": "red", "delete": "red", "configure": "yellow", "unchanged": "dim"}


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def plan_renderable(plan: Plan) -> Any:
    title = f"Plan for cluster {plan.cluster_name or '(none)'}: {plan.action}"
    parts: list[Any] = [Text(title, style="bold")]
    if plan.groups:
        table = Table(show_lines=False, title=None)
        for column in ("group", "type", "action", "target", "current", "min", "changes"):
            table.add_column(column)
        for g in plan.groups:
            target = _count(g.target_before) if g.target_after == g.target_before else f"{_count(g.target_before)} → {_count(g.target_after)}"
            minimum = _count(g.min_before) if g.min_after == g.min_before else f"{_count(g.min_before)} → {_count(g.min_after)}"
            delta = f" ({g.delta:+d})" if g.delta and g.action in ("grow", "shrink") else ""
            table.add_row(
                g.group,
                g.node_type or ",".join(g.instance_types[:1]) or "-",
                Text(g.action + delta, style=_ACTION_STYLE.get(g.action, "")),
                target,
                _count(g.current),
                minimum,
                ", ".join(g.config_changes) or "",
            )
        parts.append(table)
    if plan.steps:
        steps = Table(title="Steps (in order)", title_justify="left")
        for column in ("#", "call", "why"):
            steps.add_column(column)
        for index, step in enumerate(plan.steps, 1):
            steps.add_row(str(index), step.operation, "\n".join(step.reasons))
        parts.append(steps)
    if plan.victims:
        victims = Table(title="Nodes that would be removed", title_justify="left")
        for column in ("node", "group", "status", "why"):
            victims.add_column(column)
        for v in plan.victims:
            victims.add_row(v.node_id + (" (logical id)" if v.logical else ""), v.group, v.status, v.reason)
        parts.append(victims)
    for reason in plan.replacements:
        parts.append(Text(f"REPLACE: {reason}", style="bold red"))
    for refusal in plan.refusals:
        parts.append(Text(f"REFUSED [{refusal.rule}]: {refusal.reason}", style="bold red"))
    for note in plan.notes:
        parts.append(Text(f"note: {note}", style="cyan"))
    for section in plan.extras.values():
        lines = section.get("lines") if isinstance(section, dict) else None
        for line in lines or ():
            parts.append(Text(line))
    if plan.empty:
        parts.append(Text("No changes: the cluster matches the spec.", style="green"))
    else:
        calls = ", ".join(f"{n} × {op}" for op, n in plan.calls().items()) or "no calls"
        parts.append(Text(f"API calls: {calls}"))
    return Group(*parts)


def plan_text(plan: Plan, width: int = 110) -> str:
    """The table as plain text, without colour codes (for logs and `pulumi preview`)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, color_system=None, force_terminal=False, legacy_windows=False)
    console.print(plan_renderable(plan))
    return buffer.getvalue().rstrip() + "\n"
