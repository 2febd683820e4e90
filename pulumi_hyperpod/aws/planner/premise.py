"""HyperPod's premises: what each step kind assumes (plans/steps.py), recorded with the plan and read again.

`record` adds to a plan's basis one Fact per thing its steps assume beyond the basis itself (the
cluster, its groups' counts and nodes: basis.py): for every premise the steps declare, as observed.
`READERS` has one reader per premise name: given the plan and the cluster as it is now (`Now`), it
says in words what no longer holds. The saved-plan check (aws/saved.py `load`, then
`stale_reasons` below, which apply runs before the first call) reads them all; a premise a step
declares with no reader here fails tests/unit/aws/planner/test_premise.py.

- configuration: each top-level member of DescribeCluster and of each group (one level into the
  structured ones: LifeCycleConfig.OnCreate) as a short hash — another writer's UpdateCluster is a
  stale plan, naming the member, as on Google Cloud;
- image: each node a rollout names, its LastSoftwareUpdateTime and image release — a rollout that
  finished since (or another one) is a stale plan; the groups' images are part of configuration;
- workload: what ran on each node the plan takes down (when the plan was made with a workload
  view) — read again at apply from the same kind of source; a node on which work landed since
  (a job or pod it did not run) is refused, naming what runs there now; work that ended is no harm;
- roles: the Slurm role the plan used for each group — a group that now says another
  (SlurmConfig.NodeType), or whose nodes the running cluster's Slurm shows in another role
  (`roles_against_slurm`: sinfo lists compute nodes only), is a stale plan;
- tags: the cluster's tags (ListTags), when the plan manages them;
- extensions: each extension the cluster had (its ARN, version and configuration, from
  ListClusterExtensions and DescribeClusterExtension) and each one the plan creates (absent), when the
  plan manages them — one created, changed, replaced or removed since is a stale plan, naming it;
- acted: the cluster's newest event when the plan was made (Continuous clusters, whose service
  keeps events) — any event since about a node the plan names (a reboot, a replacement, a patch)
  means it acted already. A saved reboot on a cluster without events cannot show this and is
  refused when loaded (aws/saved.py).

Pure: the readers get what apply observed (`Now`), they read nothing themselves.
"""

from __future__ import annotations

import hashlib
import json
import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterable, Mapping

from pulumi_hyperpod.aws.planner import basis
from pulumi_hyperpod.plans.basis import Fact
from pulumi_hyperpod.plans.steps import KINDS

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.model import Plan, Step
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.observe.state import ExtensionState

# What the service changes on its own (counts, statuses, progress): not a writer's configuration.
# Counts and targets are the basis's (the "groups" premise).
VOLATILE_CLUSTER = frozenset({"ResponseMetadata", "ClusterStatus", "InstanceGroups", "FailureMessage", "CreationTime", "AutoScaling"})
VOLATILE_GROUP = frozenset(
    {
        "CurrentCount",
        "TargetCount",
        "MinCount",
        "Status",
        "ActiveOperations",
        "TargetStateCount",
        "SoftwareUpdateStatus",
        "ActiveSoftwareUpdateConfig",
        "TrainingPlanStatus",
        "InstanceTypeDetails",
        "ImageVersionStatus",  # the service's view of a release being out; the image members say what runs
    }
)
NO_EVENTS = "none: the service keeps no events for this cluster"
ABSENT = "absent"  # an extension the plan creates: none of its name when the plan was made


@dataclass(frozen=True, slots=True)
class Now:
    """The cluster as apply observed it before the first call, with what else it read for the
    premises the plan declares (None: not read)."""

    state: ClusterState | None
    events: tuple[Mapping[str, Any], ...] | None = None  # ListClusterEvents since the plan's newest event
    workload: Any = None  # a WorkloadView read again, from the source apply was given
    workload_why: str = ""  # why there is none (no source given)


# ---- what the plan assumes ----------------------------------------------------------------------
def declared(plan: Plan) -> set[str]:
    """Every premise the plan's steps declare."""
    return {premise for step in plan.steps for premise in KINDS[step.kind].premise}


def named_nodes(step: Step) -> list[str]:
    """The node keys a step takes down: its victims, the NodeIds it names, its rollout's batches."""
    keys = [victim.node_id for victim in step.victims]
    for field in ("NodeIds", "NodeLogicalIds"):
        keys += [key for key in step.request.get(field) or () if isinstance(key, str)]
    keys += [key for batch in step.batches for key in batch]
    return list(dict.fromkeys(keys))


def _nodes_for(plan: Plan, premise: str) -> list[str]:
    return list(dict.fromkeys(key for step in plan.steps if premise in KINDS[step.kind].premise for key in named_nodes(step)))


def record(plan: Plan, observed: ClusterState | None, roles: Mapping[str, str], workload: Any) -> Plan:
    """The plan with the facts its steps' premises rest on, as `observed` (and the workload view) showed them."""
    if observed is None or plan.basis is None or plan.refused or not plan.steps:
        return plan
    wanted = declared(plan)
    facts: list[Fact] = []
    if "configuration" in wanted:
        facts += [Fact("configuration", "cluster", _members(observed.describe, VOLATILE_CLUSTER))]
        facts += [Fact("configuration", g.name, _members(g.described, VOLATILE_GROUP)) for g in observed.groups]
    index = _Index(observed) if wanted & {"image", "workload"} else None
    if index is not None and "image" in wanted:
        facts += [Fact("image", key, _image(index, key)) for key in _nodes_for(plan, "image")]
    if index is not None and "workload" in wanted and workload is not None:
        facts += [Fact("workload", key, _work(workload, index, key)) for key in _nodes_for(plan, "workload")]
    if "roles" in wanted:
        facts += [Fact("roles", g.name, g.node_type or roles.get(g.name) or "unknown") for g in observed.groups]
    if "tags" in wanted and observed.tags is not None:
        facts.append(Fact("tags", "cluster", _digest(sorted(observed.tags))))
    if "acted" in wanted:
        facts.append(Fact("acted", "cluster", horizon_of(observed)))
    if "extensions" in wanted and observed.extensions is not None:
        facts += [Fact("extensions", e.name, extension_fact(e)) for e in observed.extensions]
        created = {str(s.request.get("ExtensionName")) for s in plan.steps if s.kind == "create-extension"}
        facts += [Fact("extensions", name, ABSENT) for name in sorted(created - {e.name for e in observed.extensions})]
    return dataclasses.replace(plan, basis=plan.basis.with_facts(tuple(facts)))


def extension_fact(extension: ExtensionState) -> str:
    """What a step assumes of an extension: which one it is, its version, its configuration and when
    it was last written (its status is the service's progress, not a writer's change)."""
    return f"{extension.version}|{_digest(extension.configuration)}|{extension.arn}|{extension.modified}"


def horizon_of(observed: ClusterState) -> str:
    """The newest event the service kept when the plan was made ("<time>|<id>"), or why there is none."""
    horizon = observed.events_horizon
    if horizon is None:
        return NO_EVENTS if not observed.continuous else "not read"
    return horizon


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, sort_keys=True, separators=(",", ":"), default=str).encode()).hexdigest()[:12]


def _members(described: Mapping[str, Any], volatile: frozenset[str]) -> str:
    """Each member a writer sets, one level into structured ones, as a short hash (a JSON object)."""
    flat: dict[str, str] = {}
    for key, value in described.items():
        if key in volatile or key.startswith("Current"):
            continue
        if isinstance(value, Mapping) and value:
            for inner, item in value.items():
                if not inner.startswith("Current"):  # what the service has reached of a Desired*: its progress
                    flat[f"{key}.{inner}"] = _digest(item)
        else:
            flat[key] = _digest(value)
    return json.dumps(flat, sort_keys=True, separators=(",", ":"))


class _Index:
    """An observation's nodes by key and their ListClusterNodes summaries by instance id, built once:
    a rollout names every node (thousands), and looking each up by a scan is quadratic."""

    __slots__ = ("nodes", "summaries")

    def __init__(self, observed: ClusterState) -> None:
        self.nodes = {n.key: n for n in observed.nodes if n.key}
        self.nodes.update({n.logical_id: n for n in observed.nodes if n.logical_id and n.logical_id not in self.nodes})
        self.summaries = {s.get("InstanceId"): s for s in observed.node_summaries if s.get("InstanceId")}

    def node(self, key: str) -> Any:
        return self.nodes.get(key)

    def summary(self, key: str) -> Mapping[str, Any]:
        node = self.nodes.get(key)
        return self.summaries.get(node.instance_id, {}) if node is not None and node.instance_id else {}


def _image(index: _Index, key: str) -> str:
    summary = index.summary(key)
    when = summary.get("LastSoftwareUpdateTime")
    when = when.isoformat() if hasattr(when, "isoformat") else (str(when) if when is not None else "never")
    return f"{when}|{summary.get('CurrentImageReleaseVersion') or ''}"


def _work(view: Any, index: _Index, key: str) -> str:
    node = index.node(key)
    work = view.node(node.instance_id if node is not None else key)
    if work is None:
        return "not seen"
    return (
        "idle"
        if work.idle
        else ",".join(sorted([f"job {j.job_id}" for j in work.jobs] + [f"pod {p.namespace}/{p.name}" for p in work.pods]))
    )


# ---- reading them again ---------------------------------------------------------------------------
Reader = Callable[["Plan", Now], list[str]]


def _configuration(plan: Plan, now: Now) -> list[str]:
    assert plan.basis is not None and now.state is not None
    reasons = []
    groups = {g.name: g for g in now.state.groups}
    for subject, value in plan.basis.facts_of("configuration").items():
        if subject == "cluster":
            current = _members(now.state.describe, VOLATILE_CLUSTER)
        elif subject in groups:
            current = _members(groups[subject].described, VOLATILE_GROUP)
        else:
            continue  # a group gone is the groups premise's
        if current != value:
            before, after = json.loads(value), json.loads(current)
            moved = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
            where = f"cluster {plan.cluster_name}" if subject == "cluster" else f"group {subject}"
            reasons.append(
                f"{where}: its configuration is not the one the plan was computed against ({', '.join(moved[:5])} changed since)"
            )
    return reasons


def _image_moved(plan: Plan, now: Now) -> list[str]:
    assert plan.basis is not None and now.state is not None
    reasons = []
    index = _Index(now.state)
    for key, value in plan.basis.facts_of("image").items():
        if index.node(key) is None:
            continue  # gone: the nodes premise names it
        current = _image(index, key)
        if current != value:
            before, after = value.split("|")[0], current.split("|")[0]
            reasons.append(f"node {key}: its software was updated since the plan was made (LastSoftwareUpdateTime {before} → {after})")
    return reasons


def _workload_moved(plan: Plan, now: Now) -> list[str]:
    assert plan.basis is not None and now.state is not None
    facts = plan.basis.facts_of("workload")
    if not facts:
        return []
    if now.workload is None:
        return [
            f"the plan chose {', '.join(sorted(facts)[:5])} by what ran on them; what runs there now cannot be read "
            f"({now.workload_why or 'no workload source'}): give --read-workload (or --workload-command) to check it again"
        ]
    reasons = []
    index = _Index(now.state)
    for key, value in sorted(facts.items()):
        current = _work(now.workload, index, key)
        if _landed(value, current):  # work that ended since is no harm; new work on a node taken down is
            node = index.node(key)
            work = now.workload.node(node.instance_id if node is not None else key)
            said = work.describe() if work is not None else "not seen by the orchestrator"
            reasons.append(f"node {key}: what runs on it changed since the plan chose it (was {value}; now {said})")
    return reasons


def _landed(before: str, now: str) -> bool:
    """Whether something runs on the node now that did not when the plan chose it (`_work`'s values)."""
    if now in ("idle", "not seen"):
        return False
    return bool(set(now.split(",")) - (set() if before in ("idle", "not seen") else set(before.split(","))))


def roles_against_slurm(roles: Mapping[str, str], state: ClusterState, view: Any) -> list[str]:
    """Where the roles a lifecycle bundle gives groups without SlurmConfig.NodeType disagree with the
    running cluster's Slurm: slurmd runs on compute nodes only, so sinfo lists a compute group's
    running nodes and never a controller's or a login node. [] when they agree, or no Slurm view says."""
    if view is None or getattr(view, "orchestrator", "") != "Slurm" or not any(n.listed for n in view.nodes):
        return []  # no Slurm listing of its nodes (squeue alone says which nodes work, not where slurmd runs)
    found = []
    for group in state.groups:
        role = roles.get(group.name)
        if group.node_type or role is None:
            continue  # the service says it, or nothing to check
        running = [n.instance_id for n in state.nodes_of(group.name) if n.instance_id and n.status == "Running"]
        listed = [node for node in running if (work := view.node(node)) is not None and work.listed]
        if role in ("Controller", "Login") and listed:
            found.append(
                f"the lifecycle bundle makes {group.name} the {role} group, but the running cluster's Slurm lists its "
                f"node(s) {', '.join(listed[:3])} as compute nodes (slurmd runs there)"
            )
        elif role == "Compute" and running and not listed:
            found.append(
                f"the lifecycle bundle makes {group.name} a Compute group, but the running cluster's Slurm lists none "
                f"of its running node(s) {', '.join(running[:3])} (a controller or login node runs no slurmd)"
            )
    return found


def _roles_moved(plan: Plan, now: Now) -> list[str]:
    assert plan.basis is not None and now.state is not None
    reasons = []
    recorded = plan.basis.facts_of("roles")
    for group, role in recorded.items():
        have = now.state.group(group)
        if have is not None and have.node_type and have.node_type != role:
            reasons.append(f"group {group}: the cluster says it is a {have.node_type} group; the plan took it for {role}")
    known = {group: role for group, role in recorded.items() if role != "unknown"}
    return reasons + roles_against_slurm(known, now.state, now.workload)


def _tags_moved(plan: Plan, now: Now) -> list[str]:
    assert plan.basis is not None and now.state is not None
    value = plan.basis.facts_of("tags").get("cluster")
    if value is None or now.state.tags is None:
        return []
    return [] if _digest(sorted(now.state.tags)) == value else [f"cluster {plan.cluster_name}: its tags changed since the plan was made"]


def _acted(plan: Plan, now: Now) -> list[str]:
    assert plan.basis is not None and now.state is not None
    if now.events is None:
        return []
    named = set(_nodes_for(plan, "acted"))
    index = _Index(now.state)
    ids = {n.instance_id for key in named if (n := index.node(key)) is not None and n.instance_id} | named
    reasons = []
    for event in now.events:  # newer than the plan's newest (reader.events_since)
        if event.get("InstanceId") in ids or (
            "software update" in str(event.get("Description") or "") and "update-software" in {s.kind for s in plan.steps}
        ):
            reasons.append(
                f"{event.get('InstanceId') or 'the cluster'}: {str(event.get('Description') or 'an event')[:200]} "
                f"({event.get('EventTime')}), after the plan was made: it has acted already"
            )
    return reasons[:5]


def _extensions_moved(plan: Plan, now: Now) -> list[str]:
    assert plan.basis is not None and now.state is not None
    facts = plan.basis.facts_of("extensions")
    if not facts or now.state.extensions is None:
        return []
    reasons = []
    for name, value in sorted(facts.items()):
        have = now.state.extension(name)
        current = extension_fact(have) if have is not None else ABSENT
        if current == value:
            continue
        if have is None:
            said = "it was removed since"
        elif value == ABSENT:
            said = f"it was installed since ({have.version}, {have.status})"
        else:
            version, config, arn, _ = value.split("|", 3)
            if arn != have.arn:
                said = "it was removed and installed again since"
            elif version != have.version:
                said = f"its version changed since ({version} → {have.version})"
            elif config != _digest(have.configuration):
                said = "its configuration changed since"
            else:
                said = f"it was changed since (LastModifiedTime {have.modified})"
        reasons.append(f"extension {name}: {said}; the plan was computed against it as it was")
    return reasons


def _basis_reader(name: str) -> Reader:
    def read(plan: Plan, now: Now) -> list[str]:
        return getattr(basis, name)(plan, now.state)

    return read


# One reader per premise name (plans/steps.py's Premise). The basis's own three (cluster, groups,
# nodes) are basis.py's and always run; the rest run for the premises the plan's steps declare.
READERS: dict[str, Reader] = {
    "cluster": _basis_reader("cluster_moved"),
    "groups": _basis_reader("groups_moved"),
    "nodes": _basis_reader("nodes_moved"),
    "configuration": _configuration,
    "image": _image_moved,
    "workload": _workload_moved,
    "roles": _roles_moved,
    "tags": _tags_moved,
    "acted": _acted,
    "extensions": _extensions_moved,
}
BASIS_PREMISES = ("cluster", "groups", "nodes")


def reasons(plan: Plan, now: Now, premises: Iterable[str] | None = None) -> list[str]:
    """What no longer holds of the facts the plan recorded, premise by premise."""
    if plan.basis is None or now.state is None:
        return []
    found: list[str] = []
    for premise in premises if premises is not None else sorted(declared(plan) - set(BASIS_PREMISES)):
        found += READERS[premise](plan, now)
    return found


def stale_reasons(plan: Plan, now: ClusterState | None, **read: Any) -> list[str]:
    """What changed since the plan was made that the plan depends on, in words; [] when it still holds.
    The basis (cluster, groups, nodes) is checked for every plan; then each premise the plan's steps
    declare (`READERS`). `read`: what apply read besides the cluster for them
    (`Now`'s `events`, `workload`, `workload_why`)."""
    moved = basis.cluster_moved(plan, now)
    if now is None or plan.basis is None or now.arn != plan.basis.identity:
        return moved
    moved += basis.groups_moved(plan, now)
    moved += basis.nodes_moved(plan, now)
    return moved + reasons(plan, Now(now, **read))
