"""Instance-hours and money per instance group and per instance over a window (seeds 000/001,
"使用计量" / "Medición de uso").

Billing of an instance starts when its lifecycle script starts and stops when the instance enters
termination; a failed launch is never billed. Two sources:

- the simulator's metering (`sim.billing(name)`, or a Simulator): exact records of that rule;
- AWS, *estimated*: running nodes from ListClusterNodes LaunchTime until now (LaunchTime comes a
  little before the lifecycle script, so this errs high), ShuttingDown and terminated instances
  closed at their termination event from ListClusterEvents (Continuous clusters only), launch
  failures left out.

`cost_report(source, name, since=None, prices=None)` returns a CostReport: `.to_dict()` for JSON,
`.render()` for a rich Table.
"""

from __future__ import annotations

from rich.text import Text

import datetime as dt
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Iterable, Mapping

from rich.table import Table

from pulumi_hyperpod.aws.observe.reader import largest_pages
from pulumi_hyperpod.aws.cost.estimate import DEFAULT_REGION, _ARN_REGION
from pulumi_hyperpod.aws.cost.prices import PriceTable, as_price_table
from botocore.exceptions import ClientError
from pulumi_hyperpod.core.timestamps import read_time

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient

SIMULATED = "simulator metering"
ESTIMATED = "estimated from ListClusterNodes LaunchTime and ListClusterEvents"
_TERMINATION = re.compile(r"terminat", re.IGNORECASE)
_LAUNCH_FAILED = re.compile(r"\bcreate\b.*\bfailed\b", re.IGNORECASE)


@dataclass(frozen=True)
class InstanceUsage:
    instance_id: str
    group: str
    instance_type: str | None
    billing_start: dt.datetime
    billing_end: dt.datetime | None  # None: still billing
    seconds: float  # within the report's window
    per_hour: float | None

    @property
    def hours(self) -> float:
        return self.seconds / 3600

    @property
    def cost(self) -> float | None:
        return None if self.per_hour is None else self.hours * self.per_hour

    def to_dict(self) -> dict[str, Any]:
        return {
            "instance_id": self.instance_id,
            "instance_group": self.group,
            "instance_type": self.instance_type,
            "billing_start": _iso(self.billing_start),
            "billing_end": _iso(self.billing_end),
            "billed_seconds": round(self.seconds, 3),
            "hours": round(self.hours, 6),
            "per_hour": self.per_hour,
            "cost": _money(self.cost),
        }


@dataclass(frozen=True)
class GroupUsage:
    group: str
    instances: int
    seconds: float
    priced_cost: float  # the instances with a price
    unknown_types: tuple[str, ...]

    @property
    def hours(self) -> float:
        return self.seconds / 3600

    @property
    def cost(self) -> float | None:
        return None if self.unknown_types else self.priced_cost

    def to_dict(self) -> dict[str, Any]:
        return {
            "instances": self.instances,
            "billed_seconds": round(self.seconds, 3),
            "instance_hours": round(self.hours, 6),
            "cost": _money(self.cost),
            "priced_cost": _money(self.priced_cost),
            "unknown_types": list(self.unknown_types),
        }


@dataclass(frozen=True)
class CostReport:
    cluster: str
    region: str
    source: str
    estimated: bool
    as_of: dt.datetime
    since: dt.datetime | None
    instances: tuple[InstanceUsage, ...]
    prices_from: str
    notes: tuple[str, ...] = ()
    currency: str = "USD"

    @property
    def groups(self) -> dict[str, GroupUsage]:
        by_group: dict[str, list[InstanceUsage]] = {}
        for item in self.instances:
            by_group.setdefault(item.group, []).append(item)
        return {name: _group(name, items) for name, items in sorted(by_group.items())}

    @property
    def total_hours(self) -> float:
        return sum(item.seconds for item in self.instances) / 3600

    @property
    def unknown_types(self) -> tuple[str, ...]:
        return tuple(sorted({item.instance_type or "(unknown type)" for item in self.instances if item.per_hour is None}))

    @property
    def priced_cost(self) -> float:
        return sum(item.cost for item in self.instances if item.cost is not None)

    @property
    def total_cost(self) -> float | None:
        return None if self.unknown_types else self.priced_cost

    def to_dict(self) -> dict[str, Any]:
        return {
            "cluster": self.cluster,
            "region": self.region,
            "currency": self.currency,
            "source": self.source,
            "estimated": self.estimated,
            "as_of": _iso(self.as_of),
            "since": _iso(self.since),
            "prices_from": self.prices_from,
            "instances": [item.to_dict() for item in self.instances],
            "groups": {name: usage.to_dict() for name, usage in self.groups.items()},
            "total_instance_hours": round(self.total_hours, 6),
            "total_cost": _money(self.total_cost),
            "priced_cost": _money(self.priced_cost),
            "unknown_types": list(self.unknown_types),
            "notes": list(self.notes),
        }

    def render(self, per_instance: bool = True) -> Table:
        """One table: each group's subtotal, then (when `per_instance`) its instances; the total."""
        window = f", since {_when(self.since)} UTC" if self.since else ""
        title = f"{self.cluster} ({self.region}): {self.source} as of {_when(self.as_of)} UTC{window}"
        table = Table(title=("ESTIMATED — " if self.estimated else "") + title, title_justify="left")
        table.add_column("group / instance", no_wrap=True)
        table.add_column("type", no_wrap=True)
        table.add_column("billing (UTC)")
        for column in ("hours", "$/h", f"cost ({self.currency})"):
            table.add_column(column, justify="right", no_wrap=True)
        by_group: dict[str, list[InstanceUsage]] = {}
        for item in self.instances:
            by_group.setdefault(item.group, []).append(item)
        for name, usage in self.groups.items():
            types = ", ".join(sorted({i.instance_type or "?" for i in by_group[name]}))
            table.add_row(
                *_cells(
                    name,
                    types,
                    f"{usage.instances} instance(s)",
                    f"{usage.hours:.2f}",
                    "",
                    _cost(usage.cost, usage.priced_cost),
                    bold=(0, 3, 5),
                ),
                end_section=not per_instance,
            )
            if per_instance:
                for index, item in enumerate(by_group[name]):
                    table.add_row(
                        *_cells(
                            f"  {item.instance_id}",
                            item.instance_type or "?",
                            _span(item.billing_start, item.billing_end),
                            f"{item.hours:.2f}",
                            _rate(item.per_hour),
                            _cost(item.cost),
                        ),
                        end_section=index == len(by_group[name]) - 1,
                    )
        table.add_row(
            *_cells(
                "total",
                "",
                f"{len(self.instances)} instance(s)",
                f"{self.total_hours:.2f}",
                "",
                _cost(self.total_cost, self.priced_cost),
                bold=(0, 3, 5),
            )
        )
        caption = list(self.notes)
        if self.unknown_types:
            caption.append(f"price unknown: {', '.join(self.unknown_types)} in {self.region}")
        caption.append(f"prices: {self.prices_from} (list prices, not your bill)")
        table.caption = Text("\n".join(caption))
        table.caption_justify = "left"
        return table


# ---- building a report ---------------------------------------------------------------------------
def cost_report(
    source: Any,
    name: str,
    since: dt.datetime | str | None = None,
    prices: PriceTable | Mapping[str, Any] | str | None = None,
    *,
    region: str | None = None,
    now: dt.datetime | None = None,
) -> CostReport:
    """Usage and money of cluster `name` since `since` (default: all of it).

    `source`: a Simulator (its metering), the dict `sim.billing(name)` returned, or a boto3
    sagemaker client (AWS: an estimate; `now` defaults to the current time).
    """
    table = as_price_table(prices)
    start = _utc(since) if since is not None else None
    if isinstance(source, Mapping):
        return _from_billing(source, name, start, table, region)
    if callable(getattr(source, "billing", None)):
        return _from_billing(source.billing(name, region=region), name, start, table, region)
    return _estimate(source, name, start, table, now or dt.datetime.now(dt.timezone.utc))


def _from_billing(bill: Mapping[str, Any], name: str, since: dt.datetime | None, table: PriceTable, region: str | None) -> CostReport:
    arn_region = _ARN_REGION.match(bill.get("cluster_arn") or "")
    region = region or (arn_region.group(1) if arn_region else DEFAULT_REGION)
    as_of = _utc(bill["as_of"])
    instances = []
    for record in bill["instances"]:
        usage = _usage(
            record["instance_id"],
            record["instance_group"],
            record.get("instance_type"),
            _utc(record["billing_start"]),
            _utc(record["billing_end"]) if record.get("billing_end") else None,
            since,
            as_of,
            table,
            region,
        )
        if usage is not None:
            instances.append(usage)
    notes = () if bill.get("cluster_arn") else (f"cluster {name} no longer exists; its instances' billing is kept",)
    return CostReport(bill.get("cluster_name") or name, region, SIMULATED, False, as_of, since, tuple(instances), table.describe(), notes)


def _estimate(client: SageMakerClient, name: str, since: dt.datetime | None, table: PriceTable, now: dt.datetime) -> CostReport:
    describe = client.describe_cluster(ClusterName=name)
    arn_region = _ARN_REGION.match(describe.get("ClusterArn") or "")
    region = arn_region.group(1) if arn_region else (client.meta.region_name or DEFAULT_REGION)
    fixed_types = {g["InstanceGroupName"]: g.get("InstanceType") for g in describe.get("InstanceGroups") or []}
    notes = ["estimated: billing taken to start at LaunchTime (the lifecycle script starts a little later)"]
    ended, first_seen, failed, groups_of = _instance_events(client, name, notes)
    instances, listed = [], set()
    for page in client.get_paginator("list_cluster_nodes").paginate(ClusterName=name, PaginationConfig=largest_pages("ListClusterNodes")):
        for node in page["ClusterNodeSummaries"]:
            instance_id = node.get("InstanceId")
            if not instance_id or not node.get("LaunchTime") or instance_id in failed:
                continue
            listed.add(instance_id)
            status = (node.get("InstanceStatus") or {}).get("Status")
            end = ended.get(instance_id) if status == "ShuttingDown" else None
            if status == "ShuttingDown" and end is None:
                end = now
                notes.append(f"{instance_id} is shutting down with no termination event: counted until now")
            usage = _usage(
                instance_id, node["InstanceGroupName"], node.get("InstanceType"), _utc(node["LaunchTime"]), end, since, now, table, region
            )
            if usage is not None:
                instances.append(usage)
    for instance_id in sorted(set(ended) - listed - failed):
        group = groups_of.get(instance_id) or "?"
        usage = _usage(instance_id, group, fixed_types.get(group), first_seen[instance_id], ended[instance_id], since, now, table, region)
        if usage is not None:
            instances.append(usage)
    if set(ended) - listed - failed:
        notes.append("terminated instances: from their first event to their termination event")
    instances.sort(key=lambda u: (u.group, u.billing_start, u.instance_id))
    return CostReport(
        describe.get("ClusterName") or name, region, ESTIMATED, True, now, since, tuple(instances), table.describe(), tuple(notes)
    )


def _instance_events(client: SageMakerClient, name: str, notes: list[str]):
    """Termination time, first event time, failed launches and group of each instance in the events."""
    ended: dict[str, dt.datetime] = {}
    first_seen: dict[str, dt.datetime] = {}
    failed: set[str] = set()
    groups_of: dict[str, str] = {}
    try:
        pages = client.get_paginator("list_cluster_events").paginate(
            ClusterName=name, ResourceType="Instance", PaginationConfig=largest_pages("ListClusterEvents")
        )
        for page in pages:
            for event in page.get("Events", []):
                instance_id = event.get("InstanceId")
                if not instance_id:
                    continue
                when = _utc(event["EventTime"])
                first_seen[instance_id] = min(when, first_seen.get(instance_id, when))
                groups_of.setdefault(instance_id, event.get("InstanceGroupName") or "")
                description = event.get("Description") or ""
                if _TERMINATION.search(description):
                    ended[instance_id] = min(when, ended.get(instance_id, when))
                elif _LAUNCH_FAILED.search(description):
                    failed.add(instance_id)
    except ClientError as error:
        code = error.response.get("Error", {}).get("Code")
        notes.append(
            f"terminated instances are not included: ListClusterEvents answered {code} (events are kept for Continuous clusters only)"
        )
    return ended, first_seen, failed, groups_of


def _usage(
    instance_id: str,
    group: str,
    instance_type: str | None,
    start: dt.datetime,
    end: dt.datetime | None,
    since: dt.datetime | None,
    now: dt.datetime,
    table: PriceTable,
    region: str,
) -> InstanceUsage | None:
    if since is not None and end is not None and end <= since:
        return None  # billing ended before the window
    begin = max(start, since) if since is not None else start
    seconds = max(0.0, ((end or now) - begin).total_seconds())
    return InstanceUsage(instance_id, group, instance_type, start, end, seconds, table.per_hour(instance_type, region))


def _group(name: str, items: Iterable[InstanceUsage]) -> GroupUsage:
    items = list(items)
    unknown = tuple(sorted({i.instance_type or "(unknown type)" for i in items if i.per_hour is None}))
    return GroupUsage(name, len(items), sum(i.seconds for i in items), sum(i.cost for i in items if i.cost is not None), unknown)


# ---- formatting ----------------------------------------------------------------------------------
def _utc(value: Any) -> dt.datetime:
    return read_time(value)


def _iso(value: dt.datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _when(value: dt.datetime | None) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if value is not None else "-"


def _span(start: dt.datetime, end: dt.datetime | None) -> str:
    if end is None:
        return f"{start:%Y-%m-%d %H:%M} → still billing"
    return f"{start:%Y-%m-%d %H:%M} → {end:%H:%M}" if end.date() == start.date() else f"{start:%Y-%m-%d %H:%M} → {end:%Y-%m-%d %H:%M}"


def _money(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _rate(per_hour: float | None) -> str:
    return "price unknown" if per_hour is None else f"{per_hour:,.4f}".rstrip("0").rstrip(".")


def _cost(value: float | None, priced: float | None = None) -> str:
    if value is not None:
        return f"${value:,.2f}"
    return f"≥ ${priced:,.2f} + price unknown" if priced else "price unknown"


def _cells(*values: str, bold: tuple[int, ...] = ()) -> list[Text]:
    """Table cells printed exactly as given (names and ids are never read as markup)."""
    return [Text(value, style="bold" if index in bold else "") for index, value in enumerate(values)]
