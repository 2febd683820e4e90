"""A preview of a stack with no change (a fresh provider process: check, then diff against the
live cluster) imports only what that preview runs (issue 30): not the checks a plan that adds
instances makes, not the rendering of a plan nobody is shown, not apply, saved plans or rare
sections. Checked by `sys.modules` in a fresh process, never by timing.

`NOT_IN_NO_CHANGE_PREVIEW` is the list: a module that must stay out of such a preview is one more
line in it."""

from __future__ import annotations

import json


from tests.support.fresh import run_fresh
from .conftest import settled_world, slurm_spec

NOT_IN_NO_CHANGE_PREVIEW = (
    "pulumi_hyperpod.aws.preflight.quotas",  # service quotas: read only when a plan adds instances
    "pulumi_hyperpod.aws.preflight.consistency",  # lifecycle consistency: likewise
    "pulumi_hyperpod.plans.findings",  # the rows those checks give
    "difflib",  # a hint in an error message
    "pulumi_hyperpod.plans.render",  # a plan with nothing to do is not shown
    "rich",
    "pulumi_hyperpod.aws.apply.executor",
    "pulumi_hyperpod.aws.saved",
    "pulumi_hyperpod.core.planfile",
    "pulumi_hyperpod.aws.cost.metering",
    "pulumi_hyperpod.aws.slurm.migration",
    "pulumi_hyperpod.aws.slurm.section",
    "deepdiff",
    "click",
    "pydantic",  # the spec, the policy and the simulator's settled world are read without their models
    "botocore.session",  # the simulator's reads go through its direct client (sim/aws/direct.py)
    "botocore.client",
    "boto3",
    "pulumi_hyperpod.aws.slurm.roles",  # every group states its SlurmConfig.NodeType: no lifecycle bundle to read roles from
    "pulumi_hyperpod.aws.planner.repair",  # no node named to repair, none in Failure
    "pulumi_hyperpod.aws.planner.canary",  # no canary asked for
    "pulumi_hyperpod.aws.planner.victims",  # nothing removed: no victims to choose
    "pulumi_hyperpod.aws.planner.workload_order",
    "pulumi_hyperpod.aws.planner.expectation",  # what apply expects before each later call
    "pulumi_hyperpod.sim.aws.s3",  # the simulator's S3: lifecycle bundles, not read here
    "regex",  # the model's patterns run on `re` for printable-ASCII values (aws/modelpatterns.py)
)

PREVIEW = """
import json, sys
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.provider import register_simulator
from pulumi_hyperpod.provider.provider import ClusterProvider
path, props, watched = json.loads(sys.stdin.read())
register_simulator("world", Simulator(path))
provider = ClusterProvider(simulator="world")
checked = provider.check(props, props)
result = provider.diff("arn", checked.inputs, checked.inputs)
print(json.dumps({"changes": result.changes, "failures": len(checked.failures), "loaded": [m for m in watched if m in sys.modules]}))
"""


def test_a_no_change_preview_imports_none_of_what_it_does_not_run(tmp_path):
    path = tmp_path / "world.sqlite"
    settled_world(path, workers=2)
    props = {"spec": slurm_spec(workers=2), "backend": "fake"}
    result = json.loads(run_fresh(PREVIEW, json.dumps([str(path), props, NOT_IN_NO_CHANGE_PREVIEW]), cwd=tmp_path))
    assert result["changes"] is False and result["failures"] == 0  # the preview this test is about
    assert result["loaded"] == []


def test_a_preview_that_adds_instances_still_runs_the_checks_it_needs(tmp_path):
    """The other side: the checks left out above load when their plan needs them."""
    path = tmp_path / "world.sqlite"
    settled_world(path, workers=1)
    props = {"spec": slurm_spec(workers=3), "backend": "fake"}
    result = json.loads(run_fresh(PREVIEW, json.dumps([str(path), props, NOT_IN_NO_CHANGE_PREVIEW]), cwd=tmp_path))
    assert result["changes"] is True
    assert {"pulumi_hyperpod.aws.preflight.quotas", "pulumi_hyperpod.aws.preflight.consistency", "pulumi_hyperpod.plans.findings"} <= set(
        result["loaded"]
    )
