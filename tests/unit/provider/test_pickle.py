"""The provider is pickled into the state (dill, as the SDK does): no client, no credential."""

from __future__ import annotations

import base64
import concurrent.futures

import dill
from pulumi.dynamic import Config, ConfigureRequest
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_hyperpod.provider import ClusterProvider, Defaults

from tests.support.provider_specs import slurm_spec

ACCESS_KEY = "AKIAFAKEFAKEFAKE1234"
SECRET_KEY = "fakeSecretKeyValue/ThatMustNeverBeStored+123"
SESSION_TOKEN = "FakeSessionTokenThatMustNeverBeStoredXYZ"


def configured_provider(monkeypatch, simulator_name: str) -> ClusterProvider:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.setenv("AWS_SESSION_TOKEN", SESSION_TOKEN)
    provider = ClusterProvider(simulator=simulator_name)
    raw = {"hyperpod:region": "us-east-2", "aws:profile": "training", "demo:workerCount": "3"}
    provider.configure(ConfigureRequest(Config(raw_config=raw, project_name="demo")))
    return provider


def test_pickle_holds_no_client_and_no_credential(monkeypatch, engine, sim, simulator_name):
    provider = configured_provider(monkeypatch, simulator_name)
    # Use it first (clients are built inside the calls), then pickle it as the SDK does.
    engine.provider = provider
    arn, outputs = engine.create({"spec": slurm_spec(), "backend": "fake"})
    engine.read(arn, outputs)
    blob = base64.b64decode(serialize_provider(provider))

    for secret in (ACCESS_KEY, SECRET_KEY, SESSION_TOKEN):
        assert secret.encode() not in blob
    for marker in (b"botocore", b"boto3", b"Session", b"Credentials", b"BaseClient", b"sqlite"):
        assert marker not in blob, marker

    restored = dill.loads(blob)
    assert isinstance(restored, ClusterProvider)
    assert restored.defaults == Defaults(backend=None, region="us-east-2", profile="training")
    assert restored.simulator == simulator_name  # a name; the simulator stays in this process
    assert set(vars(restored)) == {"simulator", "defaults"}


def test_the_pickled_provider_is_small_and_stable():
    first = serialize_provider(ClusterProvider())
    assert first == serialize_provider(ClusterProvider())  # no diff of __provider between runs
    assert len(first) < 2000  # the class goes by reference, not by value


def test_concurrent_checks_share_one_provider(engine):
    """The provider server calls one cached provider from several threads."""
    specs = [slurm_spec(workers=n, name=f"cluster-{n}") for n in range(1, 9)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda s: engine.check({"spec": s, "backend": "fake"}, olds={"spec": s}), specs))
    assert [r.inputs["spec"]["InstanceGroups"][1]["InstanceCount"] for r in results] == list(range(1, 9))
    assert all(not r.failures for r in results)


def test_the_gcp_provider_pickles_by_both_its_paths_and_holds_nothing():
    """Stacks made before the move hold `pulumi_hyperpod.gcp.provider.GcpClusterProvider`: the same class."""
    from pulumi_hyperpod.gcp.provider import GcpClusterProvider as Before
    from pulumi_hyperpod.provider.gcp import GcpClusterProvider

    assert Before is GcpClusterProvider
    restored = dill.loads(base64.b64decode(serialize_provider(GcpClusterProvider())))
    assert type(restored) is GcpClusterProvider and vars(restored) == {}
    assert len(serialize_provider(GcpClusterProvider())) < 2000


# A configured ClusterProvider as the release before issue 38 pickled it into a stack's state
# (serialize_provider; Defaults was a core/frozen.py record, its state a dict of its fields).
PREVIOUS_RELEASE = (
    "gASV0AAAAAAAAACMIXB1bHVtaV9oeXBlcnBvZC5wcm92aWRlci5wcm92aWRlcpSMD0NsdXN0ZXJQcm92aWRlcpSTlCmBlH2UKIwIZGVmYXVsdHOUjCFwdWx1"
    "bWlfaHlwZXJwb2QucHJvdmlkZXIuc2V0dGluZ3OUjAhEZWZhdWx0c5STlCmBlH2UKIwHYmFja2VuZJROjAdwcm9maWxllIwIdHJhaW5pbmeUjAZyZWdpb26UjAl1"
    "cy1lYXN0LTKUdWKMCXNpbXVsYXRvcpSMB3dvcmxkLTGUdWIu"
)


def test_a_provider_pickled_by_the_previous_release_keeps_its_defaults_by_name():
    restored = dill.loads(base64.b64decode(PREVIOUS_RELEASE))
    assert isinstance(restored, ClusterProvider) and restored.simulator == "world-1"
    assert restored.defaults == Defaults(backend=None, region="us-east-2", profile="training")
    again = dill.loads(base64.b64decode(serialize_provider(restored)))  # and the state it writes now reads back
    assert again.defaults == restored.defaults
