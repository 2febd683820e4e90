"""The simulator's Service Quotas answers validate against botocore's `service-quotas` output
shapes, and its errors are the service's (AccessDenied, NoSuchResource) — as for SageMaker."""

from __future__ import annotations

import botocore.session
import pytest
from botocore.exceptions import ClientError

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator, wire
from pulumi_hyperpod.sim.aws.quotas import OPERATIONS

from .conftest import g5_quota


@pytest.fixture
def checked():
    model = botocore.session.get_session().get_service_model("service-quotas")
    seen: dict[str, int] = {}
    problems: list[str] = []

    def observe(operation: str, body: dict, service: str = "sagemaker") -> None:
        if service != "service-quotas":
            return
        seen[operation] = seen.get(operation, 0) + 1
        shape = model.operation_model(operation).output_shape
        problems.extend(f"{operation}: {p}" for p in servicemodel.violations(shape, body, check_required=True))

    wire.OBSERVERS.append(observe)
    yield seen, problems
    wire.OBSERVERS.remove(observe)


def test_every_quota_operation_answers_in_botocores_shapes(checked):
    seen, problems = checked
    sim = Simulator(scenario={"account": "new", "quotas": [g5_quota(4), {"quota_code": "L-2CE978FC", "value": 20}]})
    client = connect("fake", simulator=sim, service="service-quotas")

    applied = [
        q
        for page in client.get_paginator("list_service_quotas").paginate(ServiceCode="sagemaker", PaginationConfig={"PageSize": 1})
        for q in page["Quotas"]
    ]
    defaults = [
        q for page in client.get_paginator("list_aws_default_service_quotas").paginate(ServiceCode="sagemaker") for q in page["Quotas"]
    ]
    by_code = client.get_service_quota(ServiceCode="sagemaker", QuotaCode="L-2CE978FC")["Quota"]
    default = client.get_service_quota(ServiceCode="sagemaker", QuotaCode="L-3308CCC7")["Quota"]

    assert sorted(q["QuotaName"] for q in applied) == [
        "Maximum number instances allowed per SageMaker HyperPod cluster",
        "ml.g5.xlarge for cluster usage",
    ]
    assert len(defaults) > 100 and any(q["QuotaName"] == "ml.p5.48xlarge for cluster usage" for q in defaults)
    assert (by_code["Value"], default["QuotaName"]) == (20, "Total number of instances allowed across SageMaker HyperPod clusters")
    assert seen.keys() == OPERATIONS.keys() and seen["ListServiceQuotas"] == 2  # two pages of one
    assert problems == []


def test_errors_are_the_services():
    denied = connect("fake", simulator=Simulator(scenario={"quotas_access_denied": True}), service="service-quotas")
    with pytest.raises(ClientError) as error:
        denied.list_service_quotas(ServiceCode="sagemaker")
    assert error.value.response["Error"]["Code"] == "AccessDeniedException"

    client = connect("fake", simulator=Simulator(), service="service-quotas")
    for call in (
        lambda: client.list_service_quotas(ServiceCode="ec2"),
        lambda: client.get_service_quota(ServiceCode="sagemaker", QuotaCode="L-00000000"),
    ):
        with pytest.raises(ClientError) as error:
            call()
        assert error.value.response["Error"]["Code"] == "NoSuchResourceException"
