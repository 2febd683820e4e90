"""Two appliers on one SQLite world (as two processes would be).

The resource has no etag, so a window remains between apply's last read and its PATCH: two
appliers of the same plan can both send it (the same body: idempotent). What holds in every
interleaving: no call fails, the cluster ends as planned, and re-planning is empty; and when the
other writer's update has begun (FAILED_PRECONDITION) apply waits, checks again and refuses."""

from __future__ import annotations

import threading

from pulumi_hyperpod.gcp.apply import ApplyError, PlanRefused, apply
from pulumi_hyperpod.gcp.client import connect
from pulumi_hyperpod.gcp.fake import GcpSimulator
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.gcp.spec import ClusterSpec

from .conftest import NAME, a4


def test_patch_refused_while_updating_waits_and_checks_again(client, doc):
    """The interleaving threads rarely hit: the other writer's PATCH lands between our check and
    our call. Our PATCH gets FAILED_PRECONDITION; apply waits, sees the configuration moved, refuses."""
    apply(client, plan(ClusterSpec.from_document(doc), None))
    a4(doc)["scaling_spec"] = {"min_node_count": 3, "max_node_count": 3}
    spec = ClusterSpec.from_document(doc)
    ours = plan(spec, observe(client, NAME))
    real_patch = client.patch_cluster

    def patch_after_the_other_writer(*args, **kwargs):
        client.patch_cluster = real_patch
        theirs = plan(spec, observe(client, NAME)).steps[0].request
        real_patch(theirs["name"], theirs["updateMask"].split(","), theirs["body"])  # lands first
        return real_patch(*args, **kwargs)

    client.patch_cluster = patch_after_the_other_writer
    messages: list[str] = []
    try:
        apply(client, ours, progress=messages.append)
    except PlanRefused as refused:
        assert "changed since the plan was made" in str(refused)
    else:
        raise AssertionError("a second PATCH went out")
    assert any("changed meanwhile" in m for m in messages)
    assert observe(client, NAME).pool("a4").target == 3


def test_one_change_planned_twice_converges(tmp_path, doc):
    path = tmp_path / "gcp.sqlite"
    clients = [connect("fake", simulator=GcpSimulator(path), poll_seconds=0) for _ in range(2)]
    apply(clients[0], plan(ClusterSpec.from_document(doc), None))
    a4(doc)["scaling_spec"] = {"min_node_count": 3, "max_node_count": 3}
    spec = ClusterSpec.from_document(doc)
    plans = [plan(spec, observe(client, NAME)) for client in clients]  # both made before either runs
    outcomes: list[str] = []
    start = threading.Barrier(2)

    def run(client, the_plan):
        start.wait()
        try:
            outcomes.append("+".join(apply(client, the_plan).calls))
        except PlanRefused as refused:
            outcomes.append(f"refused: {refused}")
        except ApplyError as error:  # a failed call: the assertion below fails
            outcomes.append(f"error: {error}")

    threads = [threading.Thread(target=run, args=pair) for pair in zip(clients, plans)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    kinds = sorted(o.split(":")[0] for o in outcomes)
    assert kinds in (["PatchModelDevelopmentCluster", "refused"], ["PatchModelDevelopmentCluster"] * 2), outcomes
    state = observe(clients[1], NAME)
    assert state.state == "RUNNING" and (state.pool("a4").target, state.pool("a4").running) == (3, 3)
    assert plan(spec, state).empty
