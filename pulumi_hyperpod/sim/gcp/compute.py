"""The Compute Engine reads a preflight makes, simulated: a region's quotas, a zone's machine types,
a zone's reservations (compute/v1 `regions.get`, `machineTypes.get`, `reservations.get`).

State lives in the world's JSON (`data["compute"]`), so every process sees the same answers:

    {"quotas": {region: {metric: limit}},        absent region: DEFAULT_QUOTAS
     "withdrawn": {zone: [machine type, ...]},   types not offered there (default: the catalog everywhere)
     "reservations": {full name: {"machine_type": ..., "count": n}} | absent (every named one exists)}

A region's quota usage is what the world's clusters in it use: each running node's vCPUs, and its
GPUs (pools on SPOT count against the PREEMPTIBLE_ metric), except nodes consuming a reservation.
The catalog holds the published shapes of the machine types training clusters take (and a few more); a
well-formed type it does not hold is answered UNIMPLEMENTED, so preflight says "not checked", not "not offered".
"""

from __future__ import annotations

import re
from typing import Any

from pulumi_hyperpod.gcp.spec.names import gpu_quota_metric
from pulumi_hyperpod.sim.gcp.errors import RpcError

# machine type → (vCPUs, accelerator type or None, accelerators per node): the published shapes of
# the accelerator-optimized types (Compute Engine's machine-type pages) and a few other CPU types;
# N2 is worked out from its name (`n2-<kind>-<vCPUs>`, the Cluster Director compute page's sizes).
CATALOG: dict[str, tuple[int, str | None, int]] = {
    "c2-standard-60": (60, None, 0),
    "g2-standard-48": (48, "nvidia-l4", 4),
    "a3-highgpu-8g": (208, "nvidia-h100-80gb", 8),
    "a3-megagpu-8g": (208, "nvidia-h100-mega-80gb", 8),
    "a3-ultragpu-8g": (224, "nvidia-h200-141gb", 8),
    "a4-highgpu-8g": (224, "nvidia-b200", 8),
    "a4x-highgpu-4g": (140, "nvidia-gb200", 4),
}
_N2 = re.compile(r"^n2-(standard|highmem|highcpu)-(2|4|8|16|32|48|64|80|96|128)$")
_WELL_FORMED = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")


def shape(machine_type: str) -> tuple[int, str | None, int] | None:
    """A machine type's shape as the catalog holds it; None: not a type the catalog holds."""
    found = _N2.match(machine_type)
    return (int(found[2]), None, 0) if found else CATALOG.get(machine_type)


ZONE_SUFFIXES = ("a", "b", "c", "f")
# a new project's quotas are small; these are a platform team's raised ones, so the examples fit
DEFAULT_QUOTAS: dict[str, float] = {
    "CPUS": 20000.0,
    "N2_CPUS": 5000.0,
    "C2_CPUS": 2000.0,
    "G2_CPUS": 2000.0,
    "NVIDIA_L4_GPUS": 64.0,
    "NVIDIA_H100_GPUS": 256.0,
    "NVIDIA_H100_MEGA_GPUS": 256.0,
    "NVIDIA_H200_GPUS": 256.0,
    "NVIDIA_B200_GPUS": 256.0,
    "NVIDIA_GB200_GPUS": 144.0,
    "PREEMPTIBLE_NVIDIA_H100_GPUS": 64.0,
    "PREEMPTIBLE_NVIDIA_B200_GPUS": 64.0,
}
_ZONE = re.compile(r"^(?P<region>[a-z]+-[a-z]+[0-9]+)-[a-z]$")


class Compute:
    """The Compute Engine side of one world (`data` is the world's JSON document)."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.state = data.setdefault("compute", {})
        self.world = data

    # ---- settings (tests, `GcpSimulator.world()`) ---------------------------------------------
    def set_quota(self, region: str, metric: str, limit: float) -> None:
        self.state.setdefault("quotas", {}).setdefault(region, dict(DEFAULT_QUOTAS))[metric] = float(limit)

    def withdraw(self, zone: str, machine_type: str) -> None:
        self.state.setdefault("withdrawn", {}).setdefault(zone, []).append(machine_type)

    def add_reservation(self, name: str, machine_type: str, count: int) -> None:
        self.state.setdefault("reservations", {})[name] = {"machine_type": machine_type, "count": int(count)}

    # ---- reads ----------------------------------------------------------------------------------
    def region(self, project: str, region: str) -> dict[str, Any]:
        if not self._zones(region):
            raise RpcError("NOT_FOUND", f"The resource 'projects/{project}/regions/{region}' was not found")
        limits = (self.state.get("quotas") or {}).get(region) or DEFAULT_QUOTAS
        usage = self._usage(project, region)
        return {
            "kind": "compute#region",
            "name": region,
            "status": "UP",
            "zones": [f"https://www.googleapis.com/compute/v1/projects/{project}/zones/{z}" for z in self._zones(region)],
            "quotas": [{"metric": metric, "limit": limit, "usage": usage.get(metric, 0.0)} for metric, limit in sorted(limits.items())],
        }

    def machine_type(self, project: str, zone: str, machine_type: str) -> dict[str, Any]:
        known = shape(machine_type)
        missing = f"The resource 'projects/{project}/zones/{zone}/machineTypes/{machine_type}' was not found"
        if (
            not _WELL_FORMED.match(machine_type)
            or machine_type in (self.state.get("withdrawn") or {}).get(zone, ())
            or _region_of(zone) is None
        ):
            raise RpcError("NOT_FOUND", missing)
        if known is None:  # Compute Engine may well offer it: the simulator cannot say, so it does not say "not found"
            raise RpcError("UNIMPLEMENTED", f"the simulator's catalog does not hold machine type {machine_type}: not simulated (unknown)")
        cpus, accelerator, count = known
        body: dict[str, Any] = {"kind": "compute#machineType", "name": machine_type, "zone": zone, "guestCpus": cpus}
        if accelerator:
            body["accelerators"] = [{"guestAcceleratorType": accelerator, "guestAcceleratorCount": count}]
        return body

    def reservation(self, project: str, zone: str, name: str) -> dict[str, Any]:
        full = f"projects/{project}/zones/{zone}/reservations/{name}"
        known = self.state.get("reservations")
        if known is None:  # no reservations set up: every named one exists, as big as asked
            return {
                "kind": "compute#reservation",
                "name": name,
                "zone": zone,
                "status": "READY",
                "specificReservation": {"count": "0", "inUseCount": "0", "instanceProperties": {}},
            }
        found = known.get(full)
        if found is None:
            raise RpcError("NOT_FOUND", f"The resource '{full}' was not found")
        return {
            "kind": "compute#reservation",
            "name": name,
            "zone": zone,
            "status": "READY",
            "specificReservation": {
                "count": str(found["count"]),
                "inUseCount": "0",
                "instanceProperties": {"machineType": found["machine_type"]},
            },
        }

    def _zones(self, region: str) -> list[str]:
        return [f"{region}-{suffix}" for suffix in ZONE_SUFFIXES] if re.match(r"^[a-z]+-[a-z]+[0-9]+$", region) else []

    def _usage(self, project: str, region: str) -> dict[str, float]:
        usage: dict[str, float] = {}
        for cluster in self.world.get("clusters", {}).values():
            parts = cluster["name"].split("/")
            if parts[1] != project or parts[3] != region:
                continue
            pools = {p["id"]: p for p in cluster["body"]["node_pools"]}
            for node in cluster["nodes"]:
                pool = pools.get(node["pool"])
                if pool is None or node.get("state") == "ERROR" or pool.get("provisioning_model") == "RESERVATION":
                    continue
                cpus, accelerator, count = shape(pool["machine_spec"]["machine_type"]) or (0, None, 0)
                usage["CPUS"] = usage.get("CPUS", 0.0) + cpus
                family = pool["machine_spec"]["machine_type"].split("-")[0].upper() + "_CPUS"
                usage[family] = usage.get(family, 0.0) + cpus
                if accelerator:
                    metric = gpu_quota_metric(accelerator, pool.get("provisioning_model") == "SPOT")
                    usage[metric] = usage.get(metric, 0.0) + count
        return usage


def _region_of(zone: str) -> str | None:
    match = _ZONE.match(zone)
    return match["region"] if match else None
