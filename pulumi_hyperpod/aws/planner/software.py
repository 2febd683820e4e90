"""Software rollouts: a group's ImageId or ImageReleaseVersion changing becomes an UpdateClusterSoftware step.

UpdateCluster records a new image only for nodes launched from then on; the running nodes move to it
through UpdateClusterSoftware, which patches them in rolling batches on EKS (DeploymentConfig:
MaximumBatchSize as a count or a percentage of the nodes being updated, WaitIntervalInSeconds between
batches, AutoRollbackConfiguration alarms). On Slurm there are no batches: every node is patched at
once (AWS, "Update the SageMaker HyperPod platform software of a cluster": rolling updates are for
EKS clusters), so the plan says so and sends no DeploymentConfig.

The batches shown are the ones the service runs: the Running nodes of the groups the call names,
oldest launch first (launch time, then group and instance id), `MaximumBatchSize` at a time.

A group whose spec pins no release asks for none: a newer HyperPod AMI release (ImageVersionStatus
UpdateAvailable, SecurityUpdateRequired, EndOfLife) is a note, not a step. `ImageId: default` is the
HyperPod public AMI: a rollout only for a group on a custom AMI.

Guards (a refused plan lists no steps): a protected node is never taken down; a Slurm controller only
with policy.allow_controller_disruption (a group of unknown role could be it); Slurm Login nodes only
with policy.allow_login_disruption; no batch may take down more than policy.max_unavailable_fraction
of a group's nodes — neither the update's (MaximumBatchSize) nor a rollback's (RollbackMaximumBatchSize,
when given). Pure: no I/O.
"""

from __future__ import annotations

import math
from typing import Any
from collections.abc import Callable

from pulumi_hyperpod.aws.planner.policy import aws_policy
from pulumi_hyperpod.aws.observe import ClusterState, GroupState, NodeState
from pulumi_hyperpod.aws.spec import ClusterSpec, InstanceGroupSpec
from pulumi_hyperpod.plans.model import Refusal, Step
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.aws.planner.codes import RefusalRule, StepReason

# group member in the spec → how DescribeCluster reports the image the group's nodes run now
IMAGE_MEMBERS = {"ImageId": "CurrentImageId", "ImageReleaseVersion": "CurrentImageReleaseVersion"}
ROLLOUT = " (UpdateClusterSoftware)"  # how a group's change column names a member a rollout moves
DEFAULT_IMAGE = "default"  # the model's ImageId pattern: an AMI id or "default" (the HyperPod public AMI)


class Rollouts:
    """What the planner folds in: steps, refusals, notes, and the groups whose image the steps move
    (their UpdateCluster entry keeps the image they run until the rollout moves them). A plain class:
    the planner's working record, never compared nor shown, and the methods a dataclass generates
    are compiled when the module loads, in every preview."""

    __slots__ = ("groups", "notes", "refusals", "steps")

    def __init__(self) -> None:
        self.steps: list[Step] = []
        self.refusals: list[Refusal] = []
        self.notes: list[str] = []
        self.groups: set[str] = set()


# the model's ClusterImageVersionStatus values of a group behind the latest HyperPod AMI release
OUTDATED = frozenset({"UpdateAvailable", "SecurityUpdateRequired", "EndOfLife"})


def on_public_image(described: dict[str, Any]) -> bool:
    """The group runs a HyperPod public AMI — what `ImageId: default` asks for: it reports no
    CurrentImageId, or the service rates its image against the HyperPod releases (ImageVersionStatus:
    "whether the instance group is running the latest image version", which a custom AMI has not).
    Unverified: whether AWS reports the public AMI's id as CurrentImageId (the simulator does not)."""
    current = described.get("CurrentImageId")
    return current in (None, DEFAULT_IMAGE) or described.get("ImageVersionStatus") is not None


def image_changes(want: InstanceGroupSpec, have: GroupState) -> dict[str, tuple[str | None, str]]:
    """member → (running now, wanted) for the image members the spec pins and the group does not run.
    A spec without ImageReleaseVersion asks for no release: a newer one is a note (`release_notes`),
    never a rollout. `ImageId: default` is the HyperPod public AMI (the model: "Use the default latest
    system image"): met by a group on it, a rollout for a group on a custom AMI."""
    api = want.to_api()
    changes = {}
    for member, reported in IMAGE_MEMBERS.items():
        wanted = api.get(member)
        if wanted is None:
            continue
        current = have.described.get(reported)
        if member == "ImageId" and wanted == DEFAULT_IMAGE and on_public_image(have.described):
            continue
        if current != wanted:
            changes[member] = (current, wanted)
    return changes


def release_note(want: InstanceGroupSpec, have: GroupState) -> str | None:
    """A group whose spec pins no release, behind the latest one: said, not planned."""
    api = want.to_api()
    status = have.described.get("ImageVersionStatus")
    if "ImageReleaseVersion" in api or status not in OUTDATED or api.get("ImageId") not in (None, DEFAULT_IMAGE):
        return None
    if "AutoPatchConfig" in api or "ScheduledUpdateConfig" in api:
        return f"{want.name}: a newer HyperPod AMI release is out (ImageVersionStatus {status}); the service patches the group on its own schedule"
    running = have.described.get("CurrentImageReleaseVersion")
    return (
        f"{want.name}: a newer HyperPod AMI release is out (ImageVersionStatus {status}"
        f"{f', the group runs {running}' if running else ''}); the spec pins no ImageReleaseVersion, so this plan "
        "asks for nothing: set ImageReleaseVersion to roll the group to a release (UpdateClusterSoftware)"
    )


def runs_image(described: dict[str, Any], image_id: str | None, release: str | None) -> list[str]:
    """What a group does not run of the image an UpdateClusterSoftware asked for, in words."""
    short = []
    if image_id == DEFAULT_IMAGE:
        if not on_public_image(described):
            short.append(f"ImageId is {described.get('CurrentImageId')}, not the HyperPod public AMI (default)")
    elif image_id and described.get("CurrentImageId") != image_id:
        short.append(f"ImageId is {described.get('CurrentImageId')}, not {image_id}")
    if release and described.get("CurrentImageReleaseVersion") != release:
        short.append(f"ImageReleaseVersion is {described.get('CurrentImageReleaseVersion')}, not {release}")
    return short


def rollout_labels(want: InstanceGroupSpec, have: GroupState) -> list[str]:
    """The group's image members a rollout moves, as the plan's group table names them."""
    return [member + ROLLOUT for member in image_changes(want, have)]


def rollout_order(nodes: tuple[NodeState, ...] | list[NodeState]) -> list[NodeState]:
    """The Running nodes in the order UpdateClusterSoftware patches them: oldest launch first."""
    running = [n for n in nodes if n.status == "Running" and n.instance_id]
    return sorted(running, key=lambda n: (n.launch_time.timestamp() if n.launch_time else 0.0, n.group, n.instance_id or ""))


def batch_size(policy: dict[str, Any] | None, total: int) -> int:
    """MaximumBatchSize as the service applies it: a count, or a percentage of the nodes being updated."""
    if not policy:
        return max(total, 1)
    if policy["Type"] == "INSTANCE_COUNT":
        return max(int(policy["Value"]), 1)
    return max(math.ceil(total * min(int(policy["Value"]), 100) / 100), 1)


def plan_rollouts(
    desired: ClusterSpec, observed: ClusterState, policy: Policy, role: Callable[[str], str | None], leaving: frozenset[str] = frozenset()
) -> Rollouts:
    """`leaving`: the nodes the plan's earlier steps remove — gone when the rollout starts, so not in its
    batches (the service patches the nodes Running then)."""
    result = Rollouts()
    calls: dict[str | None, list[tuple[InstanceGroupSpec, dict[str, tuple[str | None, str]]]]] = {}
    for want in desired.instance_groups:
        have = observed.group(want.name)
        if have is None or have.status == "Deleting":
            continue  # a new group is built with its image
        note = release_note(want, have)
        if note:
            result.notes.append(note)
        changes = image_changes(want, have)
        if changes and "SystemUpdating" in (have.status, observed.status):
            result.notes.append(
                f"{want.name}: a software update is running ({observed.status}); its image is compared "
                "again once it ends, not rolled out a second time"
            )
            continue
        if changes:
            image = changes["ImageId"][1] if "ImageId" in changes else None
            calls.setdefault(image, []).append((want, changes))
            result.groups.add(want.name)
    for image, groups in calls.items():
        _plan_call(desired, observed, policy, role, image, groups, result, leaving)
    return result


def _deployment(policy: Policy, groups: list[InstanceGroupSpec]) -> tuple[dict[str, Any] | None, str]:
    hyperpod = aws_policy(policy)
    if hyperpod.software_deployment is not None:
        return hyperpod.software_deployment, "policy.software_deployment"
    configs = [((g.scheduled_update_config or {}).get("DeploymentConfig"), g.name) for g in groups]
    given = [c for c, _ in configs if c]
    if given and all(c == given[0] for c, _ in configs):
        return given[0], f"ScheduledUpdateConfig.DeploymentConfig of {', '.join(n for _, n in configs)}"
    return None, "none given: the service patches every node at once"


def _plan_call(desired, observed, policy, role, image, groups, result: Rollouts, leaving: frozenset[str] = frozenset()) -> None:
    names = [want.name for want, _ in groups]
    request: dict[str, Any] = {"ClusterName": desired.name, "InstanceGroups": []}
    reasons = []
    for want, changes in groups:
        entry: dict[str, Any] = {"InstanceGroupName": want.name}
        if "ImageReleaseVersion" in changes:
            entry["ImageReleaseVersion"] = changes["ImageReleaseVersion"][1]
        request["InstanceGroups"].append(entry)
        moves = ", ".join(f"{member} {before or '(default)'} → {after}" for member, (before, after) in changes.items())
        reasons.append(f"{want.name}: {moves}: the running nodes are patched in place (UpdateClusterSoftware)")
    if image is not None:
        request["ImageId"] = image
    nodes = rollout_order([n for name in names for n in observed.nodes_of(name) if n.key not in leaving])
    slurm = desired.orchestrator_kind == "Slurm"
    deployment, source = _deployment(policy, [want for want, _ in groups])
    if slurm:
        batches = [nodes] if nodes else []
        if deployment is not None:
            reasons.append(f"Slurm: no rolling batches (DeploymentConfig from {source} is not sent)")
        reasons.append(f"all nodes at once: {len(nodes)} node(s) SystemUpdating together" + _controller_place(nodes, role))
    else:
        if deployment is not None:
            request["DeploymentConfig"] = deployment
        size = batch_size((deployment or {}).get("RollingUpdatePolicy", {}).get("MaximumBatchSize"), len(nodes))
        batches = [nodes[i : i + size] for i in range(0, len(nodes), size)]
        wait = int((deployment or {}).get("WaitIntervalInSeconds") or 0)
        alarms = [a["AlarmName"] for a in (deployment or {}).get("AutoRollbackConfiguration") or ()]
        if nodes:
            reasons.append(
                f"{len(batches)} batch(es) of at most {size} node(s) (DeploymentConfig: {source})"
                + (
                    f", {wait} s between batches (≥ {wait * max(len(batches) - 1, 0)} s of waits in all)"
                    if wait and len(batches) > 1
                    else ""
                )
                + (f"; rolled back if alarm {', '.join(alarms)} fires" if alarms else "")
            )
        for number, batch in enumerate(batches, 1):
            reasons.append(f"batch {number}: " + ", ".join(f"{n.instance_id} ({n.group})" for n in batch))
    if not nodes:
        reasons.append("no Running node to patch: nodes launched from now on get the new image")
    others = [n.key for name in names for n in observed.nodes_of(name) if n.status not in ("Running", "ShuttingDown")]
    if others:
        result.notes.append(
            f"{len(others)} node(s) of {', '.join(names)} not Running ({', '.join(others[:5])}"
            f"{' …' if len(others) > 5 else ''}) are not in the rollout: the service patches Running nodes only"
        )
    rollback = _rollback_batches(deployment, nodes) if not slurm else []
    refusals = _guards(observed, policy, role, names, batches, slurm, rollback)
    if refusals:
        result.refusals.extend(refusals)
        return
    result.steps.append(
        Step(
            "UpdateClusterSoftware",
            request,
            tuple(reasons),
            batches=tuple(tuple(n.instance_id for n in batch) for batch in batches),
            kind="update-software",
            codes=(StepReason.IMAGE_DIFFERS,),
        )
    )


def _controller_place(nodes: list[NodeState], role) -> str:
    controllers = [n.instance_id for n in nodes if role(n.group) == "Controller"]
    return f", the controller {', '.join(controllers)} among them (Slurm is down until it is back)" if controllers else ""


def _rollback_batches(deployment: dict[str, Any] | None, nodes: list[NodeState]) -> list[list[NodeState]]:
    """The batches a rollback would take the nodes down in (RollingUpdatePolicy.RollbackMaximumBatchSize,
    a count or a percentage, as MaximumBatchSize); none when it is not given (the service then rolls
    back as it updates: MaximumBatchSize's batches, checked already)."""
    given = ((deployment or {}).get("RollingUpdatePolicy") or {}).get("RollbackMaximumBatchSize")
    if not given or not nodes:
        return []
    size = batch_size(given, len(nodes))
    return [nodes[i : i + size] for i in range(0, len(nodes), size)]


def _guards(
    observed: ClusterState,
    policy: Policy,
    role,
    names: list[str],
    batches: list[list[NodeState]],
    slurm: bool,
    rollback: list[list[NodeState]] | None = None,
) -> list[Refusal]:
    hyperpod = aws_policy(policy)
    refusals = []
    nodes = [n for batch in batches for n in batch]
    guarded = policy.protected_node_ids
    protected = sorted(n.instance_id for n in nodes if n.instance_id in guarded or (n.logical_id or "") in guarded)
    if protected:
        refusals.append(
            Refusal(
                RefusalRule.PROTECTED_NODE,
                f"the software rollout would take protected node(s) {', '.join(protected)} "
                "down; a protected node is never taken down by a plan (take it out of "
                "policy.protected_node_ids / --protect first)",
            )
        )
    if slurm:
        refusals.extend(_controller_refusals(policy, role, nodes))
    login = sorted({n.group for n in nodes if role(n.group) == "Login"})
    if login and not hyperpod.allow_login_disruption:
        refusals.append(
            Refusal(
                RefusalRule.LOGIN_DISRUPTION,
                f"the software rollout takes the Login nodes of {', '.join(login)} down"
                f"{' (Slurm: all nodes at once)' if slurm else ''}; set "
                "policy.allow_login_disruption to allow it",
                login[0],
            )
        )
    for name in names:
        have = observed.group(name)
        size = len([n for n in observed.nodes_of(name) if n.status not in ("ShuttingDown",)]) or (have.target_count if have else 0)
        # the update's batches, and a rollback's (RollbackMaximumBatchSize): either takes nodes down at once
        for member, taken in (("MaximumBatchSize", batches), ("RollbackMaximumBatchSize", rollback or [])):
            worst = max((sum(1 for n in batch if n.group == name) for batch in taken), default=0)
            if not (size and worst / size > hyperpod.max_unavailable_fraction):
                continue
            if slurm:
                how = "the software rollout takes all nodes at once (Slurm has no rolling batches)"
            elif member == "MaximumBatchSize":
                how = f"the software rollout takes {worst} of its {size} nodes in one batch"
            else:
                how = f"a rollback of the software rollout (RollbackMaximumBatchSize) takes {worst} of its {size} nodes in one batch"
            refusals.append(
                Refusal(
                    RefusalRule.MAX_UNAVAILABLE_FRACTION,
                    f"{name}: {how} ({worst / size:.0%}) down, more than policy.max_unavailable_fraction "
                    f"({hyperpod.max_unavailable_fraction:.0%}); set a smaller {member} in policy.software_deployment",
                    name,
                )
            )
            break  # one refusal per group: the first member over the share
    return refusals


def _controller_refusals(policy: Policy, role, nodes: list[NodeState]) -> list[Refusal]:
    """A rollout that takes a Slurm controller down stops every job's scheduling until it is back:
    only with explicit consent. A group whose role nothing states could be the controller."""
    if aws_policy(policy).allow_controller_disruption:
        return []
    controllers = sorted({n.group for n in nodes if role(n.group) == "Controller"})
    unknown = sorted({n.group for n in nodes if role(n.group) is None})
    if controllers:
        what = f"the Slurm controller ({', '.join(controllers)})"
    elif unknown:
        what = f"nodes of {', '.join(unknown)}, whose Slurm role is not known: the controller could be among them"
    else:
        return []
    return [
        Refusal(
            RefusalRule.CONTROLLER_DISRUPTION,
            f"the software rollout takes {what} down (Slurm schedules nothing until it is back); "
            "set policy.allow_controller_disruption to allow it",
            (controllers or unknown)[0],
        )
    ]


def hold_images(request: dict[str, Any], observed: ClusterState, groups: set[str]) -> None:
    """An UpdateCluster entry of a group whose image a rollout moves keeps the image the group runs:
    the rollout, not UpdateCluster, moves it (and UpdateCluster would set it for new nodes first)."""
    for entry in request.get("InstanceGroups") or ():
        have = observed.group(entry["InstanceGroupName"])
        if entry["InstanceGroupName"] not in groups or have is None:
            continue
        for member, reported in IMAGE_MEMBERS.items():
            entry.pop(member, None)
            if have.described.get(reported) is not None:
                entry[member] = have.described[reported]
