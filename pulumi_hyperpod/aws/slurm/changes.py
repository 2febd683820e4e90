"""Slurm changes on a running HyperPod cluster: what differs between two Slurm specs, per key, and
what each difference takes there. Pure: no I/O; the plan shows the result, apply does the steps.

How each kind of change reaches a HyperPod cluster (and which nodes get it when):

- partition membership, on clusters that take roles from SlurmConfig: UpdateCluster with the
  groups' `SlurmConfig.PartitionNames`; HyperPod rewrites the partition lines of slurm.conf in
  merge mode (seed 000: it updates only the partition and node lines, other lines stay). Applies
  to the running cluster when the update is processed.
- partition membership on legacy clusters (roles in provisioning_parameters.json): the bundle is
  read by each node's lifecycle script when the node is created, so only nodes created after the
  bundle changes get it; existing nodes keep their partitions. Migrating the cluster to SlurmConfig
  (API-driven Slurm configuration) is the documented way to change partitions in place.
- `config` keys, the default partition and prolog/epilog scripts: a new bundle (content-addressed
  prefix) and UpdateCluster pointing every group's LifeCycleConfig.SourceS3Uri at it. Lifecycle
  scripts run when a node is created (OnCreate), so nodes created afterwards get it; running nodes
  keep what they were built with (seed 004). To apply it to the running controller now, run the
  new bundle's slurm_spec_hook.py there and then `scontrol reconfigure` — or restart slurmctld for
  the keys flagged `restart` below. UpdateClusterSoftware is AWS's platform-software patching
  (security updates); this tool does not count on it to re-run lifecycle scripts.
- login or controller pool: shown; the cluster plan adds or deletes the groups, and refuses a
  group whose SlurmConfig.NodeType would change in place (it needs a new cluster).
- home directory storage: mounted by the lifecycle script at node creation; existing nodes keep
  the old mount and no data is moved — refused unless the cluster is replaced.

Restart flags come from the Slurm documentation: `scontrol reconfigure` re-reads slurm.conf
without interrupting running jobs but "will not be able to change the daemons' listening TCP port
settings or authentication mechanism" (scontrol(1)); slurm.conf(5): "All Slurm daemons, commands
and running jobs must be restarted or reconfigured for a change in SwitchType".
"""

from __future__ import annotations

import dataclasses

from dataclasses import dataclass, field
from typing import Any, Literal

from pulumi_hyperpod.core.terminal import shown
from pulumi_hyperpod.slurm.spec import SlurmSpec
from io import StringIO

Kind = Literal["config", "partition", "default_partition", "login_pool", "controller_pool", "home", "prolog", "epilog"]
Action = Literal["add", "change", "remove"]
Mode = Literal["SlurmConfig", "provisioning_parameters"]

_SYMBOL = {"add": "+", "change": "~", "remove": "-"}

# Keys a running slurmctld/slurmd cannot take with `scontrol reconfigure` (scontrol(1), slurm.conf(5)).
RESTART_KEYS: dict[str, str] = {
    "CommunicationParameters": "slurmctld and slurmd restart (it sets how the daemons listen)",
    "SlurmctldAddr": "slurmctld restart (the address slurmctld listens on)",
    "SwitchType": "restart of every Slurm daemon and running job",
}

_BUNDLE = "new lifecycle bundle (content-addressed S3 prefix) and UpdateCluster pointing every group's LifeCycleConfig.SourceS3Uri at it"
_NEW_NODES = "nodes created after the update (lifecycle scripts run at node creation); running nodes keep what they were built with"
_ON_CONTROLLER = "the running controller gets it when the new bundle's slurm_spec_hook.py is run on it, then `scontrol reconfigure`"


@dataclass(frozen=True)
class SlurmChange:
    kind: Kind
    key: str
    action: Action
    before: str | None
    after: str | None
    takes: str  # the mechanism on HyperPod
    applies: str  # which nodes get it, when
    restart: str | None = None  # what must restart; None: `scontrol reconfigure` is enough (or no daemon involved)
    refused: str | None = None  # why it cannot be done in place

    def __str__(self) -> str:
        if self.action == "change":
            return f"~ {self.key}: {_short(self.before)} → {_short(self.after)}"
        value = self.after if self.action == "add" else self.before
        return f"{_SYMBOL[self.action]} {self.key}: {_short(value)}"


@dataclass(frozen=True)
class SlurmChanges:
    """Every Slurm change between two specs on one HyperPod cluster."""

    mode: Mode
    changes: tuple[SlurmChange, ...] = ()
    partition_updates: dict[str, tuple[str, ...]] = field(default_factory=dict)  # group -> PartitionNames (SlurmConfig mode)

    @property
    def empty(self) -> bool:
        return not self.changes

    @property
    def refusals(self) -> tuple[SlurmChange, ...]:
        return tuple(c for c in self.changes if c.refused)

    @property
    def needs_bundle(self) -> bool:
        return any(
            c.kind in ("config", "default_partition", "prolog", "epilog")
            or (c.kind == "partition" and self.mode == "provisioning_parameters")
            for c in self.changes
        )

    @property
    def restarts(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(c.restart for c in self.changes if c.restart))

    def steps(self) -> list[str]:
        """What apply has to do, in order (empty when refused)."""
        if self.refusals or self.empty:
            return []
        steps = []
        if self.needs_bundle:
            steps.append(f"upload the {_BUNDLE}")
        if self.partition_updates:
            groups = ", ".join(f"{g} → {list(p)}" for g, p in self.partition_updates.items())
            steps.append(f"UpdateCluster SlurmConfig.PartitionNames: {groups} (HyperPod rewrites the partition lines, merge mode)")
        if any(c.kind in ("config", "default_partition", "prolog", "epilog") for c in self.changes):
            restart = "; then restart: " + "; ".join(self.restarts) if self.restarts else ""
            steps.append(
                f"on the running cluster (not done by apply): run slurm_spec_hook.py from the new bundle on the "
                f"controller and every node, then `scontrol reconfigure`{restart}"
            )
        return steps

    def to_dict(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "changes": [c.__dict__ | {"text": str(c)} for c in self.changes],
            "partition_updates": {g: list(p) for g, p in self.partition_updates.items()},
            "steps": self.steps(),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SlurmChanges:
        """The inverse of `to_dict` (a saved plan's Slurm section); derived members are recomputed."""
        names = {f.name for f in dataclasses.fields(SlurmChange)}
        changes = tuple(SlurmChange(**{k: v for k, v in c.items() if k in names}) for c in data.get("changes") or ())
        updates = {g: tuple(p) for g, p in (data.get("partition_updates") or {}).items()}
        return cls(data["mode"], changes, updates)


def diff_slurm(before: SlurmSpec | None, after: SlurmSpec, *, mode: Mode = "SlurmConfig") -> SlurmChanges:
    """The changes from `before` (the running cluster's spec; None: not known) to `after`."""
    if before is None:
        return SlurmChanges(mode, ())
    changes = [
        *_config(before, after),
        *_partitions(before, after, mode),
        *_default(before, after),
        *_pools(before, after),
        *_home(before, after),
        *_scripts("prolog", before, after),
        *_scripts("epilog", before, after),
    ]
    updates = _partition_updates(before, after) if mode == "SlurmConfig" else {}
    return SlurmChanges(mode, tuple(changes), updates)


# ---- per kind ------------------------------------------------------------------------------------


def _config(before: SlurmSpec, after: SlurmSpec) -> list[SlurmChange]:
    result = []
    for key in sorted(set(before.config) | set(after.config)):
        old, new = before.config.get(key), after.config.get(key)
        if old == new:
            continue
        action: Action = "add" if old is None else "remove" if new is None else "change"
        applies = f"{_NEW_NODES}; {_ON_CONTROLLER}" + (" (removing a key returns it to Slurm's default)" if new is None else "")
        result.append(SlurmChange("config", key, action, old, new, _BUNDLE, applies, RESTART_KEYS.get(key)))
    return result


def _pool_partition(spec: SlurmSpec) -> dict[str, tuple[str, ...]]:
    return spec.pool_partitions()


def _partitions(before: SlurmSpec, after: SlurmSpec, mode: Mode) -> list[SlurmChange]:
    old = {p.id: p.node_pool_ids for p in before.partitions}
    new = {p.id: p.node_pool_ids for p in after.partitions}
    if mode == "SlurmConfig":
        takes = "UpdateCluster with the groups' SlurmConfig.PartitionNames; HyperPod rewrites the partition lines (merge mode)"
        applies = "the running cluster, when HyperPod processes the update; jobs already running are not moved"
    else:
        takes = f"{_BUNDLE} (worker_groups in provisioning_parameters.json)"
        applies = (
            "only nodes created after the update; existing nodes keep their partitions (to change them in place, "
            "move the cluster to SlurmConfig: API-driven Slurm configuration)"
        )
    result = []
    for pid in [*old, *(p for p in new if p not in old)]:
        if old.get(pid) == new.get(pid):
            continue
        action: Action = "add" if pid not in old else "remove" if pid not in new else "change"
        result.append(
            SlurmChange("partition", f"partition {pid}", action, _pools_text(old.get(pid)), _pools_text(new.get(pid)), takes, applies)
        )
    return result


def _partition_updates(before: SlurmSpec, after: SlurmSpec) -> dict[str, tuple[str, ...]]:
    old, new = _pool_partition(before), _pool_partition(after)
    return {pool: parts for pool, parts in new.items() if old.get(pool) != parts} | {pool: () for pool in old if pool not in new}


def _default(before: SlurmSpec, after: SlurmSpec) -> list[SlurmChange]:
    if before.default_partition == after.default_partition:
        return []
    return [
        SlurmChange(
            "default_partition",
            "default partition",
            "change",
            before.default_partition,
            after.default_partition,
            f"{_BUNDLE}; the hook sets Default=YES on the partition line",
            f"{_ON_CONTROLLER} (or a new controller node)",
        )
    ]


def _pools(before: SlurmSpec, after: SlurmSpec) -> list[SlurmChange]:
    """Which group is login or controller: shown, and left to the cluster plan, which adds or
    deletes the groups and refuses a group whose SlurmConfig.NodeType would change in place."""
    result = []
    for name, kind, field_name in (
        ("login pool", "login_pool", "login_node_pool_id"),
        ("controller pool", "controller_pool", "controller_node_pool_id"),
    ):
        old, new = getattr(before, field_name), getattr(after, field_name)
        if old == new or (kind == "controller_pool" and (old is None or new is None)):
            continue  # naming the controller explicitly or not is no change of roles
        action: Action = "add" if old is None else "remove" if new is None else "change"
        result.append(
            SlurmChange(
                kind,
                name,
                action,
                old,
                new,
                "instance group changes in the cluster plan (UpdateCluster)",
                "when the groups are added or removed; an existing group's NodeType cannot change in place (the cluster plan refuses that)",
            )
        )
    return result


def _home(before: SlurmSpec, after: SlurmSpec) -> list[SlurmChange]:
    old, new = before.home_directory_storage, after.home_directory_storage
    if old == new:
        return []
    action: Action = "add" if old is None else "remove" if new is None else "change"
    return [
        SlurmChange(
            "home",
            "home directory storage",
            action,
            old,
            new,
            _BUNDLE,
            _NEW_NODES,
            refused="home_directory_storage: running nodes would keep the old /home and new nodes mount the new "
            "one (no data is moved); change it with a new cluster",
        )
    ]


def _scripts(kind: Literal["prolog", "epilog"], before: SlurmSpec, after: SlurmSpec) -> list[SlurmChange]:
    old = getattr(before, f"{kind}_bash_scripts")
    new = getattr(after, f"{kind}_bash_scripts")
    result = []
    for index in range(max(len(old), len(new))):
        a = old[index] if index < len(old) else None
        b = new[index] if index < len(new) else None
        if a == b:
            continue
        action: Action = "add" if a is None else "remove" if b is None else "change"
        result.append(
            SlurmChange(
                kind,
                f"{kind}_bash_scripts[{index}]",
                action,
                _script_text(a),
                _script_text(b),
                _BUNDLE,
                f"{_NEW_NODES}; running nodes when the new hook runs on them",
            )
        )
    return result


# ---- text ----------------------------------------------------------------------------------------


def _pools_text(pools: tuple[str, ...] | None) -> str | None:
    return None if pools is None else "[" + ", ".join(pools) + "]"


def _script_text(script: str | None) -> str | None:
    if script is None:
        return None
    lines = [line for line in script.splitlines() if line.strip() and not line.startswith("#!")]
    summary = lines[0] if lines else "(empty)"
    return f"{summary} …({len(lines)} lines)" if len(lines) > 1 else summary


def _short(value: str | None, width: int = 60) -> str:
    if value is None:
        return "(unset)"
    return value if len(value) <= width else value[: width - 1] + "…"


def render_changes(changes: SlurmChanges) -> Any:
    """A rich renderable: one line per change, what it takes, restarts, refusals, steps."""
    from rich.console import Group  # noqa: PLC0415 - rich: a rendering, never on a preview's path
    from rich.table import Table  # noqa: PLC0415 - rich: a rendering, never on a preview's path
    from rich.text import Text  # noqa: PLC0415 - rich: a rendering, never on a preview's path

    if changes.empty:
        return Text("Slurm: no changes")
    table = Table(title=f"Slurm changes (roles by {changes.mode})", title_justify="left")
    for column in ("change", "takes", "who gets it, when", "restart"):
        table.add_column(column)
    for change in changes.changes:
        style = "red" if change.refused else ""
        restart = change.restart or ("scontrol reconfigure" if change.kind in ("config", "default_partition") else "-")
        table.add_row(Text(str(change), style=style), Text(change.takes), Text(change.applies), Text(restart))
    parts: list[Any] = [table]
    for change in changes.refusals:
        parts.append(Text(f"refused: {change.refused}", style="red"))
    for number, step in enumerate(changes.steps(), 1):
        parts.append(Text(f"{number}. {step}"))
    return Group(*parts)


def changes_text(changes: SlurmChanges, width: int = 160) -> str:
    from rich.console import Console  # noqa: PLC0415 - rich: a rendering, never on a preview's path

    buffer = StringIO()
    Console(file=buffer, width=width, no_color=True, color_system=None).print(render_changes(changes))
    return shown(buffer.getvalue())
