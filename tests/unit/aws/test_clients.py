"""The AWS client protocols (aws/clients.py) against botocore's models, the contract: every operation
a protocol names is one of its service's, every paginator the code asks for exists, every call a
HyperPod plan's step can make is on the SageMaker protocol, and the clients `connect` makes satisfy
their protocols."""

from __future__ import annotations

import ast

import pytest
from botocore import xform_name
from botocore.session import get_session

from pulumi_hyperpod.aws import clients
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from tests.support.paths import PACKAGE

PLANNER = PACKAGE / "aws" / "planner"
PROTOCOLS = {clients.SageMakerClient: "sagemaker", clients.ServiceQuotasClient: "service-quotas", clients.S3Client: "s3"}
# the paginators the code asks for: aws/observe/reader.py, aws/cost/metering.py, aws/preflight/quotas.py, cli/
PAGINATED = {
    "sagemaker": ("list_clusters", "list_cluster_nodes", "list_cluster_events", "list_tags", "list_cluster_extensions"),
    "service-quotas": ("list_service_quotas", "list_aws_default_service_quotas"),
}


def operations(protocol: type) -> set[str]:
    """The methods a protocol adds to BotocoreClient's (meta, get_paginator): each an operation's."""
    base = set(vars(clients.BotocoreClient))
    return {name for name, value in vars(protocol).items() if callable(value) and not name.startswith("_") and name not in base}


def model_operations(service: str) -> set[str]:
    return {xform_name(name) for name in get_session().get_service_model(service).operation_names}


@pytest.mark.parametrize(("protocol", "service"), PROTOCOLS.items(), ids=PROTOCOLS.values())
def test_every_operation_a_protocol_names_is_one_of_its_services(protocol, service):
    named = operations(protocol)
    assert named or protocol is clients.ServiceQuotasClient  # Service Quotas: paginators only
    assert named - model_operations(service) == set()


@pytest.mark.parametrize("service", PAGINATED)
def test_every_paginator_the_code_asks_for_exists(service):
    client = connect("fake", simulator=Simulator(seed=1), service=service)
    assert [name for name in PAGINATED[service] if not client.can_paginate(name)] == []


def test_every_call_a_planner_step_makes_is_on_the_sagemaker_protocol():
    """The executor calls a step's operation by name (getattr): each SageMaker operation the planner
    names, other than reads, must be one the protocol lists."""
    model = set(get_session().get_service_model("sagemaker").operation_names)
    named = {
        node.value
        for path in PLANNER.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in model
    }
    writes = {name for name in named if not name.startswith(("Describe", "List", "Get"))}
    assert {"CreateCluster", "UpdateCluster", "BatchDeleteClusterNodes", "UpdateClusterSoftware"} <= writes  # the scan sees them
    assert {xform_name(name) for name in writes} - operations(clients.SageMakerClient) == set()


@pytest.mark.parametrize(("protocol", "service"), PROTOCOLS.items(), ids=PROTOCOLS.values())
def test_a_client_connect_makes_satisfies_its_protocol(protocol, service):
    client = connect("fake", simulator=Simulator(seed=1), service=service)
    assert isinstance(client, protocol)
    assert isinstance(client.meta.region_name, str)


def test_a_protocol_is_not_satisfied_by_another_services_client():
    """The check is not vacuous: an S3 client has no describe_cluster."""
    assert not isinstance(connect("fake", simulator=Simulator(seed=1), service="s3"), clients.SageMakerClient)
