"""Two appliers on one SQLite world (as two processes would be).

apply reads, checks and writes: the check is a GET right before each PATCH (the resource has no
etag to make the service refuse a write over a newer version, so the window between the check and
the PATCH is kept to one request, not closed); another writer's update in flight makes the PATCH
fail FAILED_PRECONDITION, and apply waits and checks again. Two appliers of the same
plan may both send it (the same body: idempotent); two appliers of different plans never both
succeed: the later one is refused and the cluster is as the first left it."""

from __future__ import annotations

import threading

from pulumi_hyperpod.core.contract import ApplyError, ApplyOptions, PlanRefused, PlanStale
from pulumi_hyperpod.gcp.apply import apply
from pulumi_hyperpod.gcp.client import connect
from pulumi_hyperpod.sim.gcp import GcpSimulator
from pulumi_hyperpod.gcp.observe import observe
from pulumi_hyperpod.gcp.planner import plan
from pulumi_hyperpod.gcp.spec import ClusterSpec

from tests.support.gcp import NAME, a4


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
        apply(client, ours, ApplyOptions(progress=messages.append))
    except (PlanRefused, PlanStale) as refused:  # PlanStale: the cluster moved (core/contract.py)
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
        except (PlanRefused, PlanStale) as refused:  # PlanStale: the cluster moved (core/contract.py)
            outcomes.append(f"refused: {refused}")
        except ApplyError as error:  # a failed call: the assertion below fails
            outcomes.append(f"error: {error}")

    threads = [threading.Thread(target=run, args=pair) for pair in zip(clients, plans, strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    kinds = sorted(o.split(":")[0] for o in outcomes)
    assert kinds in (["PatchModelDevelopmentCluster", "refused"], ["PatchModelDevelopmentCluster"] * 2), outcomes
    state = observe(clients[1], NAME)
    assert state.state == "RUNNING" and (state.pool("a4").target, state.pool("a4").running) == (3, 3)
    assert plan(spec, state).empty


def test_the_check_is_the_last_read_before_the_patch(tmp_path, doc):
    """ModelDevelopmentCluster has no etag (magic-modules lists none), so no request can make the
    service refuse a PATCH written over an update that finished after our check: that window cannot
    be closed, only kept to one request. Apply's check is a GET made right before its PATCH, with no
    other call between them (docs/gcp.md, "Assumptions")."""
    path = tmp_path / "gcp.sqlite"
    client = connect("fake", simulator=GcpSimulator(path), poll_seconds=0)
    apply(client, plan(ClusterSpec.from_document(doc), None))
    a4(doc)["scaling_spec"] = {"min_node_count": 1, "max_node_count": 1}
    ours = plan(ClusterSpec.from_document(doc), observe(client, NAME))
    calls: list[str] = []
    for method in ("get_cluster", "patch_cluster", "get_operation", "list_clusters"):
        if hasattr(client, method):
            real = getattr(client, method)

            def recorded(*args, _real=real, _name=method, **kwargs):
                calls.append(_name)
                return _real(*args, **kwargs)

            setattr(client, method, recorded)
    apply(client, ours)
    patch = calls.index("patch_cluster")
    assert patch > 0 and calls[patch - 1] == "get_cluster", calls


def test_two_appliers_of_different_plans_leave_the_cluster_as_one_of_them(tmp_path, doc):
    """Whatever the interleaving: each applier is refused or sees its own PATCH land, and the
    cluster ends as one plan left it, never a mix. (Both can succeed only when one update finished
    inside the other's check-to-PATCH window: without an etag the service cannot refuse that; see
    test_the_check_is_the_last_read_before_the_patch.)"""
    path = tmp_path / "gcp.sqlite"
    clients = [connect("fake", simulator=GcpSimulator(path), poll_seconds=0) for _ in range(2)]
    apply(clients[0], plan(ClusterSpec.from_document(doc), None))
    plans = []
    for client, count in zip(clients, (6, 1), strict=True):
        a4(doc)["scaling_spec"] = {"min_node_count": count, "max_node_count": count}
        plans.append(plan(ClusterSpec.from_document(doc), observe(client, NAME)))
    outcomes: dict[int, str] = {}
    start = threading.Barrier(2)

    def run(index):
        start.wait()
        try:
            outcomes[index] = "+".join(apply(clients[index], plans[index]).calls)
        except (PlanRefused, PlanStale) as refused:  # PlanStale: the cluster moved (core/contract.py)
            outcomes[index] = f"refused: {refused}"

    threads = [threading.Thread(target=run, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    done = [i for i, o in outcomes.items() if o == "PatchModelDevelopmentCluster"]
    assert len(outcomes) == 2 and done, outcomes
    assert all(o == "PatchModelDevelopmentCluster" or o.startswith("refused:") for o in outcomes.values()), outcomes
    final = observe(clients[0], NAME)
    assert final.state == "RUNNING" and final.pool("a4").target in {(6, 1)[i] for i in done}
    if len(done) == 1:
        assert final.pool("a4").target == (6, 1)[done[0]]
