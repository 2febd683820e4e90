"""The plan of a compute quota or a scheduler configuration: create, update (one Update call naming
the version read, `TargetVersion`), delete, or no changes. Pure.

Every member of the create request has its verdict (kinds.py): identity, in place, or create-only and
not read back (Tags); what the service sets is never compared. A member the spec leaves out is kept
(the Update operations' members are optional, and the service leaves an absent one as it is); inside a
structure, a key the spec leaves out is the service's (its documented default, or what it filled in),
so only what the spec says is compared. A structure that differs is sent whole.

What a change does to running work, where botocore's model documents it, is said in the step's
reasons with a `preempts:` code (docs/capacity.md, "Task governance"):
- ComputeQuotaResources lowered or an instance type dropped: the team's tasks beyond its new
  allocation can be preempted (the allocation is what the team is guaranteed; above it, it runs on
  idle compute, ResourceSharingConfig);
- ResourceSharingConfig.Strategy no longer lending (DontLend): idle compute lent to other teams is
  taken back ("DontLend: entities do not lend idle compute"), so their tasks on it can be preempted;
- no longer borrowing (LendAndBorrow → Lend or DontLend) or BorrowLimit lowered (default 50): this
  team's tasks on borrowed compute beyond the new limit can be preempted;
- PreemptTeamTasks to LowerPriority (its default): "the entity's lower priority tasks are preempted
  by their own higher priority tasks";
- ActivationState Disabled, or the quota deleted: the team no longer has the allocation;
- SchedulerConfig.PriorityClasses changed ("these class configurations define how tasks are
  queued") or FairShare turned off ("entities borrow idle compute based on a first-come
  first-serve basis"): running tasks are queued, and preempted, by the new order.
"""

from __future__ import annotations

from typing import Any, Literal

from pulumi_hyperpod.aws.governance.codes import GovernanceRefusal, Preemption, changed
from pulumi_hyperpod.aws.governance.kinds import QUOTA, RUNNING, SCHEDULER
from pulumi_hyperpod.aws.governance.observe import Observed
from pulumi_hyperpod.aws.governance.spec import GovernanceSpec
from pulumi_hyperpod.plans.basis import Basis, Fact
from pulumi_hyperpod.aws.planner.codes import StepReason
from pulumi_hyperpod.plans.model import Plan, Refusal, Step

# The model's documented defaults the effects compare against when a side leaves the member out.
_STRATEGY_DEFAULT, _BORROW_DEFAULT, _PREEMPT_DEFAULT = "LendAndBorrow", 50, "LowerPriority"
_AMOUNTS = ("Count", "Accelerators", "VCpu", "MemoryInGiB")


def matches(desired: Any, observed: Any) -> bool:
    """Whether the observed value is what the spec says: what a structure leaves out is the service's."""
    if isinstance(desired, dict):
        return isinstance(observed, dict) and all(matches(value, observed.get(key)) for key, value in desired.items())
    if isinstance(desired, list):
        return isinstance(observed, list) and len(desired) == len(observed) and all(map(matches, desired, observed))
    return bool(desired == observed)


def changed_members(spec: GovernanceSpec, resource: dict[str, Any]) -> list[str]:
    """The in-place members the spec gives and the resource does not have, in the model's order."""
    return [name for name in spec.kind.updatable() if name in spec.request and not matches(spec.request[name], resource.get(name))]


def _basis(observed: Observed, spec: GovernanceSpec) -> Basis:
    resource = observed.resource
    kind = spec.kind
    identity = resource[kind.arn_member] if resource else f"{observed.cluster.arn}/{kind.noun}/{spec.name} (absent)"
    facts = [Fact("cluster", "cluster", observed.cluster.arn)]
    if resource:
        facts += [Fact("cluster", "id", resource[kind.id_member]), Fact("configuration", "version", str(resource[kind.version_member]))]
    return Basis(identity=identity, state=resource["Status"] if resource else "absent", groups=(), facts=tuple(facts))


def plan(spec: GovernanceSpec, observed: Observed, *, delete: bool = False) -> Plan:
    """The plan, then refused when it calls something the service would refuse now: task governance
    on a cluster not orchestrated by EKS, or a change of a resource whose last change still runs (a
    plan with nothing to do is "no changes" whatever the status)."""
    cluster, resource = observed.cluster, observed.resource
    notes: tuple[str, ...] = (f"{spec.label} on cluster {cluster.name} ({cluster.arn})",)
    if resource is not None and spec.request.get("Tags") and not delete:
        notes += (
            "Tags are set when the resource is created: the Update operations take none and Describe returns none, so a change is not planned",
        )
    made = _steps(spec, observed, delete=delete)
    if made is None:
        return Plan(cluster.name, "none", notes=notes, basis=_basis(observed, spec))
    action, step = made
    the_plan = Plan(cluster.name, action, (step,), notes=notes, basis=_basis(observed, spec))
    if cluster.orchestrator != "Eks" and action != "delete":
        # HyperPod task governance is for clusters orchestrated by Amazon EKS (its guide); the service refuses others
        why = f"cluster {cluster.name} is orchestrated by {cluster.orchestrator or 'no orchestrator'}; task governance is for EKS-orchestrated clusters"
        return the_plan.refuse(Refusal(GovernanceRefusal.NOT_EKS, why))
    if resource is not None and resource["Status"] in RUNNING:
        why = f"{spec.label} is {resource['Status']}: plan again once it settles"
        return the_plan.refuse(Refusal(GovernanceRefusal.BUSY, why))
    return the_plan


def _steps(spec: GovernanceSpec, observed: Observed, *, delete: bool) -> tuple[Literal["create", "update", "delete"], Step] | None:
    """(the plan's action, its one step), or None: no changes."""
    kind, resource, cluster = spec.kind, observed.resource, observed.cluster
    if delete:
        if resource is None or resource["Status"] == "Deleting":
            return None
        effects = _deletion_effects(spec, resource)
        step = Step(
            kind.operation("Delete"),
            {kind.id_member: resource[kind.id_member]},
            reasons=(f"delete {spec.label}", *_sentences(effects)),
            kind="delete-resource",
            codes=(StepReason.NOT_DESIRED, *_codes(effects)),
        )
        return "delete", step
    if resource is None or resource["Status"] == "Deleting":  # one being deleted: created again once it is gone (busy until then)
        request = {**spec.request, "ClusterArn": cluster.arn}
        return "create", Step(
            kind.operation("Create"), request, reasons=(f"create {spec.label}",), kind="create-resource", codes=(StepReason.ABSENT,)
        )
    changed_names = changed_members(spec, resource)
    if not changed_names:
        return None
    effects = _effects(spec, resource)
    request = {kind.id_member: resource[kind.id_member], "TargetVersion": resource[kind.version_member]}
    request.update({name: spec.request[name] for name in changed_names})
    step = Step(
        kind.operation("Update"),
        request,
        reasons=(*(f"{name} differs" for name in changed_names), *_sentences(effects)),
        kind="update-resource",
        codes=(*(changed(name) for name in changed_names), *_codes(effects)),
    )
    return "update", step


# ---- what a change does to running work ----------------------------------------------------------------
# each effect is (code, sentence): the code for tools and policies (`preempts:<code>`), the sentence for people
Effect = tuple[Preemption, str]


def _codes(effects: list[Effect]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(code.code for code, _sentence in effects))


def _sentences(effects: list[Effect]) -> tuple[str, ...]:
    return tuple(sentence for _code, sentence in effects)


def _amounts(resources: list[dict[str, Any]] | None) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    for entry in resources or []:
        amounts = {name: float(entry[name]) for name in _AMOUNTS if name in entry}
        if "AcceleratorPartition" in entry:
            amounts[f"AcceleratorPartition {entry['AcceleratorPartition']['Type']}"] = float(entry["AcceleratorPartition"]["Count"])
        found[entry["InstanceType"]] = amounts
    return found


def _effects(spec: GovernanceSpec, resource: dict[str, Any]) -> list[Effect]:
    if spec.kind is SCHEDULER:
        return _scheduler_effects(spec.request.get("SchedulerConfig"), resource.get("SchedulerConfig") or {})
    effects: list[Effect] = []
    team = (resource.get("ComputeQuotaTarget") or {}).get("TeamName", spec.name)
    if spec.request.get("ActivationState") == "Disabled" and resource.get("ActivationState", "Enabled") == "Enabled":
        effects.append((Preemption.QUOTA_DISABLED, f"team {team} loses its allocation; its tasks beyond what others lend can be preempted"))
    new = spec.request.get("ComputeQuotaConfig")
    if new is None:
        return effects
    old = resource.get("ComputeQuotaConfig") or {}
    if "ComputeQuotaResources" in new:
        before, after = _amounts(old.get("ComputeQuotaResources")), _amounts(new["ComputeQuotaResources"])
        for instance_type, amounts in before.items():
            lowered = [
                f"{name} {value:g} → {after.get(instance_type, {}).get(name, 0):g}"
                for name, value in amounts.items()
                if after.get(instance_type, {}).get(name, 0) < value
            ]
            if lowered:
                effects.append(
                    (
                        Preemption.QUOTA_LOWERED,
                        f"team {team}'s {instance_type} allocation lowered ({', '.join(lowered)}): its tasks beyond the new allocation can be preempted",
                    )
                )
    old_sharing, new_sharing = old.get("ResourceSharingConfig") or {}, new.get("ResourceSharingConfig")
    if new_sharing is not None:
        was, now = old_sharing.get("Strategy", _STRATEGY_DEFAULT), new_sharing.get("Strategy", _STRATEGY_DEFAULT)
        if was != "DontLend" and now == "DontLend":
            effects.append(
                (
                    Preemption.LENDING_STOPPED,
                    f"team {team} no longer lends idle compute (DontLend): other teams' tasks on it can be preempted",
                )
            )
        if was == "LendAndBorrow" and now != "LendAndBorrow":
            effects.append(
                (Preemption.BORROWING_STOPPED, f"team {team} no longer borrows ({now}): its tasks on borrowed compute can be preempted")
            )
        elif now == "LendAndBorrow":
            limit_was, limit_now = old_sharing.get("BorrowLimit", _BORROW_DEFAULT), new_sharing.get("BorrowLimit", _BORROW_DEFAULT)
            if limit_now < limit_was:
                effects.append(
                    (
                        Preemption.BORROW_LIMIT_CUT,
                        f"team {team}'s BorrowLimit {limit_was} → {limit_now}: its tasks on borrowed compute beyond it can be preempted",
                    )
                )
    if old.get("PreemptTeamTasks", _PREEMPT_DEFAULT) == "Never" and new.get("PreemptTeamTasks", _PREEMPT_DEFAULT) == "LowerPriority":
        effects.append(
            (
                Preemption.TEAM_PREEMPTION_ON,
                f"team {team}'s lower-priority tasks are preempted by its own higher-priority tasks (PreemptTeamTasks LowerPriority)",
            )
        )
    return effects


def _scheduler_effects(new: dict[str, Any] | None, old: dict[str, Any]) -> list[Effect]:
    if new is None:
        return []
    effects: list[Effect] = []
    if "PriorityClasses" in new and not matches(new["PriorityClasses"], old.get("PriorityClasses")):
        effects.append(
            (
                Preemption.PRIORITIES_CHANGED,
                "tasks are queued by the new priority classes; running lower-priority tasks can be preempted by higher ones",
            )
        )
    if new.get("FairShare") == "Disabled" and old.get("FairShare", "Enabled") == "Enabled":
        effects.append((Preemption.FAIR_SHARE_OFF, "idle compute is borrowed first-come first-serve, no longer by FairShareWeight"))
    return effects


def _deletion_effects(spec: GovernanceSpec, resource: dict[str, Any]) -> list[Effect]:
    if spec.kind is QUOTA:
        team = (resource.get("ComputeQuotaTarget") or {}).get("TeamName", spec.name)
        return [(Preemption.QUOTA_DELETED, f"team {team} loses its allocation; its tasks beyond what others lend can be preempted")]
    return [(Preemption.POLICY_DELETED, "the cluster's priority classes and fair share go; tasks are scheduled without them")]
