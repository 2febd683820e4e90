"""The full list behind a preview's capped removed-nodes table.

A scale-in of thousands of nodes shows its first rows in the preview (plans/render.py); the engine
prints provider text twice and keeps it in its logs, so the whole list goes to a file instead, named
in the preview: `.hyperpod/plans/<cluster>-victims.json` under the directory the engine runs the
provider in (the project's). It is rewritten by every preview that caps the table. A directory that
cannot be written leaves the preview pointing at `hyperpod plan --json`.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

from pulumi_hyperpod.sim.worldfile import paths_in_use
from pulumi_hyperpod.core.files import Input, write_whole

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans import Plan

DIRECTORY = Path(".hyperpod") / "plans"


def victims_path(cluster: str, base: Path | None = None) -> Path:
    return ((base or Path.cwd()) / DIRECTORY / f"{cluster}-victims.json").absolute()


def write_victims(the_plan: Plan, base: Path | None = None) -> Path | None:
    """The plan's removed nodes, in the order they go, as JSON; the file's path, or None when it
    could not be written."""
    path = victims_path(the_plan.cluster_name or "cluster", base)
    document = {
        "cluster": the_plan.cluster_name,
        "count": len(the_plan.victims),
        "victims": [asdict(victim) for victim in the_plan.victims],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # never over one of the simulators' files (a world placed there): refused, the preview points elsewhere
        write_whole(path, json.dumps(document, indent=1), inputs=[Input(file, label) for file, label in paths_in_use()])
    except OSError:
        return None
    return path
