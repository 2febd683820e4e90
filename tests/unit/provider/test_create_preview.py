"""A create's preview (issue 39): `check` of a new resource meets what `create` meets before its
first write — the region resolved, the credentials read, the name looked up — through the same call,
and fails with the line `up` fails with; an input that decides those and is not known yet is said
to be unchecked, never passed. Through the real provider, on the simulator."""

from __future__ import annotations

import pytest
from pulumi.output import Unknown

from pulumi_hyperpod import connect
from pulumi_hyperpod.core.messages import CLUSTER_NAME_TAKEN, NO_AWS_CREDENTIALS, NO_AWS_REGION
from pulumi_hyperpod.provider import ClusterProvider, ProviderError
from pulumi_hyperpod.provider.errors import user_message

from tests.support.aws_env import no_aws_config as unset_aws
from tests.support.provider_specs import Engine, mutations, props, slurm_spec, wire


@pytest.fixture
def no_aws_config(monkeypatch, tmp_path):
    """No region and no credentials anywhere botocore looks (and no instance metadata to ask)."""
    unset_aws(monkeypatch, tmp_path)


def live_cluster(sim, name: str = "demo-cluster") -> dict:
    described = connect("fake", simulator=sim).create_cluster(**slurm_spec(workers=2, name=name))
    sim.advance(3600)
    return connect("fake", simulator=sim).describe_cluster(ClusterName=described["ClusterArn"])


def test_a_taken_name_fails_the_preview_with_the_line_up_gives(engine, sim):
    cluster = live_cluster(sim)
    before = len(mutations(sim))
    with pytest.raises(ProviderError) as previewed:
        engine.check(props(slurm_spec(workers=3)))
    expected = CLUSTER_NAME_TAKEN.text(
        "python", name="demo-cluster", where="us-west-2 (simulator)", arn=cluster["ClusterArn"], status=cluster["ClusterStatus"]
    )
    assert user_message(previewed.value) == expected
    assert "adopt=True" in expected
    # `up` with inputs checked before the cluster was there: the create refuses with the same line
    inputs = wire(dict(props(slurm_spec(workers=3)), wait="InService", timeout=1200, adopt=False, policy={}), keep_unknowns=False)
    with pytest.raises(ProviderError) as created:
        engine.provider.create(inputs)
    assert user_message(created.value) == expected
    assert len(mutations(sim)) == before  # nothing changed


def test_adopt_previews_the_plan_against_the_cluster_there(engine, sim, capsys):
    live_cluster(sim)
    before = len(mutations(sim))
    engine.check(props(slurm_spec(workers=3), adopt=True))
    printed = capsys.readouterr().err
    assert "adopting arn:aws:sagemaker:" in printed
    assert "BatchAddClusterNodes" in printed and "CreateCluster" not in printed  # one more worker, Continuous mode
    assert len(mutations(sim)) == before


def test_a_free_name_previews_the_creation_plan_after_one_read(engine, sim, capsys):
    engine.check(props(slurm_spec(workers=2)))
    assert [op for op, _ in sim.calls] == ["DescribeCluster"]
    assert "CreateCluster" in capsys.readouterr().err


def test_no_region_fails_the_preview_with_the_line_up_gives(no_aws_config, capsys):
    engine = Engine(ClusterProvider())
    with pytest.raises(Exception) as previewed:
        engine.check({"spec": slurm_spec(), "backend": "aws"})
    assert user_message(previewed.value) == NO_AWS_REGION.text("python")
    assert "us-west-2" not in capsys.readouterr().err  # no plan priced in a region `up` would not use
    with pytest.raises(Exception) as created:
        engine.provider.create(wire({"spec": slurm_spec(), "backend": "aws", "wait": "InService", "timeout": 1200}, keep_unknowns=False))
    assert user_message(created.value) == NO_AWS_REGION.text("python")


def test_the_region_priced_in_the_preview_is_the_one_create_uses(simulator_name, sim, capsys):
    provider = ClusterProvider(simulator=simulator_name)
    provider.defaults = type(provider.defaults)(region="eu-west-1")
    Engine(provider).check(props(slurm_spec()))
    assert "eu-west-1" in capsys.readouterr().err
    assert sim.calls and all(request.get("ClusterName") == "demo-cluster" for _, request in sim.calls)


def test_no_credentials_fail_the_preview_with_the_line_up_gives(no_aws_config, capsys):
    engine = Engine(ClusterProvider())
    with pytest.raises(Exception) as previewed:
        engine.check({"spec": slurm_spec(), "backend": "aws", "region": "us-west-2"})
    assert user_message(previewed.value) == NO_AWS_CREDENTIALS.text("python")
    with pytest.raises(Exception) as created:
        engine.provider.create(
            wire({"spec": slurm_spec(), "backend": "aws", "region": "us-west-2", "wait": "InService", "timeout": 1200}, keep_unknowns=False)
        )
    assert user_message(created.value) == NO_AWS_CREDENTIALS.text("python")  # not botocore's "Unable to locate credentials"


@pytest.mark.parametrize(
    "unknown",
    [
        lambda: {"spec": {**slurm_spec(), "ClusterName": Unknown()}},
        lambda: {"spec": slurm_spec(), "region": Unknown()},
        lambda: {"spec": slurm_spec(), "adopt": Unknown()},
    ],
    ids=["name", "region", "adopt"],
)
def test_an_unknown_name_region_or_adopt_is_said_to_be_unchecked(engine, sim, capsys, unknown):
    live_cluster(sim)  # the name is taken: a preview that claimed it free would be wrong
    calls = len(sim.calls)
    result = engine.check({"backend": "fake", **unknown()})
    assert result.failures == []
    printed = capsys.readouterr().err
    assert "not checked yet: the region, the credentials and whether the cluster's name is free" in printed
    assert "Plan for cluster" not in printed and len(sim.calls) == calls  # nothing read, nothing claimed


def test_a_replacements_create_is_checked_against_every_cluster_but_the_one_it_replaces(engine, sim, capsys):
    """After a diff says "replace", the engine checks the inputs again as a new resource's while the
    old cluster is still there (delete-before-replace removes it first): that cluster is no obstacle."""
    arn, outputs = engine.create(props(slurm_spec(workers=1), wait="Target"))
    moved = props(slurm_spec(workers=1), policy={"allow_replacement": True})
    moved["spec"]["VpcConfig"]["Subnets"] = ["subnet-87654321"]
    news = engine.checked(moved, outputs)
    assert engine.provider.diff(arn, outputs, news).replaces == ["spec.VpcConfig"]
    capsys.readouterr()
    engine.check(moved)  # the replacement's create, as the engine checks it: no previous inputs
    assert "Plan for cluster demo-cluster: create" in capsys.readouterr().err
    with pytest.raises(ProviderError, match="already exists"):  # only that once: another create of the name is refused
        engine.check(moved)
