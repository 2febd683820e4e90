"""Server-side request validation: botocore's model rules, then the service's cross-field rules.

botocore only checks types and required members client-side; like the real service, the
simulator checks patterns, ranges and enums (`servicemodel.violations`, built on botocore's own
ParamValidator) and the documented cross-field rules, and answers ValidationException naming each
field path and rule. The cross-field rules are the simulator's own (`service_rules.py`, written from
the service's documentation, importing nothing of the spec's or the planner's): an independent
witness, compared with the spec's over the bad-input corpus and generated requests by
tests/input/test_one_rule_source.py. What is left here needs the simulated world: the cluster as it
is (update rules) and the lifecycle bundle (legacy roles).
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from collections.abc import Iterable

from pulumi_hyperpod.aws import members
from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.sim.aws import service_rules
from pulumi_hyperpod.sim.aws.errors import ValidationException
from pulumi_hyperpod.sim.aws.model import COMPUTE, CONTROLLER, LOGIN, Cluster

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws.scenario import Scenario

NO_GROUPS, SINGLE_CONTROLLER = service_rules.NO_GROUPS, service_rules.SINGLE_CONTROLLER


def check_model(operation: str, params: dict) -> None:
    problems = servicemodel.violations(operation, params)
    if problems:
        raise ValidationException.from_violations(problems)


def raise_if(problems: Iterable[Violation]) -> None:
    problems = list(problems)
    if problems:
        raise ValidationException.from_violations(problems)


def orchestrator_kind(orchestrator: dict | None, path: str = "Orchestrator") -> str:
    """ "Slurm" (also when absent) or "Eks"; exactly one may be given."""
    raise_if(service_rules.orchestrator_problems(orchestrator, path))
    return service_rules.kind_of(orchestrator)


def group_rules(
    groups: list[dict],
    *,
    continuous: bool,
    orchestrator: str,
    path: str = "InstanceGroups",
) -> list[Violation]:
    """Rules for each group of a CreateCluster/UpdateCluster request (`service_rules.GROUP_CHECKS`)."""
    return service_rules.group_problems(groups, service_rules.Shape(orchestrator, continuous), path)


def slurm_topology_rules(node_types: list[str | None], path: str = "InstanceGroups") -> list[Violation]:
    """Exactly one Controller group and at most one Login group among the groups whose role is known."""
    return service_rules.topology_problems(node_types, path)


def slurm_strategy_rules(orchestrator: dict | None, continuous: bool) -> list[Violation]:
    return service_rules.slurm_settings_problems(orchestrator, continuous)


def group_limit_rules(count: int) -> list[Violation]:
    maximum = servicemodel.limit("CreateClusterRequest", "InstanceGroups")
    if count > maximum:
        return [Violation("InstanceGroups", f"a cluster can have at most {maximum} instance groups; this request would make {count}")]
    return []


def legacy_roles(scenario: Scenario, groups: list[dict]) -> dict[str, tuple[str | None, list[str]]]:
    """Roles for Slurm groups without SlurmConfig, from provisioning_parameters.json (seed 004).

    The scenario maps a lifecycle SourceS3Uri to that file's content. Without one nothing the
    cluster states names a role (the service reads neither group order nor names), so every role
    is unknown (None): no group is protected as the controller, none waits for one, none is in a
    partition. Guessing would be worse than not knowing: awsome-distributed-training writes the
    login group first, and a guessed first-group controller protects the login node instead.
    """
    params = None
    for group in groups:
        params = scenario.provisioning_parameters_for((group.get("LifeCycleConfig") or {}).get("SourceS3Uri"))
        if params:
            break
    names = [group["InstanceGroupName"] for group in groups]
    if params is None:
        return {name: (None, []) for name in names}
    roles: dict[str, tuple[str | None, list[str]]] = {}
    workers = {worker.instance_group_name: worker.partition_name for worker in params.worker_groups}
    for name in names:
        if name == params.controller_group:
            roles[name] = (CONTROLLER, [])
        elif name == params.login_group:
            roles[name] = (LOGIN, [])
        else:
            roles[name] = (COMPUTE, [workers.get(name, name)])
    if params.controller_group not in names:
        raise ValidationException.field(
            "InstanceGroups",
            f"provisioning_parameters.json names controller_group {params.controller_group!r}, which is not an instance group",
        )
    return roles


def update_rules(cluster: Cluster, params: dict, continuous: bool) -> list[Violation]:
    """What UpdateCluster cannot change in place."""
    problems = []
    if "VpcConfig" in params:
        problems.append(Violation("VpcConfig", "cannot be changed on an existing cluster; create a new cluster"))
    orchestrator = params.get("Orchestrator")
    if orchestrator is not None:
        kind = orchestrator_kind(orchestrator)
        if kind != cluster.orchestrator:
            problems.append(
                Violation(
                    "Orchestrator", f"cannot change the orchestrator from {cluster.orchestrator} to {kind} in place; create a new cluster"
                )
            )
        elif kind == "Eks":
            before = (cluster.config.get("Orchestrator") or {}).get("Eks", {}).get("ClusterArn")
            if orchestrator["Eks"].get("ClusterArn") != before:
                problems.append(Violation("Orchestrator.Eks.ClusterArn", "cannot be changed in place"))
    problems += slurm_strategy_rules(orchestrator, continuous)
    to_delete = params.get("InstanceGroupsToDelete") or []
    updated = {group["InstanceGroupName"] for group in params.get("InstanceGroups") or []}
    for index, name in enumerate(to_delete):
        where = f"InstanceGroupsToDelete[{index}]"
        group = cluster.groups.get(name)
        if group is None or group.deleting:
            problems.append(Violation(where, f"instance group {name!r} does not exist in cluster {cluster.name}"))
        elif group.role == CONTROLLER:
            problems.append(Violation(where, f"{name!r} is the controller group of this Slurm cluster and cannot be deleted"))
        if name in updated:
            problems.append(Violation(where, f"{name!r} is also listed in InstanceGroups"))
    for index, group in enumerate(params.get("InstanceGroups") or []):
        existing = cluster.groups.get(group["InstanceGroupName"])
        if existing is None:
            continue
        where = f"InstanceGroups[{index}]"
        if existing.deleting:
            problems.append(Violation(where, f"instance group {existing.name!r} is being deleted"))
        if ("InstanceType" in group) != (not existing.flexible) or (
            "InstanceType" in group and group["InstanceType"] != existing.spec.get("InstanceType")
        ):
            was = existing.spec.get("InstanceType") or "InstanceRequirements " + str(
                existing.spec.get("InstanceRequirements", {}).get("InstanceTypes")
            )
            problems.append(
                Violation(
                    f"{where}.InstanceType",
                    f"the instance type of existing group "
                    f"{existing.name!r} cannot be changed: to update an existing instance group, "
                    f"specify the instance type you initially assigned to the group ({was}); "
                    "for another type, add a new instance group",
                )
            )
        problems += create_only_rules(existing.name, existing.spec, group, where)
        before = (existing.spec.get("SlurmConfig") or {}).get("NodeType")
        after = (group.get("SlurmConfig") or {}).get("NodeType")
        if before and after and before != after:
            problems.append(Violation(f"{where}.SlurmConfig.NodeType", f"cannot change from {before} to {after}"))
    return problems


# Create-only group members the member table lists ("new group name"), beyond InstanceType and the
# Slurm NodeType, which have their own messages above.
_CREATE_ONLY = tuple(
    m for m in members.rows("group") if m.change == "new group name" and m.path not in ("InstanceType", "SlurmConfig.NodeType")
)


def create_only_rules(name: str, before: dict, entry: dict, where: str) -> list[Violation]:
    """A create-only member given with another value than the group was created with (CloudFormation's
    createOnlyProperties for AWS::SageMaker::Cluster); left out, the group keeps its value."""
    problems = []
    for member in _CREATE_ONLY:
        wanted = _get(entry, member.parts)
        if wanted is not None and wanted != _get(before, member.parts):
            problems.append(
                Violation(
                    f"{where}.{member.path}",
                    f"cannot be changed on existing instance group {name!r} "
                    "(it is set when the group is created); add a new instance group instead",
                )
            )
    return problems


def _get(data: dict, parts: tuple[str, ...]):
    for part in parts:
        data = data.get(part) if isinstance(data, dict) else None
    return data


def autoscaling_update_rules(cluster: Cluster, params: dict) -> list[Violation]:
    """The autoscaling rules on the cluster as the update leaves it, and ClusterRole fixed while
    autoscaling is on (AWS, HyperPod autoscaling with Karpenter)."""
    after = {**cluster.config, **{k: v for k, v in params.items() if k in ("AutoScaling", "ClusterRole", "NodeRecovery")}}
    after["NodeProvisioningMode"] = "Continuous" if cluster.continuous else None
    problems = service_rules.autoscaling_problems(after)
    scaling_on = (cluster.config.get("AutoScaling") or {}).get("Mode") == "Enable"
    role = params.get("ClusterRole")
    if scaling_on and role is not None and cluster.config.get("ClusterRole") not in (None, role):
        problems.append(Violation("ClusterRole", "cannot change while AutoScaling Mode is Enable; disable autoscaling first"))
    return problems
