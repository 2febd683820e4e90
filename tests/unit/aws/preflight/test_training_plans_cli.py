"""Issue 41, "done when": a growing group refused or warned by its training plan's available count,
and a group short of quota shown the offerings — through `hyperpod --backend fake` on a persistent
world whose scenario lists the plan and the offerings; a saved plan keeps its offering note at
apply, and apply never buys or extends a plan."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.sim.aws import Simulator
from tests.support.cli import hyperpod, use_fake_world

from .conftest import spec

P5 = "ml.p5.48xlarge"
ARN = "arn:aws:sagemaker:us-west-2:123456789012:training-plan/p5-month"


def _world(tmp_path, monkeypatch, **scenario) -> None:
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"speed": 0, **scenario}))
    monkeypatch.setenv("HYPERPOD_FAKE_SCENARIO", str(path))
    use_fake_world(monkeypatch, tmp_path)


def _spec_file(tmp_path, workers: int, **worker) -> str:
    path = tmp_path / f"spec-{workers}.json"
    path.write_text(json.dumps(spec(workers=workers, worker_type=P5, **worker).to_api()))
    return str(path)


@pytest.mark.parametrize(("start_at", "workers", "code", "verdict"), [(0, 6, 2, "refused"), (7200, 2, 0, "waits")])
def test_cli_plan_refuses_or_warns_a_growing_group_by_its_training_plans_available_count(
    tmp_path, monkeypatch, start_at, workers, code, verdict
):
    _world(tmp_path, monkeypatch, training_plans={ARN: {"instance_type": P5, "count": 4, "start_at": start_at}})
    text = hyperpod("plan", "-f", _spec_file(tmp_path, workers, TrainingPlanArn=ARN), code=code)
    [finding] = json.loads(hyperpod("plan", "-f", _spec_file(tmp_path, workers, TrainingPlanArn=ARN), "--json", code=code))["preflight"][
        "training_plans"
    ]
    assert (finding["verdict"], finding["available"], finding["adds"]) == (verdict, 4, workers)
    if verdict == "refused":
        assert "REFUSED [training-plan]" in text and "it has 4 of its 4 instance(s) available (0 in use), the plan adds 6" in text
    else:
        assert "training plan p5-month is Scheduled" in text and "verdict: may be applied, with 1 warning(s)" in text


def test_cli_saved_plan_keeps_its_offering_note_and_apply_buys_no_training_plan(tmp_path, monkeypatch):
    offering = {"id": "tpo-p5", "instance_type": P5, "count": 4, "upfront_fee": "98304.00", "availability_zone": "us-west-2b"}
    quota = {"quota_name": f"{P5} for cluster usage", "value": 2}
    _world(tmp_path, monkeypatch, quotas=[quota], training_plan_offerings=[offering])
    saved = tmp_path / "plan.json"
    text = hyperpod("plan", "-f", _spec_file(tmp_path, 2), "--out", str(saved))
    assert "training plan: workers: near its ml.p5.48xlarge quota" in text and "tpo-p5" in text

    applied = hyperpod("apply", "--plan", str(saved), "--yes", "--wait", "none")
    assert "tpo-p5" in applied and "upfront 98304.00 USD" in applied  # the note, read again at apply
    calls = [op for op, _ in Simulator.open_default().calls]
    assert calls.count("SearchTrainingPlanOfferings") == 2 and "CreateCluster" in calls
    assert not {"CreateTrainingPlan", "ExtendTrainingPlan"} & set(calls)
