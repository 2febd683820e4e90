"""The Google Cloud world under `hyperpod fake` (sim_commands.py): `show` lists it beside the HyperPod
world, `advance` catches it up to the one clock, `reset` deletes it, `capacity` sets a machine type's
nodes. It is `.hyperpod/gcp-fake.sqlite` beside the HyperPod world ($HYPERPOD_GCP_FAKE_STATE to move
it); a world not made yet is not made by looking at it."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from pulumi_hyperpod.sim.worldfile import GCP_WORLD, delete, places


def world_path() -> Path:
    from pulumi_hyperpod.sim.gcp import default_path  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    return default_path()


def _open() -> Any:
    """The persistent world, on the directory's one clock; None when there is none yet."""
    from pulumi_hyperpod.sim.gcp import GcpSimulator  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    return GcpSimulator.open_default() if world_path().is_file() else None


def overview() -> dict[str, Any]:
    """Clusters, states and pools of the Google Cloud world, and its virtual time (None: no world yet)."""
    from pulumi_hyperpod.sim.gcp.world import timestamp  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    sim = _open()
    if sim is None:
        return {"path": str(world_path()), "virtual_time": None, "clusters": []}
    with sim.world() as world:
        return {"path": str(sim.path), "virtual_time": timestamp(world.now), "clusters": world.overview()}


def catch_up() -> None:
    """Run what the one clock has made due (a world follows the clock at its next request anyway;
    this makes `hyperpod fake advance` show it at once)."""
    sim = _open()
    if sim is not None:
        with sim.world():
            pass


def reset() -> bool:
    """Delete the world (True) or find none (False); a file the simulator did not make is refused, kept."""

    return delete(world_path(), GCP_WORLD, places()[1].source)


def is_machine_type(name: str) -> bool:
    """A Google Cloud machine type the simulator knows (sim/gcp/compute.py's catalog)."""
    from pulumi_hyperpod.sim.gcp.compute import shape  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    return shape(name) is not None


def set_capacity(machine_type: str, available: int | None) -> None:
    """The world has `available` nodes of `machine_type` from now on (None: unlimited); made if missing."""
    from pulumi_hyperpod.sim.gcp import GcpSimulator  # noqa: PLC0415 - the simulator: only a command on the simulator loads it (tests/cli_startup)

    with GcpSimulator.open_default().world() as world:
        world.set_capacity(machine_type, available)
