"""Where a provider method gets its client, built fresh inside every call.

The provider is pickled into the Pulumi state, so it holds no client, session, simulator or
credential — only names. Clients come from `client.connect` with the resolved Location; boto3
reads credentials from its usual chain at that moment.

Tests hand the provider an in-memory simulator through a registry keyed by a name: the provider
keeps the name (a plain string), the registry keeps the simulator (in this process only). An
in-memory world's clock moves only when advanced, so waits run on that clock: `sleep` advances it.
The persistent world (backend "fake" without a registered name) runs on real time, faster.
"""

from __future__ import annotations

from dataclasses import dataclass
import threading
import time
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.provider.settings import Location

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws import Simulator

_SIMULATORS: dict[str, Simulator] = {}
_LOCK = threading.Lock()

# Polling interval on the persistent simulator: its virtual time runs many times faster than real
# time, so the waiters' 30 s (right for AWS) would only add latency.
FAKE_POLL_SECONDS = 1.0


def register_simulator(name: str, simulator: Simulator) -> None:
    with _LOCK:
        _SIMULATORS[name] = simulator


def unregister_simulator(name: str) -> None:
    with _LOCK:
        _SIMULATORS.pop(name, None)


def registered(name: str) -> Simulator:
    with _LOCK:
        simulator = _SIMULATORS.get(name)
    if simulator is None:
        raise LookupError(f"no simulator registered as {name!r} in this process")
    return simulator


@dataclass(frozen=True, slots=True)
class Clock:
    """How apply sleeps and reads time for this backend."""

    sleep: Callable[[float], Any] = time.sleep
    monotonic: Callable[[], float] = time.monotonic
    poll_seconds: float | None = None


def open_backend(location: Location, simulator: str | None = None) -> tuple[Any, Clock]:
    """A sagemaker client for the location, and the clock its waits run on."""
    if location.backend == "fake" and simulator is not None:
        world = registered(simulator)
        client = connect("fake", location.region, simulator=world)
        return client, Clock(sleep=world.advance, monotonic=_virtual_now(world))
    client = connect(location.backend, location.region, location.profile)
    if location.backend == "fake":
        return client, Clock(poll_seconds=FAKE_POLL_SECONDS)
    return client, Clock()


def open_service(location: Location, service: str, simulator: str | None = None) -> Any:
    """A client of another service for the location, built like the sagemaker one: service-quotas
    (preflight), s3 (the lifecycle bundle that states a legacy Slurm cluster's roles)."""
    world = registered(simulator) if location.backend == "fake" and simulator is not None else None
    return connect(location.backend, location.region, location.profile, simulator=world, service=service)


def _virtual_now(world: Any) -> Callable[[], float]:
    """The simulator's virtual time, in seconds (it reports a datetime)."""
    return lambda: world.now().timestamp()
