"""The native provider's create preview (issue 39): its `check` of a new resource fails, as its
`create` does, on a name already taken — with the hint in the native provider's words, which name
the `adopt` input in each SDK's spelling (the engine does not tell a provider its program's
language) — and says an unknown name is unchecked."""

from __future__ import annotations

import pytest
from pulumi.provider.experimental.property_value import PropertyValue
from pulumi.provider.experimental.provider import CheckRequest, CreateRequest

from pulumi_hyperpod import connect
from pulumi_hyperpod.core.messages import CLUSTER_NAME_TAKEN
from pulumi_hyperpod.native.server import user_message
from pulumi_hyperpod.provider import ProviderError

from .conftest import on_wire, run, slurm_spec


def check(h, news):
    return run(h.provider.check(CheckRequest(h.urn, {}, news, b"")))


def test_a_taken_name_fails_the_preview_with_the_adopt_input_in_every_sdks_spelling(harness) -> None:
    free = check(harness, on_wire({"spec": slurm_spec(1)}))  # checked while the name is free
    client = connect("fake", simulator=harness.simulator)
    cluster = client.describe_cluster(ClusterName=client.create_cluster(**slurm_spec(2))["ClusterArn"])
    expected = CLUSTER_NAME_TAKEN.text(
        "native", name="native-cluster", where="us-west-2 (simulator)", arn=cluster["ClusterArn"], status=cluster["ClusterStatus"]
    )
    with pytest.raises(ProviderError) as previewed:
        check(harness, on_wire({"spec": slurm_spec(1)}))
    assert user_message(previewed.value) == expected
    assert "adopt: true in TypeScript and YAML" in expected and "Adopt: pulumi.Bool(true) in Go" in expected
    with pytest.raises(ProviderError) as created:  # `up`: the create refuses with the same line
        run(harness.provider.create(CreateRequest(harness.urn, free.inputs, 0, False)))
    assert user_message(created.value) == expected


def test_an_unknown_cluster_name_is_said_to_be_unchecked(harness) -> None:
    news = on_wire({"spec": slurm_spec(1)})
    spec = dict(news["spec"].value)
    spec["ClusterName"] = PropertyValue.computed()
    result = check(harness, {**news, "spec": PropertyValue(spec)})
    assert not result.failures
    assert "not checked yet: the region, the credentials and whether the cluster's name is free" in harness.said()
