"""Issue 23 item 7: seed 004's legacy cluster (roles in provisioning_parameters.json) given SlurmConfig
is planned as the whole migration of AWS's "Migrating to API-driven Slurm configuration": every
group's new role said (the controller's too), the software step and the removal of
provisioning_parameters.json from S3 named; a migration of only some groups — in the spec, or in
the plan's UpdateCluster — is refused."""

from __future__ import annotations

import copy
import dataclasses
import json

from pulumi_hyperpod import pipeline
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.observe import observe
from pulumi_hyperpod.plans.model import Step
from pulumi_hyperpod.aws.slurm.migration import with_migration
from pulumi_hyperpod.aws.spec import ClusterSpec
from tests.support.cli import SPECS

SEED004 = json.loads((SPECS / "seed004-initial.json").read_text())
NAME = SEED004["ClusterName"]
ROLES = {"leo-stg-head-ig": "Controller", "leo-stg-compute-ig": "Compute"}


def running_legacy_cluster():
    client = connect("fake", simulator=Simulator(seed=4))
    client.create_cluster(**copy.deepcopy(SEED004))
    return observe(client, NAME)


def migrated(groups=("leo-stg-head-ig", "leo-stg-compute-ig")) -> ClusterSpec:
    data = copy.deepcopy(SEED004)
    for group in data["InstanceGroups"]:
        if group["InstanceGroupName"] in groups:
            node_type = ROLES[group["InstanceGroupName"]]
            group["SlurmConfig"] = {"NodeType": node_type, **({"PartitionNames": ["dev"]} if node_type == "Compute" else {})}
    return ClusterSpec.from_dict(data)


def plan_of(desired, state=None):
    state = state or running_legacy_cluster()
    return pipeline.prepare(None, desired, observed=state, roles=ROLES, skip_preflight="offline test").plan


def test_a_whole_migration_is_noted_with_every_group_the_software_step_and_the_s3_object():
    desired, state = migrated(), running_legacy_cluster()
    planned = plan_of(ClusterSpec.from_dict(copy.deepcopy(SEED004)), state)  # a plan with no migration in it
    whole = dataclasses.replace(
        planned,
        steps=(
            Step(
                "UpdateCluster",
                {
                    "ClusterName": NAME,
                    "InstanceGroups": [
                        {"InstanceGroupName": g.name, "SlurmConfig": {"NodeType": g.slurm_config.node_type}}
                        for g in desired.instance_groups
                    ],
                },
                kind="update-cluster",
            ),
        ),
    )
    the_plan = with_migration(whole, desired, state)
    notes = " | ".join(the_plan.notes)
    assert "leo-stg-head-ig → Controller" in notes and "leo-stg-compute-ig → Compute [dev]" in notes
    assert "UpdateClusterSoftware on every group (leo-stg-head-ig, leo-stg-compute-ig)" in notes
    assert (
        "remove provisioning_parameters.json from S3 (s3://leo-stg-hyperpod-lifecycle-778c45ef/"
        "lifecycle-script-directory/src/provisioning_parameters.json)"
    ) in notes
    assert not the_plan.refusals


def test_an_update_that_leaves_a_group_out_is_refused_naming_it():
    """What today's planner sends (issue 23: only the compute group) must not go out as a migration."""
    desired, state = migrated(), running_legacy_cluster()
    the_plan = plan_of(desired, state)
    planner_alone = pipeline.make_plan(desired, state, roles=ROLES)  # its steps (a refused plan keeps none)
    sent = {
        g["InstanceGroupName"]
        for s in planner_alone.steps
        if s.operation == "UpdateCluster"
        for g in s.request["InstanceGroups"]
        if "SlurmConfig" in g
    }
    refusals = [r for r in the_plan.refusals if r.rule == "slurm-migration"]
    if sent >= set(ROLES):  # the planner sends every group: the migration is whole
        assert not refusals and any("UpdateClusterSoftware" in n for n in the_plan.notes)
    else:
        [refusal] = refusals
        for name in set(ROLES) - sent:
            assert f"leaves out {name} (NodeType {ROLES[name]})" in refusal.reason


def test_a_migration_of_only_some_groups_is_refused_naming_the_rest():
    the_plan = plan_of(migrated(groups=("leo-stg-head-ig",)))
    [refusal] = [r for r in the_plan.refusals if r.rule == "slurm-migration"]
    assert "leo-stg-compute-ig has none" in refusal.reason and "--slurm-config" in refusal.reason


def test_no_migration_no_notes():
    the_plan = plan_of(ClusterSpec.from_dict(copy.deepcopy(SEED004)))
    assert not any("API-driven" in note for note in the_plan.notes)
    assert not any(r.rule == "slurm-migration" for r in the_plan.refusals)
