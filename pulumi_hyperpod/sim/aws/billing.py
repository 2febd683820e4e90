"""Instance-level metering (seed 000 "使用计量"), summarised per instance and per instance group.

The world opens a record when an instance's lifecycle script starts and closes it when the
instance enters terminating (or its lifecycle script fails). Records outlive their cluster so the
cost of a deleted cluster can still be read.
"""

from __future__ import annotations


from pulumi_hyperpod.sim.aws.clock import to_datetime


def summarize(records: list[dict], now: float, since: float | None = None) -> dict:
    """Per-instance billed seconds (clipped to [since, now]) and per-group totals."""
    instances = []
    groups: dict[str, dict] = {}
    for record in sorted(records, key=lambda r: (r["start"], r["instance_id"])):
        start = record["start"] if since is None else max(record["start"], since)
        end = record["end"] if record["end"] is not None else now
        seconds = max(0.0, end - start)
        instances.append(
            {
                "instance_id": record["instance_id"],
                "node_logical_id": record["node_logical_id"],
                "instance_group": record["instance_group"],
                "instance_type": record["instance_type"],
                "availability_zone": record["availability_zone"],
                "billing_start": to_datetime(record["start"]),
                "billing_end": to_datetime(record["end"]) if record["end"] is not None else None,
                "billed_seconds": seconds,
            }
        )
        total = groups.setdefault(record["instance_group"], {"instances": 0, "billed_seconds": 0.0, "instance_types": {}})
        total["instances"] += 1
        total["billed_seconds"] += seconds
        total["instance_types"][record["instance_type"]] = total["instance_types"].get(record["instance_type"], 0.0) + seconds
    for total in groups.values():
        total["instance_hours"] = total["billed_seconds"] / 3600
    return {
        "instances": instances,
        "groups": groups,
        "total_billed_seconds": sum(total["billed_seconds"] for total in groups.values()),
        "as_of": to_datetime(now),
    }
