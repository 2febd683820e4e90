"""Issue 36, item 14: user text with no bound of its own (a Slurm user name or job id from a --workload
file) is clipped in what is printed for people (terminal.clipped); the records keep it whole."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.core.terminal import CLIP, clipped
from pulumi_hyperpod.aws.workload.model import Job
from tests.support.cli import SPECS, hyperpod, seed004_world

LONG = "u" * 10_000


def test_clipped_says_how_much_is_left_out():
    assert clipped("alice") == "alice"
    assert clipped("x" * CLIP) == "x" * CLIP
    assert clipped(LONG) == "u" * (CLIP - 1) + f"… ({10_000 - CLIP + 1:,} more characters)"


def test_a_jobs_words_clip_its_user_and_id():
    assert Job("7", LONG, "train", None, "RUNNING").describe() == f"job 7 ({clipped(LONG)}) has no time limit"
    assert len(Job("9" * 5000, "bob", "", None, "RUNNING").describe()) < 200


def test_a_10000_character_user_is_clipped_in_the_plan_and_whole_in_the_saved_plan(monkeypatch, tmp_path):
    seed004_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes", "--wait", "Target", "--timeout", "600")
    from pulumi_hyperpod.sim.aws import Simulator
    from pulumi_hyperpod.aws.observe import observe
    from pulumi_hyperpod.aws.workload.match import slurm_names

    state = observe(Simulator.open_default().client(), "leo-stg-hyperpod-cluster")
    compute = {n.instance_id for n in state.nodes if n.group == "leo-stg-compute-ig"}
    hosts = sorted(name for name, instance in slurm_names(state).items() if instance in compute)
    assert len(hosts) == 3
    jobs = [
        {"job_id": 100 + i, "job_state": ["RUNNING"], "nodes": host, "user_name": LONG, "end_time": 1_900_000_000 + i * 3600}
        for i, host in enumerate(hosts)
    ]
    (tmp_path / "squeue.json").write_text(json.dumps({"jobs": jobs}))
    args = ["--backend", "fake", "plan", "-f", str(SPECS / "seed004-scale-in.json"), "--workload", "squeue.json"]
    text = CliRunner().invoke(main, [*args, "--out", "plan.json"]).output
    assert "u" * CLIP not in text and "more characters)" in text, text[:3000]
    saved = json.loads((tmp_path / "plan.json").read_text())
    assert {job["user"] for node in saved["workload"]["nodes"] for job in node["jobs"]} == {LONG}
