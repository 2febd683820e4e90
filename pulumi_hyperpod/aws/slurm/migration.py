"""A legacy Slurm cluster (roles in provisioning_parameters.json) moved to API-driven Slurm
configuration (roles in each group's SlurmConfig, FSx in InstanceStorageConfigs): the plan says the
whole migration, as AWS's guide "Migrating to API-driven Slurm configuration" lays it out.

The guide's steps: 1 back up the current configuration; 2 upgrade the cluster software
(UpdateClusterSoftware); 3 map the legacy configuration to the API (every group's SlurmConfig —
the controller's NodeType too — and the FSx mounts); 4 remove provisioning_parameters.json from S3;
5 apply the configuration with UpdateCluster. The UpdateCluster is the plan's own step (the
member comparison is the planner's); this module adds what surrounds it, pure: the notes naming
each group's new role, the software step and the S3 object to remove, and a refusal when only
some groups get SlurmConfig (a cluster is one model or the other).
"""

from __future__ import annotations

import dataclasses
from typing import Any
from pulumi_hyperpod.plans import Refusal

from pulumi_hyperpod.aws.planner.codes import RefusalRule

GUIDE = 'AWS "Migrating to API-driven Slurm configuration"'


def is_migration(desired: Any, observed: Any) -> bool:
    """The cluster takes its roles from provisioning_parameters.json today (no group reports a
    SlurmConfig NodeType) and the spec gives SlurmConfig to some group."""
    if observed is None or getattr(desired, "orchestrator_kind", None) != "Slurm" or not observed.groups:
        return False
    if any(group.node_type for group in observed.groups):
        return False
    return any(group.slurm_config is not None for group in desired.instance_groups)


def migration_notes(desired: Any, observed: Any, steps: Any = ()) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """(notes, refusals as (rule, reason)) for a migration; empty when it is none. `steps`: the plan's
    steps — every group must be in its UpdateCluster, or the migration is refused as incomplete."""
    if not is_migration(desired, observed):
        return (), ()
    missing = [g.name for g in desired.instance_groups if g.slurm_config is None]
    if missing:
        return (), (
            (
                RefusalRule.SLURM_MIGRATION,
                (
                    f"moving to API-driven Slurm configuration ({GUIDE}) gives every group SlurmConfig, the controller's "
                    f"NodeType included; {', '.join(missing)} has none: render the cluster spec with "
                    "`hyperpod slurm render --slurm-config` or add SlurmConfig to every group"
                ),
            ),
        )
    sent = {
        g.get("InstanceGroupName")
        for step in steps
        if step.operation == "UpdateCluster"
        for g in (step.request.get("InstanceGroups") or ())
        if isinstance(g, dict) and "SlurmConfig" in g
    }
    left_out = [f"{g.name} (NodeType {g.slurm_config.node_type})" for g in desired.instance_groups if g.name not in sent]
    if left_out:
        return (), (
            (
                RefusalRule.SLURM_MIGRATION,
                (
                    f"moving to API-driven Slurm configuration ({GUIDE}) gives every group its SlurmConfig in the update; "
                    f"this plan's UpdateCluster leaves out {', '.join(left_out)}, which would be left without its role: "
                    "not applied"
                ),
            ),
        )
    roles = ", ".join(
        f"{g.name} → {g.slurm_config.node_type}"
        + (f" [{', '.join(g.slurm_config.partition_names)}]" if g.slurm_config.partition_names else "")
        for g in desired.instance_groups
    )
    objects = sorted({_parameters_object(g) for g in observed.groups} - {None})
    groups = ", ".join(g.name for g in observed.groups)
    notes = (
        f"migration to API-driven Slurm configuration ({GUIDE}): the UpdateCluster gives every group its SlurmConfig — {roles}",
        f"migration step before applying: back up provisioning_parameters.json and slurm.conf, then upgrade the "
        f"cluster software: UpdateClusterSoftware on every group ({groups}), waited until the cluster is InService "
        "again (the guide's step 2: API-driven configuration needs the current platform software)",
        "migration step before applying: remove provisioning_parameters.json from S3"
        + (f" ({', '.join(objects)})" if objects else " (the groups' lifecycle bundle)")
        + " — the guide's step 4: with it in place the cluster keeps reading its roles from the file",
    )
    return notes, ()


def _parameters_object(group: Any) -> str | None:
    uri = ((getattr(group, "described", None) or {}).get("LifeCycleConfig") or {}).get("SourceS3Uri")
    return f"{uri.rstrip('/')}/provisioning_parameters.json" if isinstance(uri, str) and uri else None


def with_migration(the_plan: Any, desired: Any, observed: Any) -> Any:
    """The plan with the migration's notes (and its refusal, if only some groups are migrated). Only an
    update migrates: a replacement creates the cluster anew, API-driven from the start."""
    if the_plan.action in ("create", "replace", "delete"):
        return the_plan
    notes, refusals = migration_notes(desired, observed, the_plan.steps)
    if not notes and not refusals:
        return the_plan

    the_plan = dataclasses.replace(the_plan, notes=the_plan.notes + notes)
    return the_plan.refuse(*(Refusal(rule, reason) for rule, reason in refusals)) if refusals else the_plan
