"""The simulator's in-process clients get their answers already parsed (fake/parsed.py): exactly what
botocore's JSON parser makes of the same answer sent as JSON text.

Checked two ways: generated answers of every simulated operation's output shape through both
(hypothesis), and every read of a simulated world through a parsed client and a JSON client side by
side. `repr` is compared, not only `==`: key order and the timestamps' time zones must match too.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import botocore.session
from botocore.parsers import ResponseParserError, ResponseParserFactory
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.sim.aws.parsed import converter
from pulumi_hyperpod.sim.aws.quotas import OPERATIONS as QUOTA_OPERATIONS
from pulumi_hyperpod.sim.aws.sagemaker import OPERATIONS as SAGEMAKER_OPERATIONS
from pulumi_hyperpod.sim.aws.simulator import _botocore_session
from pulumi_hyperpod.aws.sessions import parse_timestamp
from tests.support.sim_helpers import eks_request, group, seed000_request

SERVICES = {"sagemaker": SAGEMAKER_OPERATIONS, "service-quotas": QUOTA_OPERATIONS}


def _json_parser() -> Any:
    factory = ResponseParserFactory()
    factory.set_parser_defaults(timestamp_parser=parse_timestamp)  # the simulator clients' session's parser
    return factory.create_parser("json")


def _through_json(shape: Any, payload: Any) -> dict:
    """What botocore makes of `payload` sent as the JSON body of a 200 response."""
    response = {"body": json.dumps(payload).encode(), "headers": {}, "status_code": 200, "context": {}}
    parsed = _json_parser().parse(response, shape)
    parsed.pop("ResponseMetadata", None)
    return parsed


# ---- generated answers -----------------------------------------------------------------------------
def _values(shape: Any, depth: int = 0) -> st.SearchStrategy:
    """JSON values for a botocore shape, with what a careless answer could hold: None members, unknown keys."""
    kind = shape.type_name
    if kind == "structure":
        if shape.is_document_type or depth > 3:
            return st.dictionaries(st.text(max_size=3), st.integers(), max_size=2)
        members = {shape.members[name].serialization.get("name", name): _values(shape.members[name], depth + 1) for name in shape.members}
        if shape.is_tagged_union:
            return st.sampled_from(sorted(members) + ["NotInThisModel"]).flatmap(
                lambda key: st.fixed_dictionaries({key: members.get(key, st.integers())})
            )
        extra = st.dictionaries(st.sampled_from(["NotInThisModel"]), st.integers(), max_size=1)
        optional = {name: st.one_of(st.none(), value) for name, value in members.items()}
        return st.tuples(st.fixed_dictionaries({}, optional=optional), extra).map(lambda pair: {**pair[0], **pair[1]})
    if kind == "list":
        return st.lists(st.one_of(st.none(), _values(shape.member, depth + 1)), max_size=3)
    if kind == "map":
        return st.dictionaries(st.text(max_size=5), _values(shape.value, depth + 1), max_size=3)
    if kind == "timestamp":
        return st.floats(min_value=0, max_value=4e9, allow_nan=False) | st.integers(min_value=0, max_value=4_000_000_000)
    if kind == "blob":
        return st.binary(max_size=8).map(lambda raw: base64.b64encode(raw).decode())
    if kind == "boolean":
        return st.booleans()
    if kind in ("integer", "long"):
        return st.integers(min_value=-(2**40), max_value=2**40)
    if kind in ("float", "double"):
        return st.floats(allow_nan=False, allow_infinity=False)
    return st.text(max_size=8)


def _output_shapes() -> list[tuple[str, Any]]:
    session = botocore.session.get_session()
    shapes = []
    for service, operations in SERVICES.items():
        model = session.get_service_model(service)
        shapes += [(service, model.operation_model(name).output_shape) for name in sorted(operations)]
    return [(service, shape) for service, shape in shapes if shape is not None]


OUTPUT_SHAPES = _output_shapes()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_an_answer_of_any_simulated_operation_is_parsed_as_botocore_parses_its_json(data):
    service, shape = data.draw(st.sampled_from(OUTPUT_SHAPES), label="output shape")
    payload = data.draw(_values(shape), label="answer")
    assert _outcome(lambda: converter(service, shape)(payload)) == _outcome(lambda: _through_json(shape, payload))


def _outcome(parse: Any) -> str:
    """The parsed answer's repr, or the error it raises (a union with no member or two: both refuse it alike)."""
    try:
        return repr(parse())
    except ResponseParserError as error:
        return f"{type(error).__name__}: {error}"


# ---- a simulated world, read both ways ---------------------------------------------------------------
def _strip(response: dict) -> dict:
    return {key: value for key, value in response.items() if key != "ResponseMetadata"}


def _world() -> tuple[Simulator, str]:
    sim = Simulator(seed=7)
    client = sim.client()
    client.create_cluster(**seed000_request("slurm", workers=4))
    flexible = group("flex", 3, InstanceRequirements={"InstanceTypes": ["ml.g5.xlarge", "ml.g5.2xlarge"]})
    client.create_cluster(**eks_request("eks", [group("cpu", 2), flexible]))
    sim.advance(1800)
    arn = client.describe_cluster(ClusterName="slurm")["ClusterArn"]
    client.add_tags(ResourceArn=arn, Tags=[{"Key": "owner", "Value": "platform"}])
    client.update_cluster(ClusterName="eks", InstanceGroups=[group("cpu", 4), flexible])
    sim.advance(120)
    return sim, arn


def _reads(client: Any, arn: str) -> list[dict]:
    answers = [client.list_clusters(), client.list_tags(ResourceArn=arn)]
    for name in ("slurm", "eks"):
        answers.append(client.describe_cluster(ClusterName=name))
        nodes = [page for page in client.get_paginator("list_cluster_nodes").paginate(ClusterName=name, IncludeNodeLogicalIds=True)]
        answers += nodes
        first = nodes[0]["ClusterNodeSummaries"][0]
        answers.append(client.describe_cluster_node(ClusterName=name, NodeLogicalId=first["NodeLogicalId"]))
        events = client.list_cluster_events(ClusterName=name, MaxResults=5)
        answers.append(events)
        answers.append(client.describe_cluster_event(ClusterName=name, EventId=events["Events"][0]["EventId"]))
    return [_strip(answer) for answer in answers]


def test_every_read_of_a_world_is_the_same_through_a_parsed_client_and_a_json_client():
    sim, arn = _world()
    parsed = sim.client()
    through_json = sim.attach(_botocore_session().create_client("sagemaker", region_name="us-west-2"))
    assert repr(_reads(parsed, arn)) == repr(_reads(through_json, arn))
    quotas = (sim.client("service-quotas"), sim.attach(_botocore_session().create_client("service-quotas", region_name="us-west-2")))
    listed = [_strip(client.list_aws_default_service_quotas(ServiceCode="sagemaker")) for client in quotas]
    assert listed[0]["Quotas"] and repr(listed[0]) == repr(listed[1])


def test_a_parsed_answer_is_the_callers_own_copy_not_a_piece_of_the_world():
    sim, _ = _world()
    client = sim.client()
    before = client.describe_cluster(ClusterName="eks")
    taken = client.describe_cluster(ClusterName="eks")
    taken["InstanceGroups"][0]["InstanceRequirements"] = {"CurrentInstanceTypes": ["changed"]}
    taken["InstanceGroups"].clear()
    taken["VpcConfig"]["Subnets"].append("subnet-changed")
    assert _strip(client.describe_cluster(ClusterName="eks")) == _strip(before)


def test_errors_still_come_as_botocore_raises_them_from_the_json_error():
    client = Simulator().client()
    try:
        client.describe_cluster(ClusterName="absent")
    except client.exceptions.ResourceNotFound as error:
        assert error.response["Error"]["Code"] == "ResourceNotFound"
        assert "absent" in error.response["Error"]["Message"]
    else:  # pragma: no cover - the assertion below names the defect
        raise AssertionError("DescribeCluster of a missing cluster did not raise")
