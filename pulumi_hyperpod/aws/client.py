"""The one way to get a client: always a real botocore `sagemaker` client (the one boto3 hands out).

The backend only decides what answers it: AWS, or the simulator attached at botocore's HTTP layer
(`before-send`), so serialization, pagination, error parsing and retries are the same code in tests
as in production, previews included.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.core import backends
from pulumi_hyperpod.aws.sessions import new_botocore_session

if TYPE_CHECKING:  # pragma: no cover
    from botocore.config import Config

    from pulumi_hyperpod.sim.aws import Simulator

BACKENDS = backends.names("aws")  # ("aws", "fake"); "sim" is the simulator's alias
DEFAULT_REGION = "us-west-2"


def client_config(retry_mode: str = "standard", max_attempts: int | None = None) -> Config:
    """botocore's own retry modes (standard or adaptive) instead of hand-written retry loops."""
    from botocore.config import Config  # noqa: PLC0415 - botocore only once a client is made (tests/unit/provider/test_program_lean.py)

    return Config(retries={"mode": retry_mode, "max_attempts": retry_attempts(max_attempts)}, user_agent_extra="pulumi-hyperpod")


def retry_attempts(max_attempts: int | None = None) -> int:
    """The retries `client_config` allows (botocore's `max_attempts`: retries after the first attempt)."""
    from pulumi_hyperpod.core import envvars  # noqa: PLC0415 - a program declaring a cluster reads no setting (test_program_lean)

    return max_attempts or int(envvars.number("HYPERPOD_MAX_ATTEMPTS", 8, integer=True, minimum=1))


def default_poll_seconds(backend: str) -> float:
    """How often a wait polls: the waiter model's delay on AWS. A persistent simulator world runs at its
    scenario's speed while a client polls it (0.2 s of polling is two virtual minutes at 600x), so short
    polls keep a simulated wait short in real time."""
    from pulumi_hyperpod.core import envvars  # noqa: PLC0415 - a program declaring a cluster reads no setting (test_program_lean)

    return envvars.number("HYPERPOD_POLL_SECONDS", 0.2 if backends.is_simulated("aws", backend) else 30.0)  # 0: no pause between polls


def poll_seconds_for(client: Any) -> float | None:
    """How often a wait on `client` polls when the caller does not say: the simulator's short poll for a
    client `connect(backend="fake")` made (its persistent world runs at speed only while polled), else
    None: the waiter model's delay, as on AWS."""
    return default_poll_seconds("fake") if getattr(client.meta, "hyperpod_simulated", False) else None


def connect(
    backend: str = "aws",
    region: str | None = None,
    profile: str | None = None,
    *,
    simulator: Simulator | None = None,
    retry_mode: str = "standard",
    max_attempts: int | None = None,
    service: str = "sagemaker",
    endpoint_url: str | None = None,
    access_key: tuple[str, str] | None = None,
) -> Any:
    """A client for `service` ("sagemaker", or "service-quotas" for preflight checks): botocore's
    client class, the object `boto3.client(service)` returns, made without importing boto3.

    backend="aws": credentials come from the usual boto3/botocore chain (environment, profile, role).
    backend="fake" (or "sim"; core/backends.py names each backend's factory): the simulator answers; `simulator` is an in-process world, else the persistent
    world at $HYPERPOD_FAKE_STATE (default `.hyperpod/fake.sqlite` in the working directory).
    `endpoint_url` (backend="aws"): where the calls go instead of AWS, e.g. `hyperpod fake serve`.
    `access_key` (key id, secret): this client's credentials instead of the chain's; the simulator
    reads a 12-digit key id as that account (a fleet's account, docs/simulator.md "Several accounts").
    """
    chosen = backends.resolve("aws", backend)  # core/backends.py: "aws", or the simulator ("fake", "sim")
    if endpoint_url and chosen.simulated:
        raise ValueError(
            "--endpoint-url sends the calls over HTTP (--backend aws); --backend fake answers them in this process: give one or the other"
        )
    if simulator is not None and not chosen.simulated:  # never a real-cloud client for a program that meant the simulator
        raise ValueError(f"simulator= is answered by backend='fake' (or 'sim'), not backend={backend!r}: give backend='fake'")
    retry_attempts(max_attempts)  # a bad $HYPERPOD_MAX_ATTEMPTS: its error before anything is opened
    made: Any = chosen.load()(
        region=region,
        profile=profile,
        simulator=simulator,
        retry_mode=retry_mode,
        max_attempts=max_attempts,
        service=service,
        endpoint_url=endpoint_url,
        access_key=access_key,
    )
    return made


def simulated_client(
    *,
    region: str | None,
    simulator: Simulator | None,
    retry_mode: str,
    max_attempts: int | None,
    service: str,
    access_key: tuple[str, str] | None = None,
    **_: Any,
) -> Any:
    """backend="fake": the simulator's client (`simulator`, else the persistent world at $HYPERPOD_FAKE_STATE)."""
    from pulumi_hyperpod.sim.aws import Simulator  # noqa: PLC0415 - the simulator only for a simulated backend: a real client loads none of it

    world = simulator if simulator is not None else Simulator.open_default()
    client = world.client(
        service=service, region=region or DEFAULT_REGION, config=client_config(retry_mode, max_attempts), access_key=access_key
    )
    # a persistent world runs at speed only while polled: waits on it poll fast (poll_seconds_for);
    # an in-memory world's clock moves only when told (tests pass sleep=sim.advance)
    client.meta.hyperpod_simulated = world.path is not None
    if world.path is not None:  # its clock runs ahead while waited on: a plan says so (aws/stages.read_inputs)
        client.meta.hyperpod_clock_note = world.clock_note
    return client


def service_client(
    *,
    region: str | None,
    profile: str | None,
    retry_mode: str,
    max_attempts: int | None,
    service: str,
    endpoint_url: str | None,
    access_key: tuple[str, str] | None = None,
    **_: Any,
) -> Any:
    """backend="aws": botocore's client for `service`, credentials from the usual chain."""
    session = new_botocore_session()
    if profile:
        session.set_config_variable("profile", profile)
    # botocore's create_client is what boto3's Session.client calls; boto3 adds nothing to these
    # services' clients, and importing it (with s3transfer) costs every process 0.15 s
    config = client_config(retry_mode, max_attempts)
    key_id, secret = access_key or (None, None)
    return session.create_client(
        service,
        region_name=region,
        config=config,
        endpoint_url=endpoint_url or None,
        aws_access_key_id=key_id,
        aws_secret_access_key=secret,
    )
