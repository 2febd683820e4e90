"""A cloud, defined once (core/cloud.py) and one apply contract (core/contract.py): the registry
finds both clouds, each implements the interface, a spec document names its cloud, both clouds'
apply raise and return the contract's own types, and the options are checked once."""

from __future__ import annotations

import dataclasses
import json

import pytest

from pulumi_hyperpod.core import cloud, contract
from tests.support.paths import EXAMPLES


def test_the_registry_finds_both_clouds_and_each_implements_the_interface():
    assert cloud.names() == ("aws", "gcp")
    for name in cloud.names():
        found = cloud.get(name)
        assert isinstance(found, cloud.Cloud) and found.name == name and found.title
    with pytest.raises(cloud.UnknownCloud, match="the clouds are aws, gcp"):
        cloud.get("azure")


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("specs/seed004-initial.json", "aws"),
        ("specs/seed001-eks-continuous.json", "aws"),
        ("gcp-training-cluster/cluster.json", "gcp"),
    ],
)
def test_a_spec_document_names_its_cloud(spec, expected):
    assert cloud.for_document(json.loads((EXAMPLES / spec).read_text())).name == expected
    assert cloud.for_document("not a mapping").name == "aws"  # whose loader explains the error


def test_both_clouds_apply_under_one_contract():
    from pulumi_hyperpod.aws import apply as aws_apply
    from pulumi_hyperpod.gcp import apply as gcp_apply

    for name in ("PlanRefused", "PlanStale", "ApplyError", "ApplyResult", "ApplyOptions"):
        assert getattr(aws_apply, name) is getattr(contract, name) is getattr(gcp_apply, name), name
    assert not issubclass(contract.PlanStale, contract.PlanRefused)  # a stale plan is re-planned, not a guard's verdict
    assert issubclass(contract.ConcurrentChange, contract.ApplyError)


def test_one_wait_vocabulary():
    from pulumi_hyperpod.aws.apply.waiters import WAIT_POLICIES

    assert tuple(WAIT_POLICIES) == contract.WAITS  # AWS maps each to a botocore waiter
    assert not contract.ApplyOptions(wait="none").waits and contract.ApplyOptions().waits


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"wait": "forever"}, "wait must be one of none, InService, MinCount, Target"),
        ({"timeout": 0}, "timeout must be more than 0"),
        ({"timeout": float("inf")}, "timeout must be more than 0"),
    ],
)
def test_apply_options_are_checked_once(options, message):
    with pytest.raises(ValueError, match=message):
        contract.ApplyOptions(**options)


def test_prepare_offline_says_the_preflight_was_skipped_for_either_cloud():
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.gcp.spec import ClusterSpec as GcpSpec
    from pulumi_hyperpod.plans.policy import Policy

    for name, spec in (
        ("aws", ClusterSpec.from_file(str(EXAMPLES / "specs/seed004-initial.json"))),
        ("gcp", GcpSpec.from_file(str(EXAMPLES / "gcp-training-cluster/cluster.json"))),
    ):
        prepared = cloud.prepare(cloud.get(name), None, spec, Policy(), observed=None, skip_preflight="offline")
        assert prepared.cloud == name and prepared.plan.action == "create"
        assert prepared.plan.preflight.skipped == "offline" and prepared.plan.cost is not None


class _Recording:
    """A cloud that records the order of the pipeline's calls and the context each one saw."""

    name, title = "recording", "a recording cloud"

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def owns(self, document):
        return False

    def connect(self, backend):
        return object()

    def load_spec(self, path, **context):
        raise NotImplementedError

    def read(self, client, name):
        self.calls.append(("read", name))
        return "observed"

    def read_inputs(self, client, request):
        self.calls.append(("read_inputs", request.context))
        return dataclasses.replace(request, observed=request.observed + "+tags", context={**request.context, "learnt": True})

    def plan(self, request):
        from pulumi_hyperpod.plans.model import Plan

        self.calls.append(("plan", (request.observed, request.context)))
        return Plan(cluster_name="c", action="none" if request.desired is None else "update")

    def annotate(self, plan, request):
        self.calls.append(("annotate", request.context))
        return plan

    def preflight(self, plan, request, client):
        self.calls.append(("preflight", request.context))
        return plan

    def apply(self, client, request):
        self.calls.append(("apply", (request.policy, request.context)))
        return contract.ApplyResult(request.plan.cluster_name)

    def import_(self, client, name):
        return self.read(client, name)

    def save_plan(self, prepared, path, *, target=None, inputs=()):
        raise NotImplementedError

    def load_plan(self, path, *, target=None):
        raise NotImplementedError


def test_the_pipeline_calls_each_hook_once_in_order_and_keeps_the_context():
    """read → read_inputs → plan → annotate → preflight; the context read_inputs returns is the one
    every later stage sees, is kept in the Prepared plan, and is what execute applies with."""
    from types import SimpleNamespace

    from pulumi_hyperpod.plans.policy import Policy

    recording = _Recording()
    assert isinstance(recording, cloud.Cloud)
    policy = Policy()
    prepared = cloud.prepare(recording, object(), SimpleNamespace(name="c"), policy, context={"given": 1})
    learnt = {"given": 1, "learnt": True}
    assert recording.calls == [
        ("read", "c"),
        ("read_inputs", {"given": 1}),
        ("plan", ("observed+tags", learnt)),
        ("annotate", learnt),
        ("preflight", learnt),
    ]
    assert (prepared.cloud, prepared.observed, prepared.context, prepared.policy) == ("recording", "observed+tags", learnt, policy)
    recording.calls.clear()
    cloud.execute(recording, object(), prepared)
    assert recording.calls == [("apply", (policy, learnt))]
    recording.calls.clear()
    deleted = cloud.deletion(recording, object(), "c", policy, observed="there")
    assert (deleted.plan.action, deleted.desired, deleted.observed) == ("none", None, "there")
    assert recording.calls == [("plan", ("there", None))]  # nothing read, no preflight: a delete adds nothing


def test_a_saved_plan_is_loaded_by_the_cloud_it_names(tmp_path, monkeypatch):
    """core.planfile.load reads the envelope's cloud and asks that cloud's load_plan."""
    from pulumi_hyperpod.core import planfile

    asked: list[tuple[str, str]] = []
    for name in cloud.names():
        monkeypatch.setattr(type(cloud.get(name)), "load_plan", lambda self, path, *, target=None: asked.append((self.name, path)))
    for name in cloud.names():
        path = tmp_path / f"{name}.json"
        planfile.write(path, planfile.seal(name, {"cluster_name": "c", "plan": {}}))
        planfile.load(path)
        assert asked[-1] == (name, str(path))
    planfile.load(tmp_path / "missing.json")  # names no cloud: the last of the detection order explains
    assert asked[-1] == (cloud.DETECTION_ORDER[-1], str(tmp_path / "missing.json"))


def test_each_cloud_parameterises_the_generic_cloud_with_its_own_types():
    """Cloud[Spec, State, Client, Context]: each implementation names its real types (mypy strict
    checks every method against them, scripts/lint)."""
    import typing

    from pulumi_hyperpod.aws.cloud import AwsCloud
    from pulumi_hyperpod.aws.context import AwsContext
    from pulumi_hyperpod.gcp.cloud import GcpCloud

    def named(argument):
        return argument.__forward_arg__ if isinstance(argument, typing.ForwardRef) else argument

    for implementation, expected in (
        (AwsCloud, ["ClusterSpec", "ClusterState", "SageMakerClient", AwsContext]),
        (GcpCloud, ["ClusterSpec", "GcpClusterState", "TrainingClusterClient", type(None)]),
    ):
        (base,) = [b for b in implementation.__orig_bases__ if typing.get_origin(b) is cloud.Cloud]
        assert [named(a) for a in typing.get_args(base)] == expected


def test_scripts_lint_checks_exactly_the_strict_list():
    """The files scripts/lint gives mypy are the modules pyproject.toml makes strict, and each exists."""
    import re
    import shlex
    import tomllib

    root = EXAMPLES.parent
    lint = (root / "scripts" / "lint").read_text().replace("\\\n", " ")
    (command,) = [line for line in lint.splitlines() if " -m mypy " in line]
    paths = [word for word in shlex.split(command) if word.startswith("pulumi_hyperpod")]
    assert all((root / path).exists() for path in paths), paths
    checked = set()
    for path in paths:
        module = re.sub(r"(/__init__)?\.py$", "", path).replace("/", ".")
        checked |= {module} if path.endswith(".py") else {module, f"{module}.*"}
    overrides = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["mypy"]["overrides"]
    (strict,) = [set(o["module"]) for o in overrides if o.get("strict")]
    assert checked == strict
