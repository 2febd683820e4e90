"""The simulator's direct read client (sim/aws/direct.py) answers as the botocore client does.

`connect("fake", reads=True)` hands a preview's reads to the simulator without botocore's client. Two
simulated worlds built the same way (same seed, same calls) are read side by side, one through the
direct client and one through the botocore client, and every answer must be the same — `repr`
compared, so key order, ResponseMetadata (request ids, headers) and timestamps' time zones too — and
every error the same class name, `response` and message: a missing cluster or node, values the
simulator refuses, parameters botocore refuses, paginated walks included. And `observe()` gives the
same ClusterState through both; a fresh process observing the persistent world imports neither
botocore's session or client nor pydantic.
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod import connect, observe
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.aws.direct import READ_METHODS, DirectReadClient
from pulumi_hyperpod.aws.observe.reader import read_tags
from pulumi_hyperpod.aws import specshapes
from tests.support.sim_helpers import eks_request, group, seed000_request

from tests.support.fresh import run_fresh

ABSENT = "absent-cluster"


# ---- two identical worlds -------------------------------------------------------------------------
WORLDS = st.fixed_dictionaries(
    {
        "seed": st.integers(min_value=0, max_value=40),
        "kind": st.sampled_from(["slurm", "eks"]),
        "workers": st.integers(min_value=1, max_value=12),
        "advance": st.sampled_from([0, 100, 900, 2400]),
        "tagged": st.booleans(),
        "scaled": st.booleans(),
    }
)


def _build(world: dict) -> tuple[Simulator, str]:
    """A world as `world` describes it, made through the botocore client (the writes' path)."""
    sim = Simulator(seed=world["seed"])
    client = sim.client()
    if world["kind"] == "slurm":
        client.create_cluster(**seed000_request("demo", workers=world["workers"], worker_type="ml.c5.xlarge"))
    else:
        client.create_cluster(**eks_request("demo", [group("cpu", world["workers"]), group("gpu", 1, "ml.g5.xlarge")]))
    sim.advance(world["advance"])
    arn = client.describe_cluster(ClusterName="demo")["ClusterArn"]
    if world["tagged"]:
        client.add_tags(ResourceArn=arn, Tags=[{"Key": f"k{i}", "Value": f"v{i}"} for i in range(3)])
    if world["scaled"] and world["kind"] == "eks":
        client.update_cluster(ClusterName="demo", InstanceGroups=[group("cpu", world["workers"] + 2), group("gpu", 1, "ml.g5.xlarge")])
        sim.advance(60)
    return sim, arn


def _pair(world: dict) -> tuple[Any, Any, Simulator, str]:
    """(direct client, botocore client, the direct one's world, the cluster's ARN) over identical worlds."""
    direct_sim, arn = _build(world)
    botocore_sim, same_arn = _build(world)
    assert arn == same_arn
    direct = connect("fake", simulator=direct_sim, reads=True)
    assert isinstance(direct, DirectReadClient)
    return direct, botocore_sim.client(), direct_sim, arn


# ---- the reads ------------------------------------------------------------------------------------
def _calls(sim: Simulator, arn: str) -> st.SearchStrategy:
    """(method, params, PaginationConfig or None: called directly) a preview's reads could make."""
    nodes = sim.node_build_configs("demo")  # out of band: no request, so both worlds see the same ones
    instance_ids = [n["InstanceId"] for n in nodes if n["InstanceId"]] or ["i-0123456789abcdef0"]
    logical_ids = [n["NodeLogicalId"] for n in nodes]
    names = st.sampled_from(["demo", ABSENT, "bad name!"])
    page = st.one_of(st.none(), st.integers(min_value=0, max_value=120))
    timestamp = st.sampled_from([dt.datetime(2025, 1, 1, tzinfo=dt.timezone.utc), dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc)])

    def optional(**members: st.SearchStrategy) -> st.SearchStrategy:
        return st.fixed_dictionaries({}, optional=members)

    describe_node = st.one_of(
        st.fixed_dictionaries({"ClusterName": names, "NodeId": st.sampled_from([*instance_ids, "i-0000000000000000f"])}),
        st.fixed_dictionaries({"ClusterName": names, "NodeLogicalId": st.sampled_from([*logical_ids, "absent-logical-id"])}),
    )
    params = {
        "describe_cluster": st.fixed_dictionaries({"ClusterName": names}),
        "list_cluster_nodes": st.tuples(
            st.fixed_dictionaries({"ClusterName": names}),
            optional(
                MaxResults=page,
                SortOrder=st.sampled_from(["Ascending", "Descending"]),
                SortBy=st.sampled_from(["CREATION_TIME", "NAME"]),
                IncludeNodeLogicalIds=st.booleans(),
                InstanceGroupNameContains=st.sampled_from(["c", "worker", "nothing"]),
                CreationTimeAfter=timestamp,
            ),
        ).map(lambda pair: {**pair[0], **{k: v for k, v in pair[1].items() if v is not None}}),
        "list_clusters": optional(
            MaxResults=st.integers(min_value=0, max_value=120), NameContains=st.sampled_from(["de", "zz"]), SortOrder=st.just("Descending")
        ),
        "list_tags": st.fixed_dictionaries(
            {"ResourceArn": st.sampled_from([arn, arn.replace("/", "/x")])}, optional={"MaxResults": st.integers(min_value=0, max_value=60)}
        ),
        "list_cluster_events": st.fixed_dictionaries(
            {"ClusterName": names}, optional={"MaxResults": st.integers(min_value=0, max_value=120)}
        ),
        "describe_cluster_node": describe_node,
    }
    refused_by_botocore = st.sampled_from(
        [("describe_cluster", {"ClusterName": 5}), ("list_cluster_nodes", {"ClusterNam": "demo"}), ("list_tags", {})]
    )
    plain = st.sampled_from(sorted(params)).flatmap(lambda name: params[name].map(lambda p: (name, p, None)))
    paginated = st.sampled_from(["list_cluster_nodes", "list_clusters", "list_tags", "list_cluster_events"]).flatmap(
        lambda name: st.tuples(
            st.just(name),
            params[name].map(lambda p: {k: v for k, v in p.items() if k != "MaxResults"}),
            optional(PageSize=st.integers(min_value=1, max_value=7), MaxItems=st.integers(min_value=1, max_value=9)),
        )
    )
    return st.one_of(plain, paginated, refused_by_botocore.map(lambda call: (*call, None)))


def _outcome(client: Any, method: str, params: dict, pagination: dict | None) -> str:
    """What a caller sees: the answer (every page of a walk), or the error's class, response and message."""
    try:
        if pagination is None:
            return repr(getattr(client, method)(**params))
        pages = client.get_paginator(method).paginate(**params, PaginationConfig=pagination)
        return repr(list(pages))
    except Exception as error:  # noqa: BLE001 - every error is part of the comparison
        return repr((type(error).__name__, getattr(error, "response", None), getattr(error, "operation_name", None), str(error)))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(WORLDS, st.data())
def test_every_read_answers_the_same_through_the_direct_and_the_botocore_client(world, data):
    direct, through_botocore, sim, arn = _pair(world)
    calls = data.draw(st.lists(_calls(sim, arn), min_size=1, max_size=8), label="calls")
    for method, params, pagination in calls:
        assert _outcome(direct, method, params, pagination) == _outcome(through_botocore, method, params, pagination), (method, params)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(WORLDS)
def test_observe_gives_the_same_cluster_state_through_both(world):
    direct, through_botocore, _, _ = _pair(world)
    states = [observe(client, "demo") for client in (direct, through_botocore)]
    assert states[0] is not None and states[0] == states[1]
    assert read_tags(direct, states[0]) == read_tags(through_botocore, states[1])
    assert observe(direct, ABSENT) is None and observe(through_botocore, ABSENT) is None


def test_errors_are_the_classes_a_botocore_client_raises():
    direct, through_botocore, _, _ = _pair({"seed": 1, "kind": "slurm", "workers": 2, "advance": 900, "tagged": False, "scaled": False})
    with pytest.raises(direct.exceptions.ResourceNotFound) as missing:
        direct.describe_cluster(ClusterName=ABSENT)
    assert missing.value.operation_name == "DescribeCluster" and missing.value.response["Error"]["Code"] == "ResourceNotFound"
    with pytest.raises(through_botocore.exceptions.ResourceNotFound) as same:
        through_botocore.describe_cluster(ClusterName=ABSENT)
    assert missing.value.response == same.value.response
    from botocore.exceptions import ParamValidationError

    with pytest.raises(ParamValidationError):
        direct.list_cluster_nodes(ClusterName=7)
    with pytest.raises(TypeError, match="only accepts keyword arguments"):
        direct.describe_cluster("demo")


def test_throttled_reads_are_retried_as_botocore_retries_them(monkeypatch):
    """Wire faults: botocore's standard retries (sleeps skipped), the same attempts, RetryAttempts and
    MaxAttemptsReached, and the same error once the attempts run out."""
    monkeypatch.setattr("time.sleep", lambda seconds: None)
    scenario = {"faults": {"throttle_rate": 0.6, "server_error_rate": 0.3}}
    outcomes = []
    for reads in (True, False):
        sim = Simulator(seed=11, scenario=scenario)
        client = connect("fake", simulator=sim, reads=reads, max_attempts=2)
        assert isinstance(client, DirectReadClient) is reads
        seen = [_outcome(client, "list_clusters", {}, None) for _ in range(12)]
        seen += [_outcome(client, "list_cluster_nodes", {"ClusterName": ABSENT}, {"PageSize": 3})]
        outcomes.append((seen, [operation for operation, _ in sim.calls]))
    assert outcomes[0] == outcomes[1]
    assert "'RetryAttempts': 2" in "".join(outcomes[0][0]) and "MaxAttemptsReached" in "".join(outcomes[0][0])


def test_the_direct_client_holds_the_reads_and_hands_everything_else_to_the_full_client():
    sim = Simulator(seed=2)
    client = connect("fake", simulator=sim, reads=True)
    assert isinstance(client, DirectReadClient) and client.meta.hyperpod_cut and client.meta.hyperpod_simulated is False
    assert set(READ_METHODS.values()) == set(specshapes.READ_OPERATIONS)
    assert not client._made  # nothing but reads asked for: no botocore client made
    client.create_cluster(**seed000_request("demo", workers=1, worker_type="ml.c5.xlarge"))  # a write: the full client's
    assert client._made and [operation for operation, _ in sim.calls] == ["CreateCluster"]
    assert client.can_paginate("list_cluster_nodes") and not client.can_paginate("describe_cluster")
    assert type(client.get_paginator("list_cluster_nodes")).__name__ == "SageMaker.Paginator.ListClusterNodes"
    assert client.get_paginator("list_cluster_operations")._model.name == "ListClusterOperations"
    assert client.get_waiter("endpoint_in_service").name == "EndpointInService"
    with pytest.raises(AttributeError):
        client.not_an_operation  # noqa: B018


def test_without_a_cut_model_the_reads_go_through_botocore(monkeypatch):
    import functools

    from pulumi_hyperpod.aws import servicemodel

    monkeypatch.setenv("PULUMI_HYPERPOD_MODEL_CACHE", "0")
    monkeypatch.setattr(servicemodel, "_spec_shapes", functools.lru_cache(maxsize=1)(lambda: specshapes.load()))
    client = connect("fake", simulator=Simulator(), reads=True)
    assert not isinstance(client, DirectReadClient) and "create_cluster" in dir(type(client))


# ---- a fresh process ------------------------------------------------------------------------------
OBSERVE = """
import json, sys
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.aws.observe import observe
client = connect("fake", reads=True)
state = observe(client, "demo")
loaded = [name for name in ("botocore.session", "botocore.client", "pydantic") if name in sys.modules]
print(json.dumps({"client": type(client).__name__, "nodes": len(state.nodes), "loaded": loaded}))
"""


def test_a_fresh_process_observes_the_persistent_world_without_botocores_client_or_pydantic(tmp_path, monkeypatch):
    from pulumi_hyperpod.aws.readclient import read_paginators

    assert specshapes.load() is not None and read_paginators() is not None  # the cache a preview finds
    path = tmp_path / ".hyperpod" / "fake.sqlite"
    sim = Simulator(path, seed=0)
    sim.client().create_cluster(**seed000_request("demo", workers=2, worker_type="ml.c5.xlarge"))
    sim.advance(1800)
    monkeypatch.delenv("HYPERPOD_FAKE_STATE", raising=False)
    monkeypatch.delenv("HYPERPOD_FAKE_SCENARIO", raising=False)
    result = json.loads(run_fresh(OBSERVE, cwd=tmp_path))
    assert result == {"client": "DirectReadClient", "nodes": 4, "loaded": []}


def test_the_paginator_configuration_is_botocores_and_a_damaged_entry_is_read_again(tmp_path, monkeypatch):
    import botocore.session

    from pulumi_hyperpod.aws.readclient import PAGINATORS_PREFIX, read_paginators

    monkeypatch.setenv("PULUMI_HYPERPOD_CACHE", str(tmp_path))
    whole = botocore.session.get_session().get_paginator_model("sagemaker")
    expected = {name: whole.get_paginator(name) for name in specshapes.READ_OPERATIONS if name in whole._paginator_config}
    assert set(expected) >= {"ListClusterNodes", "ListTags"} and read_paginators() == expected
    [entry] = list(tmp_path.rglob(PAGINATORS_PREFIX + "*"))
    entry.write_bytes(b"not marshal data")
    assert read_paginators() == expected
    assert read_paginators() == expected and entry.read_bytes() != b"not marshal data"  # written whole again
