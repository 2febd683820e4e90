"""Apply's extension steps (aws/apply/extensions.py) on the simulator through the real botocore client:
a create carries a ClientToken derived from the plan, so running the same plan again (a re-run after a
crash) is one request to the service; apply waits for the extension's status; a call the service
refuses is one line, and `--wait none` leaves the extension in flight, not short."""

from __future__ import annotations

import pytest

from pulumi_hyperpod import apply
from pulumi_hyperpod.aws.observe import observe
from pulumi_hyperpod.aws.observe.reader import read_extensions
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.spec import ClusterSpec
from pulumi_hyperpod.core.contract import ApplyError
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.client import connect
from tests.support.factories import slurm_spec

OBS = "sagemaker-observability"
SCENARIO = {"speed": 0}


def _spec(*extensions: dict) -> ClusterSpec:
    data = slurm_spec(workers=1).to_api()
    data["Extensions"] = list(extensions)
    return ClusterSpec.from_dict(data)


@pytest.fixture
def cluster():
    sim = Simulator(seed=7, scenario=SCENARIO)
    client = connect(backend="fake", simulator=sim, region="us-west-2")
    apply(client, plan(slurm_spec(workers=1), None), sleep=sim.advance, poll_seconds=30, timeout=7200)
    return sim, client


def _observed(client):
    return read_extensions(client, observe(client, "my-training-cluster"))


def _run(sim, client, made, **options):
    return apply(client, made, sleep=sim.advance, poll_seconds=30, timeout=3600, **options)


def test_the_same_create_applied_twice_is_one_request(cluster) -> None:
    sim, client = cluster
    made = plan(_spec({"ExtensionName": OBS}), _observed(client))
    first = _run(sim, client, made)
    assert first.outcome == "done" and [e.status for e in _observed(client).extensions] == ["Active"]
    again = _run(sim, client, made, check_fresh=False)  # a re-run after a crash, not checked against the cluster
    assert again.calls == ["CreateClusterExtension"] and again.outcome == "done"
    assert len(_observed(client).extensions) == 1  # the service answered the same token with the same extension
    tokens = {params["ClientToken"] for operation, params in sim.calls if operation == "CreateClusterExtension"}
    assert len(tokens) == 1


def test_apply_waits_until_the_extension_is_active_or_gone(cluster) -> None:
    sim, client = cluster
    made = plan(_spec({"ExtensionName": OBS}), _observed(client))
    assert _run(sim, client, made).outcome == "done"
    assert [(e.name, e.status) for e in _observed(client).extensions] == [(OBS, "Active")]
    removal = plan(_spec(), _observed(client))
    assert [s.kind for s in removal.steps] == ["delete-extension"]
    assert _run(sim, client, removal).outcome == "done"
    assert _observed(client).extensions == ()


def test_without_waiting_the_extension_is_in_flight_not_short(cluster) -> None:
    sim, client = cluster
    result = _run(sim, client, plan(_spec({"ExtensionName": OBS}), _observed(client)), wait="none")
    assert result.outcome == "done" and result.failures == []
    assert [e.status for e in result.state.extensions] == ["Creating"]


def test_an_extension_the_service_refuses_is_one_line(cluster) -> None:
    sim, client = cluster
    made = plan(_spec({"ExtensionName": "sagemaker-unknown"}), _observed(client))
    with pytest.raises(ApplyError) as error:
        _run(sim, client, made)
    assert (
        str(error.value).splitlines()[0] == "CreateClusterExtension failed: ResourceNotFound: Extension sagemaker-unknown does not exist."
    )


def test_a_create_answered_for_an_extension_removed_since_asks_again(cluster) -> None:
    """Add, remove, add again: the third plan's create is the first's request, from the same
    observation — the same token, which the service answers with the removed extension's ARN."""
    sim, client = cluster
    made = plan(_spec({"ExtensionName": OBS}), _observed(client))
    _run(sim, client, made)
    _run(sim, client, plan(_spec(), _observed(client)))
    again = plan(_spec({"ExtensionName": OBS}), _observed(client))
    assert again.steps == made.steps
    result = _run(sim, client, again)
    assert result.outcome == "done" and [e.status for e in _observed(client).extensions] == ["Active"]
    assert result.calls == ["CreateClusterExtension", "CreateClusterExtension"]


def _details(status: str, version: str = "1.0.0") -> dict:
    when = "2026-01-01T00:00:00Z"
    return {
        "ExtensionDetails": {
            "ClusterArn": CLUSTER_ARN,
            "ExtensionArn": EXTENSION_ARN,
            "ExtensionName": OBS,
            "ExtensionVersion": version,
            "Status": status,
            "CreationTime": when,
            "LastModifiedTime": when,
        }
    }


CLUSTER_ARN = "arn:aws:sagemaker:us-west-2:111122223333:cluster/abcde1234567"
EXTENSION_ARN = f"arn:aws:sagemaker:us-west-2:111122223333:extension/{OBS}/abcde1234567/a1b2c3d4e5f6"
PARAMS = {"ClusterArn": CLUSTER_ARN, "ExtensionArn": EXTENSION_ARN}


def test_the_extension_wait_ends_at_active_at_the_version_asked_or_at_a_failed_status(stubbed) -> None:
    from pulumi_hyperpod.aws.apply.waiters import EXTENSION_WAITER, WaitFailed, extension_waiter, wait

    client, stubber = stubbed
    for answer in (_details("Updating", "1.0.0"), _details("Active", "1.0.0"), _details("Active", "1.2.0")):
        stubber.add_response("describe_cluster_extension", answer, PARAMS)
    config = extension_waiter(False, "1.2.0")
    done = wait(client, "c", EXTENSION_WAITER, timeout=600, poll_seconds=1, sleep=lambda s: None, config=config, params=PARAMS)
    assert done["ExtensionDetails"]["ExtensionVersion"] == "1.2.0"  # Active at 1.0.0 was not the update's end
    stubber.add_response("describe_cluster_extension", _details("CreateFailed"), PARAMS)
    with pytest.raises(WaitFailed, match="CreateFailed"):
        wait(
            client, "c", EXTENSION_WAITER, timeout=600, poll_seconds=1, sleep=lambda s: None, config=extension_waiter(False), params=PARAMS
        )
    stubber.add_response("describe_cluster_extension", _details("Deleting"), PARAMS)
    stubber.add_client_error("describe_cluster_extension", "ResourceNotFound", "gone", expected_params=PARAMS)
    gone = wait(
        client, "c", EXTENSION_WAITER, timeout=600, poll_seconds=1, sleep=lambda s: None, config=extension_waiter(True), params=PARAMS
    )
    assert gone["Error"]["Code"] == "ResourceNotFound"
