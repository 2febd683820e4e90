"""Module paths of the previous release (0.1.0 before issue 38's layout), for one release more.

`import pulumi_hyperpod.aws.fake` (and every module under it) is the module at its new path,
`pulumi_hyperpod.sim.aws` — the same module object, not a copy, so classes, pickles and
isinstance agree — with one DeprecationWarning naming the new path. A `sys.meta_path` finder
placed first (so a submodule of an old path is never loaded again under the old name) answers
only names under an old path; every other import passes through it untouched.

`pulumi_hyperpod.plan` is the exception: it is the planner function now (`from pulumi_hyperpod
import plan`); the Plan model it used to be is `pulumi_hyperpod.plans`, and an import of the old
package path fails with one line saying so (CHANGELOG.md, docs/python-api.md).
"""

from __future__ import annotations

import importlib
import sys
import warnings
from importlib.machinery import ModuleSpec
from importlib.util import find_spec, spec_from_file_location
from types import ModuleType
from typing import TYPE_CHECKING, cast
from collections.abc import Sequence

if TYPE_CHECKING:  # pragma: no cover
    from importlib.abc import Loader

PACKAGE = "pulumi_hyperpod"

# old path → new path, both under the package; a package's modules move with it (the longest old
# prefix wins: `workload.fake` before `workload`). The layout commit's MOVES, and `fake`, the
# simulator's path before it moved under `aws/`.
MOVED = {
    "fake": "sim.aws",
    "aws.fake": "sim.aws",
    "gcp.fake": "sim.gcp",
    "workload.fake": "sim.workload",
    "core.clock": "sim.clock",
    "core.worldfile": "sim.worldfile",
    "simserver": "sim.server",
    "serveio": "sim.serveio",
    "workload.hostlist": "slurm.hostlist",
    "workload": "aws.workload",
    "members": "aws.members",
    "timeline": "aws.timeline",
    **{
        f"slurm.{name}": f"aws.slurm.{name}"
        for name in "render hook changes roles migration observed section upload bundle_files hyperpod".split()
    },
    "aws.clusterspec": "aws.spec",
    "gcp.keys": "gcp.spec.keys",
    "gcp.limits": "gcp.spec.limits",
    "gcp.names": "gcp.spec.names",
    "gcp.proto3": "gcp.spec.proto3",
    "gcp.rules": "gcp.spec.rules",
    "gcp.detect": "core.detect",
    "gcp.slurm_bridge": "gcp.spec.slurm_bridge",
    "gcp.compare": "gcp.planner.compare",
    "gcp.plan_build": "gcp.planner.build",
    "gcp.saved": "gcp.pipeline.saved",
    "files": "core.files",
    "terminal": "core.terminal",
    "envvars": "core.envvars",
    "collector": "core.collector",
    "cli.fake_gcp": "cli.sim_gcp_commands",
}
# an old path that cannot be kept, and what to import instead
GONE = {
    "plan": "pulumi_hyperpod.plan is the planner function now (from pulumi_hyperpod import plan); "
    "the Plan model moved to pulumi_hyperpod.plans (from pulumi_hyperpod.plans import Plan)",
}


def moved_entry(fullname: str) -> tuple[str, str] | None:
    """The MOVED entry `fullname` is under (old, new, both relative), or None: the longest old prefix."""
    if not fullname.startswith(PACKAGE + "."):
        return None
    parts = fullname[len(PACKAGE) + 1 :].split(".")
    for end in range(len(parts), 0, -1):
        old = ".".join(parts[:end])
        if old in MOVED:
            return old, MOVED[old]
    return None


def new_path(fullname: str) -> str | None:
    """The new path of a module under an old one (`pulumi_hyperpod.aws.fake.store` →
    `pulumi_hyperpod.sim.aws.store`), or None when `fullname` is not under an old path."""
    entry = moved_entry(fullname)
    if entry is None:
        return None
    old, new = entry
    return f"{PACKAGE}.{new}{fullname[len(PACKAGE) + 1 + len(old) :]}"


class _Alias:
    """A loader whose module is the one already at the new path."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        return self.module  # its own __name__, __spec__ and __path__ are kept (import sets only missing ones)

    def exec_module(self, module: ModuleType) -> None:
        """Already run, at its new path."""


_warned: set[str] = set()  # the MOVED entries warned about in this process


def _warn(entry: tuple[str, str]) -> None:
    """One warning per moved path, not one more for each module under it."""
    if entry[0] in _warned:
        return
    _warned.add(entry[0])
    warnings.warn(
        f"{PACKAGE}.{entry[0]} is deprecated: it moved to {PACKAGE}.{entry[1]} (the old path goes in the next release)",
        DeprecationWarning,
        stacklevel=3,  # the importer's line: warnings skips the import machinery's frames
    )


class MovedFinder:
    """Answers the old paths (first on `sys.meta_path`); None for everything else."""

    @staticmethod
    def find_spec(fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None) -> ModuleSpec | None:
        if not fullname.startswith(PACKAGE + "."):
            return None
        old = fullname[len(PACKAGE) + 1 :]
        gone = GONE.get(old.split(".")[0])
        if gone is not None:
            raise ModuleNotFoundError(gone, name=fullname)
        entry = moved_entry(fullname)
        if entry is None:
            return None
        new = new_path(fullname)
        assert new is not None
        if fullname.rpartition(".")[2] == "__main__":  # `python -m <old path>`: runpy runs the new file's code
            _warn(entry)
            found = find_spec(new)
            return spec_from_file_location(fullname, found.origin) if found and found.origin else None
        module = importlib.import_module(new)
        _warn(entry)
        spec = ModuleSpec(fullname, cast("Loader", _Alias(module)), is_package=hasattr(module, "__path__"))
        if spec.submodule_search_locations is not None:
            spec.submodule_search_locations = list(module.__path__)
        return spec


def install() -> None:
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.insert(0, MovedFinder())
