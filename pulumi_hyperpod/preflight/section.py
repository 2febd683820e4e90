"""The plan's preflight section: `plan.extras["preflight"]`, data plus the lines the table prints.

One place a reviewer reads why a plan is safe to apply or not: the quota checks, the lifecycle
consistency warnings, and every refusal (the guards' and the preflight's own) by rule.
"""

from __future__ import annotations

from typing import Any, Mapping

from ..plan import Plan
from .quotas import ACROSS_CLUSTERS, PER_CLUSTER

_SHORT = {PER_CLUSTER[0]: "instances per cluster", ACROSS_CLUSTERS[0]: "instances across clusters"}
_MARK = {"ok": "ok", "near": "NEAR", "over": "OVER", "over-already": "OVER (already)", "unknown": "no quota found"}


def verdict(plan: Plan, warnings: list[str]) -> str:
    if plan.refused:
        return "refused"
    return "warnings" if warnings else "ok"


def section(plan: Plan, quotas: Mapping[str, Any] | None, consistency: list[dict[str, Any]], warnings: list[str],
            skipped: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "skipped": skipped,
        "quotas": quotas,
        "consistency": consistency,
        "warnings": warnings,
        "refusals": [{"rule": r.rule, "reason": r.reason, "group": r.group} for r in plan.refusals],
        "verdict": verdict(plan, warnings),
    }
    data["lines"] = lines(data)
    return data


def lines(data: Mapping[str, Any]) -> list[str]:
    out = ["Preflight:"]
    if data["skipped"]:
        out.append(f"  skipped: {data['skipped']}")
    quotas = data["quotas"]
    if quotas is not None:
        out += _quota_lines(quotas)
    for finding in data["consistency"]:
        out.append(f"  lifecycle consistency: {finding['message']}")
        if finding.get("note"):
            out.append(f"    ({finding['note']})")
    for warning in data["warnings"]:
        if not any(warning == f["message"] for f in data["consistency"]):
            out.append(f"  warning: {warning}")
    refusals = data["refusals"]
    if refusals:
        rules = ", ".join(dict.fromkeys(r["rule"] for r in refusals))
        out.append(f"  verdict: REFUSED ({len(refusals)}: {rules}) — nothing will be changed; the reasons are above")
    elif data["skipped"]:
        out.append("  verdict: no guard refused the plan (quotas and node configurations not checked)")
    elif data["warnings"]:
        out.append(f"  verdict: may be applied, with {len(data['warnings'])} warning(s) to read first")
    elif quotas is not None and quotas["status"] == "not-needed":
        out.append("  verdict: safe to apply: no guard refused, and the plan adds no instances")
    else:
        out.append("  verdict: safe to apply: no guard refused, the quotas have room, new nodes are built like the existing ones")
    return out


def _quota_lines(quotas: Mapping[str, Any]) -> list[str]:
    if quotas["status"] == "not-needed":
        return ["  service quotas: not checked, the plan adds no instances"]
    if quotas["status"] == "unreadable":
        return []  # a warning says so
    others = len(quotas.get("clusters_counted") or [])
    out = [f"  service quotas in {quotas['region']} (applied, else AWS default; this cluster as planned + {others} other(s)):"]
    if quotas.get("clusters_error"):
        out.append(f"    {quotas['clusters_error']}")
    if quotas.get("clusters_skipped"):
        out.append(f"    not counted: {', '.join(quotas['clusters_skipped'])}")
    rows = [("quota", "limit", "in use", "after", "")]
    for check in quotas["checks"]:
        label = _SHORT.get(check["quota_code"], check["quota_name"])
        code = f" [{check['quota_code']}]" if check["quota_code"] else ""
        limit = "-" if check["quota"] is None else f"{check['quota']:g}"
        change = f" {check['adds']:+d}" if check["adds"] else ""
        rows.append((label + code, limit, str(check["in_use"]), str(check["after"]), _MARK[check["status"]] + change))
    widths = [max(len(row[i]) for row in rows) for i in range(4)]
    for name, limit, in_use, after, mark in rows:
        out.append(f"    {name:<{widths[0]}}  {limit:>{widths[1]}}  {in_use:>{widths[2]}}  {after:>{widths[3]}}  {mark}".rstrip())
    return out
