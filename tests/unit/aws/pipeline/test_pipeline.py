"""The one pipeline: plan() is pure (no prices, no environment), the layers point one way, and the
stages compose plan → cost → preflight → (save | apply) for every front end."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support.paths import REPO

from pulumi_hyperpod.plans import steps

from pulumi_hyperpod import Policy, apply, connect, observe, pipeline
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.apply import ConcurrentChange, PlanStale
from pulumi_hyperpod.aws.cost import PRICES_ENV
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.plans import Plan

from tests.support.factories import observed_from, slurm_spec
from tests.support.factories import ROLES, legacy_slurm


def test_plan_is_pure_it_reads_no_price_and_carries_no_cost(monkeypatch, tmp_path):
    monkeypatch.setenv(PRICES_ENV, str(tmp_path / "does-not-exist.yaml"))  # would fail if read
    p = plan(slurm_spec(workers=4), observed_from(slurm_spec(workers=2)))
    assert p.cost is None and p.preflight is None
    assert plan(slurm_spec(workers=4), observed_from(slurm_spec(workers=2))) == p


def test_the_plan_model_and_the_planner_do_not_import_cost_or_preflight():
    code = (
        "import sys; import pulumi_hyperpod.plans, pulumi_hyperpod.aws.planner.rules; "
        "print(sorted(m for m in sys.modules if m.startswith(('pulumi_hyperpod.aws.cost', 'pulumi_hyperpod.aws.preflight', 'rich'))))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "[]"


def test_make_plan_adds_the_cost_and_the_budget_guard():
    p = pipeline.make_plan(
        slurm_spec(workers=4), observed_from(slurm_spec(workers=2)), Policy(max_hourly_cost_increase=1), prices={"ml.p5.48xlarge": 50.0}
    )
    assert p.cost.group("worker-gpu-a").delta_per_hour == 100.0
    assert [r.rule for r in p.refusals] == ["max-hourly-cost-increase"] and p.steps == ()


def test_prepare_offline_from_a_snapshot_says_preflight_was_skipped():
    observed = observed_from(slurm_spec(workers=2))
    prepared = pipeline.prepare(None, slurm_spec(workers=3), observed=observed, skip_preflight="offline")
    assert prepared.observed is observed and prepared.plan.preflight.skipped == "offline"
    assert prepared.plan.cost is not None


def test_roles_flow_from_the_pipeline_into_the_plan_and_the_saved_file(tmp_path):
    observed = observed_from(legacy_slurm(2))
    refused = pipeline.prepare(None, legacy_slurm(0), observed=observed, skip_preflight="offline")
    assert [r.rule for r in refused.plan.refusals] == ["slurm-roles-unknown"]
    known = pipeline.prepare(None, legacy_slurm(0), observed=observed, roles=ROLES, skip_preflight="offline")
    assert not known.plan.refused
    pipeline.save(known, str(tmp_path / "p.json"))
    loaded = pipeline.load(str(tmp_path / "p.json"))
    assert loaded.context.role_map() == ROLES and loaded.plan == known.plan and loaded.policy == known.policy
    assert loaded.desired.to_api() == known.desired.to_api()


def test_plan_json_round_trip_keeps_every_section():
    p = pipeline.prepare(None, slurm_spec(workers=1), observed=observed_from(slurm_spec(workers=3)), skip_preflight="offline").plan
    data = json.loads(p.to_json())
    assert data["format"] == "hyperpod-plan/3"
    assert {"basis", "cost", "preflight", "observed_fingerprint", "calls", "steps", "groups"} <= set(data)
    assert {"identity", "state", "configuration", "groups", "nodes", "facts"} == set(data["basis"])  # neutral words (CHANGELOG /3)
    assert {fact["premise"] for fact in data["basis"]["facts"]} <= set(steps.PREMISES)
    assert all(step["kind"] in ("update-cluster", "remove-nodes", "drain") and step["codes"] for step in data["steps"])
    assert Plan.from_dict(data) == p
    for older in ("hyperpod-plan/1", "hyperpod-plan/2"):
        with pytest.raises(ValueError, match=f"{older}.*make the plan again"):
            Plan.from_dict({**data, "format": older})


def test_python_apply_refuses_a_stale_plan_by_default_and_names_the_change():
    """The issue's reproduction: planned 16 → 20, the cluster moved to 18 outside; apply used to add 4 more."""
    sim = Simulator(seed=5)
    client = connect(backend="fake", simulator=sim)
    virtual = {"sleep": sim.advance, "monotonic": lambda: sim.now().timestamp(), "poll_seconds": 60}
    apply(client, plan(slurm_spec(workers=16), None), wait="Target", timeout=7200, **virtual)
    stale = plan(slurm_spec(workers=20), observe(client, "my-training-cluster"))
    apply(client, plan(slurm_spec(workers=18), observe(client, "my-training-cluster")), wait="none", timeout=60)
    start = len(sim.calls)

    with pytest.raises(PlanStale, match="worker-gpu-a: TargetCount 16 → 18"):
        apply(client, stale, wait="none", timeout=60)

    assert [op for op, _ in sim.calls[start:] if not op.startswith(("Describe", "List"))] == []
    assert observe(client, "my-training-cluster").group("worker-gpu-a").target_count == 18
    # check_fresh=False skips the comparison up front; the add still collides on its ClientToken
    # (same starting counts, another request) and stops naming the change: never 22
    with pytest.raises(ConcurrentChange, match="TargetCount 16 → 18"):
        apply(client, stale, wait="none", timeout=60, check_fresh=False)
    assert observe(client, "my-training-cluster").group("worker-gpu-a").target_count == 18


def test_a_create_plan_is_stale_once_the_cluster_exists():
    sim = Simulator(seed=5)
    client = connect(backend="fake", simulator=sim)
    create = plan(slurm_spec(workers=1), None)
    apply(client, plan(slurm_spec(workers=1), None), wait="none", timeout=60)
    with pytest.raises(PlanStale, match="now exists"):
        apply(client, create, wait="none", timeout=60)


# ---- one direction (issue 38): core/cloud.prepare drives the cloud's stages; HyperPod's library API
# (aws/pipeline/__init__.py) sits on top of both and nothing below calls back into it


def test_no_stage_calls_back_into_the_library_api():
    from tests.support.imports import PACKAGE, imports_of, module_name

    front = ("cli", "provider", "native", "components")
    callers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = module_name(path)
        if module in ("", "aws.pipeline") or module.split(".")[0] in front:
            continue
        if any(
            name == "aws.pipeline" or name.startswith("aws.pipeline.") for name in imports_of(path)
        ):  # the library API: nothing below imports it
            callers.append(module)
    assert callers == []


def test_the_pipeline_runs_without_its_library_api(tmp_path):
    """The pipeline through the AWS cloud (what every front end runs: prepare, then the plan file
    saved and loaded) never loads aws/pipeline."""
    code = (
        "import sys\n"
        "from pulumi_hyperpod.core import cloud, planfile\n"
        "from pulumi_hyperpod.aws.spec import ClusterSpec\n"
        "from pulumi_hyperpod.plans.policy import Policy\n"
        "spec = ClusterSpec.from_file('examples/specs/seed004-initial.json')\n"
        "prepared = cloud.prepare(cloud.get('aws'), None, spec, Policy(), observed=None, skip_preflight='offline')\n"
        "assert prepared.plan.action == 'create' and prepared.plan.cost is not None\n"
        f"planfile.save(prepared, {str(tmp_path / 'p.json')!r})\n"
        f"assert planfile.load({str(tmp_path / 'p.json')!r}).plan == prepared.plan\n"
        "print('pulumi_hyperpod.aws.pipeline' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_one_prepared_plan_and_one_read_it_yourself_value(tmp_path):
    """The library API returns core/cloud.Prepared itself (no subclass), and every `observed`
    default of the pipeline is core/cloud.OBSERVE; None stays "no cluster"."""
    import inspect

    from pulumi_hyperpod.core import cloud
    from pulumi_hyperpod.provider.cloud_provider import CloudProvider

    assert pipeline.Prepared is cloud.Prepared and pipeline.OBSERVE is cloud.OBSERVE
    for function in (cloud.prepare, cloud.deletion, pipeline.prepare, pipeline.deletion):
        assert inspect.signature(function).parameters["observed"].default is cloud.OBSERVE, function
    # the provider says which it means (its module stays out of the core until check runs): no value of its own
    assert inspect.signature(CloudProvider._prepare).parameters["observed"].default is inspect.Parameter.empty
    prepared = pipeline.prepare(None, slurm_spec(workers=3), observed=None, skip_preflight="offline")
    pipeline.save(prepared, str(tmp_path / "p.json"))
    for made in (prepared, pipeline.load(str(tmp_path / "p.json")), pipeline.deletion(None, "c", observed=None)):
        assert type(made) is cloud.Prepared
    with pytest.raises(ValueError, match="no client to read cluster"):
        pipeline.prepare(None, slurm_spec(workers=3))  # OBSERVE without a client: said, before any call
