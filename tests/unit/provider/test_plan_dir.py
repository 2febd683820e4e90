"""$HYPERPOD_PLAN_DIR (provider/cloud_provider.py): each plan the provider shows is also written
there as `<cluster>.json`, its hyperpod-plan/3 JSON; unset, nothing is written."""

from __future__ import annotations

import json

from pulumi_hyperpod.plans import Plan
from pulumi_hyperpod.provider.cloud_provider import PLAN_DIR_ENV, write_plan_file


def test_the_plan_is_written_as_its_json(tmp_path, monkeypatch):
    monkeypatch.setenv(PLAN_DIR_ENV, str(tmp_path / "plans"))
    the_plan = Plan(cluster_name="a/b", action="create")
    write_plan_file(the_plan)
    (written,) = (tmp_path / "plans").iterdir()
    assert written.name == "a_b.json"
    assert json.loads(written.read_text()) == json.loads(the_plan.to_json())


def test_unset_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.delenv(PLAN_DIR_ENV, raising=False)
    monkeypatch.chdir(tmp_path)
    write_plan_file(Plan(cluster_name="a", action="create"))
    assert list(tmp_path.iterdir()) == []
