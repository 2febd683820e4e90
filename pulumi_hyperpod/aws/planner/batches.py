"""How many nodes go in one call: scale-outs into BatchAddClusterNodes requests and victims into
BatchDeleteClusterNodes requests, within the service's limits (`servicemodel.api_limits`). The
planner packs a plan's steps with these; apply packs again the victims it re-chooses."""

from __future__ import annotations

from typing import Any

from pulumi_hyperpod.plans.model import Victim


def pack_adds(increments: list[tuple[str, int]], limits: dict[str, int]) -> list[list[dict[str, Any]]]:
    """Scale-outs (group, nodes) into BatchAddClusterNodes requests: each call at most
    `add_entries` entries and `add_total` nodes; greedy filling is optimal for one total cap."""
    calls: list[list[dict[str, Any]]] = []
    current: list[dict[str, Any]] = []
    room = limits["add_total"]
    for name, count in increments:
        while count > 0:
            if room == 0 or len(current) == limits["add_entries"]:
                calls.append(current)
                current, room = [], limits["add_total"]
            chunk = min(count, room, limits["add_increment"])
            current.append({"InstanceGroupName": name, "IncrementTargetCountBy": chunk})
            room -= chunk
            count -= chunk
    if current:
        calls.append(current)
    return calls


def pack_deletes(ids: list[Victim], logical: list[Victim], limits: dict[str, int], id_cap: int) -> list[tuple[list[Victim], list[Victim]]]:
    """Victims into BatchDeleteClusterNodes requests, fewest calls: logical ids go in calls of at
    most `delete_combined` identifiers, topped up with instance ids; the remaining instance ids in
    calls of `id_cap` (≤ 99)."""
    combined = min(limits["delete_combined"], id_cap)
    logical_size = min(limits["delete_logical_ids"], combined)
    calls: list[tuple[list[Victim], list[Victim]]] = []
    ids = list(ids)
    for start in range(0, len(logical), logical_size):
        chunk = logical[start : start + logical_size]
        top_up, ids = ids[: combined - len(chunk)], ids[combined - len(chunk) :]
        calls.append((top_up, chunk))
    size = min(id_cap, limits["delete_ids"])
    for start in range(0, len(ids), size):
        calls.append((ids[start : start + size], []))
    return calls
