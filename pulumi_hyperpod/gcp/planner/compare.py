"""Desired vs observed, field by field: which update-mask paths change, which changes the API
cannot make in place (replacement), and the per-key lines a reviewer reads.

Fields the service fills in when the spec leaves them out (boot disk, node image, zone,
provisioning model, subnetwork, service account — Terraform's default_from_api) are compared only
when the spec sets them: leaving a field out means "whatever the service chose", not a change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pulumi_hyperpod.gcp.spec.keys import MAP_FIELDS
from pulumi_hyperpod.gcp.spec.limits import CONTROL_OR_NEWLINE
from pulumi_hyperpod.gcp.observe import GcpClusterState
from pulumi_hyperpod.gcp.spec.slurm_bridge import MUTABLE_FIELDS as SLURM_MUTABLE
from pulumi_hyperpod.gcp.spec import ClusterSpec

SLURM_PREFIX = "orchestrator_spec.slurm_spec."
# immutable in magic-modules' ModelDevelopmentCluster.yaml (node_pools[].machineSpec with its
# machineType and reservationAffinity, provisioningModel, confidentialInstanceConfig)
POOL_IMMUTABLE = ("machine_spec", "provisioning_model", "confidential_instance_config")
POOL_IMMUTABLE_RULE = (
    "a node pool's {field} is immutable (magic-modules ModelDevelopmentCluster.yaml); to change it in place, "
    "give the pool a new id: the new pool is added and the old one removed in one node_pools PATCH"
)
# absent in the spec = "the service decides" for these slurm fields (their shape is not documented)
SLURM_SERVICE_DEFAULTED = ("accounting", "scheduling")


@dataclass(frozen=True)
class Immutable:
    """One immutable field that changes: the cluster cannot take it in place."""

    path: str  # the spec's field path, e.g. network.network
    before: Any
    after: Any
    rule: str  # why it cannot change

    def values(self) -> str:
        """Both values in full (up to a few hundred characters): a resource path cut at 60 hides
        the very part that changed."""
        return f"{_short(self.before, 300)} → {_short(self.after, 300)}"

    def __str__(self) -> str:
        return f"{self.path}: {self.values()} ({self.rule})"


@dataclass(frozen=True)
class Differences:
    mask: tuple[str, ...]  # update-mask paths, in a stable order
    replacements: tuple[str, ...]  # why the cluster cannot be changed in place
    slurm_lines: tuple[str, ...]  # "~ PreemptMode: REQUEUE → OFF"
    pool_lines: dict[str, tuple[str, ...]]  # pool id → "boot_disk.boot_disk_size_gb: 100 → 200"
    top_lines: tuple[str, ...]  # display_name, labels, lustre_export_config
    immutable: tuple[Immutable, ...] = ()  # the replacements, field by field


def covered(desired: Any, observed: Any, path: str = "") -> bool:
    """Every value the spec sets equals the observed one, at every nesting level.

    proto3 JSON leaves out fields at their zero value (false, 0, "", empty lists and maps), so an
    absent field equals its zero value, on either side. A message (dict) is compared on the spec's
    keys only — the service fills in the rest; a map (`labels`, slurm.conf `config`) is user data
    that the spec replaces whole, so it is compared on the keys of both."""
    if (observed is None and _zero(desired)) or (desired is None and _zero(observed)):
        return True
    if isinstance(desired, dict):
        if not isinstance(observed, dict):
            return False
        names = set(desired) | (set(observed) if _is_map(path) else set())
        return all(covered(desired.get(k), observed.get(k), _child(path, k)) for k in names)
    if isinstance(desired, (list, tuple)):
        return (
            isinstance(observed, (list, tuple))
            and len(desired) == len(observed)
            and all(covered(d, o, f"{path}[{i}]") for i, (d, o) in enumerate(zip(desired, observed, strict=True)))
        )
    return desired == observed and type(desired) is type(observed)


def change_lines(path: str, desired: Any, observed: Any) -> list[str]:
    """One line per leaf that differs, named by its full path (`scheduling.priority_weight_age:
    1000 → 2000`), so a reviewer sees what changes rather than two truncated objects."""
    if covered(desired, observed, path):
        return []
    if isinstance(desired, dict) and desired and observed is None:
        observed = {}  # a new object (say a partition's config): shown key by key, as a changed one is
    if isinstance(desired, dict) and isinstance(observed, dict):
        names = sorted(desired) + (sorted(k for k in observed if k not in desired) if _is_map(path) else [])
        return [line for k in names for line in change_lines(_child(path, k), desired.get(k), observed.get(k))]
    if isinstance(desired, (list, tuple)) and isinstance(observed, (list, tuple)) and len(desired) == len(observed):
        return [line for i, (d, o) in enumerate(zip(desired, observed, strict=True)) for line in change_lines(f"{path}[{i}]", d, o)]
    if observed is None or _zero(observed):
        return [f"+ {path}: {_short(desired)}"]
    if desired is None or (_zero(desired) and not isinstance(desired, (int, float))):
        return [f"- {path} (was {_short(observed)})"]
    return [f"~ {path}: {_short(observed)} → {_short(desired)}"]


def _is_map(path: str) -> bool:
    return path.rsplit(".", 1)[-1] in MAP_FIELDS


def _child(path: str, key: str) -> str:
    return f"{path}.{key}" if path else str(key)


def _zero(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_zero(v) for v in value.values())
    return value is None or value is False or (value == 0 and not isinstance(value, bool)) or value == "" or value in ([], ())


def differences(desired: ClusterSpec, observed: GcpClusterState) -> Differences:
    body = desired.body()
    mask: list[str] = []
    immutable: list[Immutable] = []
    top: list[str] = []
    for field in ("display_name", "labels", "lustre_export_config"):
        if field in body and not covered(body[field], observed.body.get(field), field):
            mask.append(field)
            top += change_lines(field, body[field], observed.body.get(field))
    for field, rule in (
        ("network", "the network of a cluster is immutable"),
        ("runtime_spec", "the runtime spec (service account) of a cluster is immutable"),
    ):
        if field in body and not covered(body[field], observed.body.get(field)):
            immutable += _immutable_leaves(field, body[field], observed.body.get(field), rule)

    pool_lines, pools_changed, pools_immutable = _pools(body["node_pools"], observed)
    immutable += pools_immutable
    if pools_changed:
        mask.append("node_pools")

    slurm_lines: list[str] = []
    want, have = desired.slurm, observed.slurm
    if want.get("home_directory_storage") != have.get("home_directory_storage"):
        immutable.append(
            Immutable(
                "orchestrator_spec.slurm_spec.home_directory_storage",
                have.get("home_directory_storage"),
                want.get("home_directory_storage"),
                "the home directory storage is immutable",
            )
        )
    replacements = [str(item) for item in immutable]
    for field in SLURM_MUTABLE:
        if field in SLURM_SERVICE_DEFAULTED and field not in want:
            continue
        new, old = want.get(field), have.get(field)
        if covered(new, old, field):
            continue
        mask.append(SLURM_PREFIX + field)
        slurm_lines += slurm_change_lines(field, old, new)
    return Differences(tuple(mask), tuple(replacements), tuple(slurm_lines), pool_lines, tuple(top), tuple(immutable))


def _immutable_leaves(path: str, desired: Any, observed: Any, rule: str) -> list[Immutable]:
    """One Immutable per leaf that differs, named by its full path (network.subnetwork), so an
    error names the field and shows both values rather than two whole objects cut short."""
    if isinstance(desired, dict) and isinstance(observed, dict):
        return [
            leaf
            for key in sorted(desired)
            for leaf in (
                _immutable_leaves(_child(path, key), desired[key], observed.get(key), rule)
                if not covered(desired[key], observed.get(key), _child(path, key))
                else []
            )
        ]
    return [Immutable(path, observed, desired, rule)]


def _pools(wanted: list[dict[str, Any]], observed: GcpClusterState) -> tuple[dict[str, tuple[str, ...]], bool, list[Immutable]]:
    """Per pool, the lines a reviewer reads; whether node_pools changes; and the immutable fields of
    a pool that change under its id (machine spec, reservation, provisioning model): the cluster
    cannot take those in place. A pool under a new id is one pool added and another removed, which a
    PATCH of node_pools does in place."""
    lines: dict[str, tuple[str, ...]] = {}
    immutable: list[Immutable] = []
    changed = [p.get("id") for p in wanted] != [p.get("id") for p in observed.body.get("node_pools") or ()]
    for pool in wanted:
        have = observed.pool_body(pool["id"])
        if have is None:
            lines[pool["id"]] = ("+ new node pool",)
            changed = True
            continue
        for field in POOL_IMMUTABLE:
            if field in pool and not covered(pool[field], have.get(field), field):
                path = f"node_pools[{pool['id']}].{field}"
                immutable += _immutable_leaves(path, pool[field], have.get(field), POOL_IMMUTABLE_RULE.format(field=field))
        found = []
        for field, value in pool.items():
            if field in ("id", *POOL_IMMUTABLE) or covered(value, have.get(field), field):
                continue
            if field != "scaling_spec":
                found += change_lines(field, value, have.get(field))
        changed = changed or bool(found) or not covered(pool.get("scaling_spec"), have.get("scaling_spec"), "scaling_spec")
        lines[pool["id"]] = tuple(found)
    return lines, changed, immutable


def slurm_change_lines(field: str, old: Any, new: Any) -> list[str]:
    """Per-key lines for the slurm.conf `config` map; one line for the other fields."""
    if field == "config":
        old, new = old or {}, new or {}
        lines = [f"~ {k}: {old[k]} → {new[k]}" for k in sorted(new) if k in old and old[k] != new[k]]
        lines += [f"+ {k}: {new[k]}" for k in sorted(new) if k not in old]
        lines += [f"- {k} (was {old[k]})" for k in sorted(old) if k not in new]
        return lines
    if field in ("prolog_bash_scripts", "epilog_bash_scripts"):
        return [
            f"~ {field}: {len(old or ())} → {len(new or ())} script(s), contents changed"
            if len(old or ()) == len(new or ())
            else f"~ {field}: {len(old or ())} → {len(new or ())} script(s)"
        ]
    if field == "partitions" and _partitions(old) != _partitions(new):
        return [f"~ partitions: {_partitions(old)} → {_partitions(new)}"]
    return change_lines(field, new, old)


def _partitions(value: Any) -> str:
    if not value:
        return "(none)"
    return ", ".join(f"{p.get('id')}[{'+'.join(p.get('node_pool_ids') or ())}]" for p in value)


def _short(value: Any, limit: int = 60) -> str:
    if value is None:
        return "(unset)"
    text = value if isinstance(value, str) else repr(value)
    if CONTROL_OR_NEWLINE.search(text):  # a value read back from the service reaches the terminal escaped
        text = repr(text)[1:-1]
    return text if len(text) <= limit else text[: limit - 1] + "…"
