"""The REST client's edges with a scripted transport: retries on reads only, error bodies that are
not google.rpc.Status, URL building, and no credentials → one clear message."""

from __future__ import annotations

import json

import pytest
import requests
from requests.adapters import BaseAdapter

from pulumi_hyperpod.gcp import client as gcp_client
from pulumi_hyperpod.gcp.client import GcpApiError, GcpClient

NAME = "projects/p/locations/europe-west4/modelDevelopmentClusters/c1"


class Scripted(BaseAdapter):
    """Answers with the (status, body) pairs given, in order; records the requests."""

    def __init__(self, *answers: tuple[int, object]) -> None:
        super().__init__()
        self.answers = list(answers)
        self.seen: list[tuple[str, str]] = []

    def send(self, request, **_kwargs):
        self.seen.append((request.method, request.url))
        status, body = self.answers.pop(0)
        response = requests.Response()
        response.status_code = status
        response._content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
        response.request, response.url = request, request.url
        return response

    def close(self) -> None:
        pass


def client_with(adapter: Scripted) -> GcpClient:
    session = requests.Session()
    session.mount("https://", adapter)
    return GcpClient(session, endpoint=gcp_client.DEFAULT_ENDPOINT, poll_seconds=0, sleep=lambda _s: None)


def test_regional_v1beta1_url():
    adapter = Scripted((200, {"name": NAME}))
    client_with(adapter).get_cluster(NAME)
    assert adapter.seen == [("GET", f"https://europe-west4-aiplatform.googleapis.com/v1beta1/{NAME}")]


def test_reads_retry_on_unavailable_writes_do_not():
    adapter = Scripted((503, "<html>busy</html>"), (200, {"name": NAME}))
    assert client_with(adapter).get_cluster(NAME) == {"name": NAME}
    adapter = Scripted((503, "<html>busy</html>"), (200, {}))
    with pytest.raises(GcpApiError) as caught:
        client_with(adapter).delete_cluster(NAME)
    assert caught.value.http_status == 503 and caught.value.status == "UNKNOWN" and "<html>busy</html>" in str(caught.value)
    assert len(adapter.seen) == 1


def test_status_body_becomes_a_readable_error():
    body = {"error": {"code": 403, "status": "PERMISSION_DENIED", "message": "Permission 'aiplatform.x' denied"}}
    with pytest.raises(GcpApiError, match=r"GET .*: PERMISSION_DENIED \(403\): Permission 'aiplatform.x' denied"):
        client_with(Scripted((403, body))).get_cluster(NAME)


def test_failed_operation_carries_its_status():
    adapter = Scripted((200, {"name": NAME + "/operations/1", "done": True, "error": {"code": 8, "message": "no capacity"}}))
    client = client_with(adapter)
    with pytest.raises(gcp_client.OperationFailed, match=r"RESOURCE_EXHAUSTED.*no capacity"):
        client.wait_operation({"name": NAME + "/operations/1"}, 60)


def test_not_a_resource_name_is_refused_before_a_call():
    with pytest.raises(ValueError, match="not a projects/P/locations/L"):
        client_with(Scripted()).get_cluster("clusters/c1")


def test_no_credentials_is_one_clear_message(monkeypatch):
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    def missing(**_kwargs):
        raise DefaultCredentialsError("none")

    monkeypatch.setattr(google.auth, "default", missing)
    with pytest.raises(gcp_client.CredentialsMissing, match="gcloud auth application-default login"):
        gcp_client.connect("gcp")
