"""The documented rules of a cluster spec beyond its types (spec.py holds the types, limits.py the
numbers and patterns). Each rule is (field path, what is wrong); the simulator runs the same ones.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.gcp.spec import limits, names, slurm_bridge

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.gcp.spec import ClusterSpec, NodePool

A4X_BLOCK = 18  # A4X capacity comes in fixed 18-node NVLink domains (training-clusters compute-resources page)
# the only fields whose text may hold newlines and tabs: scripts
SCRIPT_FIELDS = frozenset({"startup_script", "prolog_bash_scripts", "epilog_bash_scripts"})


# ---- the document as written: no nulls, no control characters -----------------------------------
def document_violations(value: Any, path: str = "", script: bool = False) -> list[tuple[str, str]]:
    """`null` is not a value in a spec (leave the field out: the service then chooses), and text
    other than scripts holds no control characters — they would reach a terminal as they are."""
    if value is None:
        return [(path, "null is not a value here: leave the field out instead")]
    if isinstance(value, str):
        bad = (limits.CONTROL if script else limits.CONTROL_OR_NEWLINE).search(value)
        return [(path, f"contains the control character {bad.group()!r}: not allowed here")] if bad else []
    found: list[tuple[str, str]] = []
    if isinstance(value, list):
        for i, item in enumerate(value):
            found += document_violations(item, f"{path}[{i}]", script)
    elif isinstance(value, dict):
        for key, item in value.items():
            child = f"{path}.{key}" if path else str(key)
            if limits.CONTROL_OR_NEWLINE.search(str(key)):
                found.append((path or "(top level)", f"the key {key!r} contains a control character"))
                continue
            found += document_violations(item, child, script or key in SCRIPT_FIELDS)
    return found


# ---- the documented rules beyond types ---------------------------------------------------------
def rule_violations(spec: ClusterSpec) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    name = spec.resource_name()
    problem = names.id_problem(name.cluster_id, slurm=True) or names.location_problem(name)
    if problem:
        found.append(("name", problem))
    found += _label_violations("labels", spec.labels)
    found += _network_violations(spec, name.location)
    seen: dict[str, str] = {}
    for index, pool in enumerate(spec.node_pools):
        found += [(f"node_pools[{index}].{path}", rule) for path, rule in _pool_violations(pool, name.location)]
        folded = pool.id.casefold()
        if folded in seen:
            twice = "is used twice" if seen[folded] == pool.id else f"differs from {seen[folded]!r} only in case"
            found.append((f"node_pools[{index}].id", f"node pool id {pool.id!r} {twice}"))
        seen.setdefault(folded, pool.id)
    pool_ids = {p.id for p in spec.node_pools}
    found += [
        (f"orchestrator_spec.slurm_spec{'.' + path if path else ''}", rule) for path, rule in slurm_bridge.violations(spec.slurm, pool_ids)
    ]
    login = spec.slurm.get("login_node_pool_id")
    login_pool = spec.pool(login) if isinstance(login, str) else None
    if login_pool is not None and login_pool.count < 1:
        index = spec.node_pools.index(login_pool)
        found.append((f"node_pools[{index}].scaling_spec.max_node_count", "the login node pool needs at least one node"))
    return found


def _label_violations(path: str, labels: dict[str, str] | None) -> list[tuple[str, str]]:
    """Google Cloud labels: at most 64; keys lowercase letters, digits, `_`, `-`, starting with a
    letter, at most 63 characters; values the same characters, at most 63, may be empty."""
    if not labels:
        return []
    found = []
    if len(labels) > limits.MAX_LABELS:
        found.append((path, f"at most {limits.MAX_LABELS} labels, got {len(labels)}"))
    for key, value in labels.items():
        if not limits.LABEL_KEY.match(key):
            found.append(
                (
                    f"{path}.{key}",
                    ("a label key is 1-63 lowercase letters, digits, _ or -, starting with a lowercase letter: ^[a-z][a-z0-9_-]{0,62}$"),
                )
            )
        elif not limits.LABEL_VALUE.match(value):
            found.append((f"{path}.{key}", ("a label value is at most 63 lowercase letters, digits, _ or -: ^[a-z0-9_-]{0,63}$")))
    return found


def _network_violations(spec: ClusterSpec, region: str) -> list[tuple[str, str]]:
    subnetwork = spec.network.subnetwork if spec.network is not None else None
    match = limits.SUBNETWORK.match(subnetwork or "")
    if match and match["region"] and match["region"] != region:
        return [
            (
                "network.subnetwork",
                (f"the subnetwork is in {match['region']}, the cluster in {region}: use a subnetwork of the cluster's region"),
            )
        ]
    return []


def _in_region(zone_or_region: str, region: str) -> bool:
    return zone_or_region == region or zone_or_region.rsplit("-", 1)[0] == region


def _pool_violations(pool: NodePool, region: str) -> list[tuple[str, str]]:
    found = _placement_violations(pool, region) + _label_violations("labels", pool.labels)
    scaling = pool.scaling_spec
    if scaling.min_node_count > scaling.max_node_count:
        found.append(
            (
                "scaling_spec.min_node_count",
                (
                    f"min_node_count ({scaling.min_node_count}) is above max_node_count "
                    f"({scaling.max_node_count}): the pool scales between the two"
                ),
            )
        )
    machine = pool.machine_spec
    if machine.machine_type not in limits.SUPPORTED_ACCELERATED and not limits.N2_FAMILY.match(machine.machine_type):
        found.append(
            (
                "machine_spec.machine_type",
                f"{machine.machine_type} is not a machine type training clusters take ({limits.SUPPORTED_SOURCE})",
            )
        )
    if machine.machine_type.startswith("a4x-") and scaling.max_node_count % A4X_BLOCK:
        found.append(
            (
                "scaling_spec.max_node_count",
                (f"an A4X pool's node count must be a multiple of {A4X_BLOCK} (NVLink domains), got {scaling.max_node_count}"),
            )
        )
    if (machine.accelerator_type is None) != (machine.accelerator_count is None):
        found.append(("machine_spec", "accelerator_type and accelerator_count go together: set both or neither"))
    found += _provisioning_violations(pool)
    return found


def _placement_violations(pool: NodePool, region: str) -> list[tuple[str, str]]:
    found = []
    if pool.zone is not None and not _in_region(pool.zone, region):
        found.append(("zone", f"zone {pool.zone!r} is not in the cluster's region {region}"))
    affinity = pool.machine_spec.reservation_affinity
    for i, value in enumerate(affinity.values if affinity is not None else ()):
        if value.startswith("projects/") and not _in_region(value.split("/")[3], region):
            found.append(
                (
                    f"machine_spec.reservation_affinity.values[{i}]",
                    f"the reservation is in zone {value.split('/')[3]}, not in the cluster's region {region}",
                )
            )
    if pool.flex_start_max_duration is not None:
        seconds = int(limits.DURATION.match(pool.flex_start_max_duration)["seconds"])
        if not 0 < seconds <= limits.MAX_FLEX_START_SECONDS:
            found.append(
                (
                    "flex_start_max_duration",
                    (f"between 1s and {limits.MAX_FLEX_START_SECONDS}s (seven days), got {pool.flex_start_max_duration}"),
                )
            )
    return found


def _provisioning_violations(pool: NodePool) -> list[tuple[str, str]]:
    found = []
    affinity = pool.machine_spec.reservation_affinity
    model = pool.provisioning_model
    if model == "RESERVATION" and affinity is None:
        found.append(("machine_spec.reservation_affinity", "required when provisioning_model is RESERVATION"))
    if model in ("ON_DEMAND", "SPOT", "FLEX_START") and affinity is not None:
        found.append(("machine_spec.reservation_affinity", f"must not be set when provisioning_model is {model}"))
    if model is None and affinity is None and _is_gpu(pool.machine_spec.machine_type):
        found.append(
            ("provisioning_model", ("a GPU node pool needs provisioning_model (or a reservation_affinity, which means RESERVATION)"))
        )
    if affinity is not None and affinity.reservation_affinity_type == "SPECIFIC_RESERVATION" and not affinity.values:
        found.append(("machine_spec.reservation_affinity.values", "SPECIFIC_RESERVATION names the reservation in values"))
    if pool.flex_start_max_duration is not None and model != "FLEX_START":
        found.append(("flex_start_max_duration", "only applies when provisioning_model is FLEX_START"))
    return found


def _is_gpu(machine_type: str) -> bool:
    return machine_type.split("-")[0] in {"a2", "a3", "a4", "a4x", "g2", "g4"}
