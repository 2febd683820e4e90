"""The Google Cloud client protocol (gcp/clients.py) against its implementation: the client `connect`
makes satisfies it, and every method it names has GcpClient's parameters (a protocol that drifted
from the class would type-check callers against calls the client does not take)."""

from __future__ import annotations

import inspect

from pulumi_hyperpod.gcp.client import GcpClient
from pulumi_hyperpod.gcp.clients import TrainingClusterClient

METHODS = [name for name, value in vars(TrainingClusterClient).items() if callable(value) and not name.startswith("_")]


def test_the_client_connect_makes_satisfies_the_protocol(client):
    assert isinstance(client, TrainingClusterClient)


def test_every_method_the_protocol_names_has_the_clients_parameters():
    assert {"find_cluster", "create_cluster", "patch_cluster", "delete_cluster", "wait_operation", "get_region"} <= set(METHODS)
    for name in METHODS:
        ours = inspect.signature(getattr(TrainingClusterClient, name))
        theirs = inspect.signature(getattr(GcpClient, name))
        assert list(ours.parameters) == list(theirs.parameters), name
        assert [p.default for p in ours.parameters.values()] == [p.default for p in theirs.parameters.values()], name


def test_the_attributes_the_protocol_names_are_the_clients_fields():
    named = set(TrainingClusterClient.__annotations__) | {n for n, v in vars(TrainingClusterClient).items() if isinstance(v, property)}
    assert {"backend", "poll_seconds", "sleep", "monotonic"} <= named
    assert named <= set(GcpClient.__dataclass_fields__)


def test_an_object_without_the_calls_is_not_a_client():
    assert not isinstance(object(), TrainingClusterClient)
