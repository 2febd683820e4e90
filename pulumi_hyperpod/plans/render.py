"""A Plan for people: rich tables (CLI) and the same tables as plain text (Pulumi previews).

The one place a Plan becomes text. Every cell and line is a `rich.text.Text`, so group names,
cluster names, reasons and paths are printed as written, never read as markup.
"""

from __future__ import annotations

import io
from typing import Any
from collections.abc import Iterable

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from pulumi_hyperpod.core.terminal import shown
from pulumi_hyperpod.plans.disruption import of_plan
from pulumi_hyperpod.plans.model import Plan
from pulumi_hyperpod.plans.money import money, rate, signed, usd
from pulumi_hyperpod.plans.sections import CostSection, GroupCost, PreflightSection, QuotaSection

_ACTION_STYLE = {"create": "green", "grow": "green", "shrink": "red", "delete": "red", "configure": "yellow", "unchanged": "dim"}
_QUOTA_MARK = {"ok": "ok", "near": "NEAR", "over": "OVER", "over-already": "OVER (already)", "unknown": "no quota found"}
_QUOTA_SHORT = {"L-2CE978FC": "instances per cluster", "L-3308CCC7": "instances across clusters"}


def _t(value: Any, style: str = "") -> Text:
    return Text("" if value is None else str(value), style=style)


def _count(value: int | None) -> str:
    return "-" if value is None else str(value)


def _table(title: str | None, columns: Iterable[str], right: Iterable[str] = ()) -> Table:
    table = Table(title=Text(title) if title else None, title_justify="left")
    aligned = set(right)
    for column in columns:
        # fold rather than cut: a name or an id is never shown shortened to "…"
        table.add_column(Text(column), justify="right" if column in aligned else "left", overflow="fold")
    return table


# A scale-in of thousands of nodes would print thousands of rows (a Pulumi preview shows each line
# twice: as it comes and in the diagnostics); the table shows the first ones, in the order they go,
# and says how many more there are and where the full list is.
VICTIMS_SHOWN = 20
VICTIMS_ELSEWHERE = "`hyperpod plan --json` lists them all"
DISRUPTION_SHOWN = 5  # node ids on a step's disruption line; the JSON's `disruption` lists them all


def plan_renderable(
    plan: Plan, victims_shown: int | None = VICTIMS_SHOWN, victims_elsewhere: str = VICTIMS_ELSEWHERE, subject: str | None = None
) -> Any:
    """`victims_shown`: rows of the removed-nodes table (None: all of them); `victims_elsewhere`:
    where the rest are listed; `subject`: what the plan is for when it is not the cluster itself (a
    compute quota on it)."""
    header = subject or f"cluster {plan.cluster_name or '(none)'}"
    parts: list[Any] = [Text(f"Plan for {header}: {plan.action}", style="bold")]
    if plan.groups:
        parts.append(_groups(plan))
    if plan.steps:
        parts.append(_steps(plan))
    parts.extend(_victims(plan, victims_shown, victims_elsewhere))
    parts.extend(_notes(plan))
    if plan.cost is not None and plan.cost.groups:
        parts.append(cost_renderable(plan.cost, if_allowed=plan.refused))
    if plan.preflight is not None:
        parts.append(preflight_renderable(plan.preflight, plan))
    parts.append(_outcome(plan, subject))
    return Group(*parts)


def _steps(plan: Plan) -> Table:
    steps = _table("Steps (in order)", ("#", "call", "why"))
    for index, (step, disruption) in enumerate(zip(plan.steps, of_plan(plan), strict=True), 1):
        # what the step takes down, from its kind's declaration (plans/disruption.py): the same
        # words for every kind, a long list cut with a count
        taken = disruption.words(DISRUPTION_SHOWN)
        steps.add_row(_t(index), _t(step.operation), _t("\n".join(step.reasons + ((f"disruption: {taken}",) if taken else ()))))
    return steps


def _victims(plan: Plan, victims_shown: int | None, victims_elsewhere: str) -> list[Any]:
    """The removed-nodes table and the moved-nodes table (a move's victims leave their group but keep
    their instance: plans/steps.py "move-nodes"), the rows past `victims_shown` counted."""
    parts: list[Any] = []
    for title, moving in (("Nodes that would be removed", False), ("Nodes that would move to another group", True)):
        listed = tuple(v for step in plan.steps if (step.kind == "move-nodes") == moving for v in step.victims)
        if not listed:
            continue
        victims = _table(title, ("node", "group", "status", "why"))
        shown = listed if victims_shown is None else listed[:victims_shown]
        for v in shown:
            victims.add_row(_t(v.node_id + (" (logical id)" if v.logical else "")), _t(v.group), _t(v.status), _t(v.reason))
        parts.append(victims)
        if len(shown) < len(listed):
            parts.append(Text(f"… and {len(listed) - len(shown):,} more: {victims_elsewhere}"))
    return parts


def _notes(plan: Plan) -> list[Any]:
    """Replacements, refusals and notes, then the cloud's own sections (HyperPod: Slurm changes)."""
    parts: list[Any] = [Text(f"REPLACE: {reason}", style="bold red") for reason in plan.replacements]
    parts.extend(Text(f"REFUSED [{refusal.rule}]: {refusal.reason}", style="bold red") for refusal in plan.refusals)
    parts.extend(Text(f"note: {note}", style="cyan") for note in plan.notes)
    for title, text in plan.details.sections() if plan.details is not None else ():
        parts.append(Text(title, style="bold"))
        parts.append(Text(text))
    return parts


def _outcome(plan: Plan, subject: str | None) -> Text:
    """The plan's last line: refused, nothing to call (and why), no change, or the calls it makes."""
    if plan.refused:
        rules = ", ".join(dict.fromkeys(r.rule for r in plan.refusals))
        return Text(f"Refused ({rules}): nothing will be changed, no API call is made.", style="bold red")
    if plan.empty and (pending := plan.details.pending() if plan.details is not None else None):
        return Text(f"No API call: {pending}.", style="yellow")
    if plan.empty:
        return Text(f"No changes: the {subject or 'cluster'} matches the spec.", style="green")
    calls = ", ".join(f"{n} × {op}" for op, n in plan.calls().items())
    return Text(f"API calls: {calls}")


def _groups(plan: Plan) -> Table:
    table = _table(None, ("group", "type", "action", "target", "current", "min", "changes"))
    for g in plan.groups:
        target = _count(g.target_before) if g.target_after == g.target_before else f"{_count(g.target_before)} → {_count(g.target_after)}"
        minimum = _count(g.min_before) if g.min_after == g.min_before else f"{_count(g.min_before)} → {_count(g.min_after)}"
        delta = f" ({g.delta:+d})" if g.delta and g.action in ("grow", "shrink") else ""
        table.add_row(
            _t(g.group + (" (restricted)" if g.restricted else "")),
            _t(g.node_type or ",".join(g.instance_types[:1]) or "-"),
            _t(g.action + delta, _ACTION_STYLE.get(g.action, "")),
            _t(target),
            _t(_count(g.current)),
            _t(minimum),
            _t(", ".join(g.config_changes)),
        )
    return table


# ---- cost ------------------------------------------------------------------------------------------
def cost_renderable(cost: CostSection, if_allowed: bool = False) -> Any:
    """`if_allowed`: the plan is refused, so the "after" is what it would cost were it allowed."""
    title = f"Cost per hour ({cost.currency}, on-demand, {cost.region})" + (" if the refused plan were allowed" if if_allowed else "")
    table = _table(title, ("group", "before", "after", "change", "instances"), right=("before", "after", "change"))
    for index, g in enumerate(cost.groups):
        table.add_row(
            _t(g.group),
            _t(money(g.before_per_hour)),
            _t(money(g.after_per_hour)),
            _t(_change(g.delta_per_hour)),
            _t(_instances(g, cost)),
            end_section=index == len(cost.groups) - 1,
        )
    cluster = cost.cluster
    note = ""
    if cluster.delta_per_hour is None and cluster.delta_at_most is not None:
        note = f"change at most {signed(cluster.delta_at_most)}"
    if cluster.range is not None:
        low, high = cluster.range
        if low is None or high is None:
            note = "; ".join(filter(None, (note, "range unknown")))
        elif low != high:
            note = "; ".join(filter(None, (note, f"range {usd(low)} – {usd(high)} by the flexible groups' types")))
    table.add_row(
        _t("cluster", "bold"),
        _t(money(cluster.before_per_hour)),
        _t(money(cluster.after_per_hour)),
        _t(_change(cluster.delta_per_hour)),
        _t(note),
    )
    lines: list[Any] = [table]
    if cost.unknown_types:
        lines.append(Text(f"price unknown: {', '.join(cost.unknown_types)} in {cost.region} (add it with {cost.add_prices})"))
    lines.append(Text(f"prices: {cost.prices_from}; list prices, not your bill: check them before approving", style="dim"))
    return Group(*lines)


def _change(delta: float | None) -> str:
    return "price unknown" if delta is None else signed(delta)


def _instances(group: GroupCost, cost: CostSection) -> str:
    """What a group's cost is made of, and for a flexible group its priority and range."""
    counts = group.after_instances or group.before_instances
    parts = []
    for name, count in counts.items():
        price = cost.prices.get(name)
        parts.append(f"{count} × {name} @ {rate(price.per_hour)}" if price else f"{count} × {name} (price unknown)")
    text = " + ".join(parts) or "0 instances"
    if not group.after_instances and group.before_instances:
        text = f"removes {text}"
    if group.flexible and group.after_count:
        span = ""
        low, high = group.range if group.range is not None else (None, None)
        if low is None or high is None:
            span = ": range unknown"
        elif low != high:
            span = f": range {usd(low)} – {usd(high)}"
        text += f"\nby priority {' > '.join(group.instance_types)}{span}"
    return text


# ---- preflight -------------------------------------------------------------------------------------
def preflight_renderable(section: PreflightSection, plan: Plan | None = None) -> Any:
    parts: list[Any] = [Text("Preflight:", style="bold")]
    if section.skipped:
        parts.append(Text(f"  skipped: {section.skipped}"))
    if section.quotas is not None:
        parts += _quota_parts(section.quotas)
    findings = {f.message for f in section.consistency}
    for finding in section.consistency:
        parts.append(Text(f"  lifecycle consistency: {finding.message}", style="yellow"))
        if finding.note:
            parts.append(Text(f"    ({finding.note})"))
    for plan_finding in section.training_plans:
        findings.add(plan_finding.message)
        style = {"refused": "red", "waits": "yellow", "unknown": "yellow"}.get(plan_finding.verdict, "")
        parts.append(Text(f"  training plan: {plan_finding.message}", style=style))
    for warning in section.warnings:
        if warning not in findings:
            parts.append(Text(f"  warning: {warning}", style="yellow"))
    parts.append(Text(f"  verdict: {_verdict(section, plan)}", style="bold red" if section.verdict == "refused" else "bold"))
    return Group(*parts)


def _verdict(section: PreflightSection, plan: Plan | None) -> str:
    if section.verdict == "refused":
        count = len(plan.refusals) if plan is not None else len(section.refused_by)
        return f"REFUSED ({count}: {', '.join(section.refused_by)}) — nothing will be changed; the reasons are above"
    if section.skipped:
        return "no guard refused the plan (quotas and node configurations not checked)"
    if section.warnings:
        return f"may be applied, with {len(section.warnings)} warning(s) to read first"
    if section.quotas is not None and section.quotas.status == "not-needed":
        return "safe to apply: no guard refused, and the plan adds no instances"
    return "safe to apply: no guard refused, the quotas have room, new nodes are built like the existing ones"


def _quota_parts(quotas: QuotaSection) -> list[Any]:
    if quotas.status == "not-needed":
        return [Text("  service quotas: not checked, the plan adds no instances")]
    if quotas.status == "unreadable":
        return []  # a warning says so
    parts: list[Any] = []
    if quotas.clusters_error:
        parts.append(Text(f"  {quotas.clusters_error}"))
    if quotas.clusters_skipped:
        parts.append(Text(f"  not counted: {', '.join(quotas.clusters_skipped)}"))
    title = quotas.title or (
        f"Service quotas in {quotas.region} (applied, else AWS default; this cluster as planned + {len(quotas.clusters_counted)} other(s))"
    )
    table = _table(title, ("quota", "limit", "in use", "after", "status"), right=("limit", "in use", "after"))
    for check in quotas.checks:
        label = _QUOTA_SHORT.get(check.quota_code or "", check.quota_name)
        code = f" [{check.quota_code}]" if check.quota_code else ""
        limit = "-" if check.quota is None else f"{check.quota:g}"
        change = f" {check.adds:+d}" if check.adds else ""
        style = "red" if check.status.startswith("over") else "yellow" if check.status == "near" else ""
        table.add_row(
            _t(label + code), _t(limit), _t(check.in_use), _t(check.after), _t(_QUOTA_MARK.get(check.status, check.status) + change, style)
        )
    parts.append(table)
    return parts


# ---- text ------------------------------------------------------------------------------------------
def render_text(renderable: Any, width: int = 110) -> str:
    """Any of the renderables above as plain text, without colour codes (logs, `pulumi preview`)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, no_color=True, color_system=None, force_terminal=False, legacy_windows=False)
    console.print(renderable)
    return shown(buffer.getvalue().rstrip()) + "\n"  # plain text for a log or a preview: no control codes


def plan_text(
    plan: Plan,
    width: int = 110,
    victims_shown: int | None = VICTIMS_SHOWN,
    victims_elsewhere: str = VICTIMS_ELSEWHERE,
    subject: str | None = None,
) -> str:
    """The plan's tables as plain text (`subject`: as for plan_renderable)."""
    return render_text(plan_renderable(plan, victims_shown, victims_elsewhere, subject), width)
