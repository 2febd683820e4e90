"""The import rules of the whole package (docs/DESIGN.md, "Layers"): the core, the Plan model and
the Slurm layer are neutral, HyperPod's planner is pure, each cloud stands on the core and not on
the other cloud, no library module imports a front end or a simulator, and the simulators import
no front end. Every import counts, inside functions too (a lazy import is still a dependency);
TYPE_CHECKING imports count as well. The run-time checks at the end load the modules in a fresh
process and read `sys.modules`: what a user's process really pays for."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from tests.support import imports
from tests.support.fresh import run_fresh

FRONT_ENDS = ("cli", "provider", "native", "components")
CLOUDS = ("aws", "gcp")
NEUTRAL = ("core", "plans", "slurm")
SIMULATORS = ("sim",)
FLEET = "fleet"

# The backend registry connect() reaches a simulator through (issue 38, being built beside this
# test): the one library module that may name `sim`, so that no cloud's client imports its simulator.
BACKEND_REGISTRY = "core.backends"

# (modules the rule is about, imported prefixes they must not use, the exceptions allowed)
RULES = [
    # the neutral layers: what both clouds share; they name no cloud, no simulator and no front end
    # (the cloud registry in core/cloud.py holds module names as strings)
    *[(layer, (*CLOUDS, *SIMULATORS, *FRONT_ENDS), ()) for layer in NEUTRAL],
    # HyperPod's planner is pure: of AWS it reads the observed state, the spec, the service model, the
    # member table and the workload's model (and its name matching); it calls nothing (no client,
    # apply, cost, preflight, pipeline, Slurm files or simulator)
    (
        "aws.planner",
        ("aws",),
        ("aws.planner", "aws.observe", "aws.spec", "aws.servicemodel", "aws.members", "aws.workload.model", "aws.workload.match"),
    ),
    # Google Cloud stands on the core, never on AWS; AWS never reaches into Google Cloud
    ("gcp", ("aws",), ()),
    ("aws", ("gcp",), ()),
    # a cloud's code never imports a front end, nor a simulator but through the backend registry
    *[(layer, (*FRONT_ENDS, *SIMULATORS), ()) for layer in CLOUDS],
    # the simulators stand beside the library: they import no front end
    ("sim", FRONT_ENDS, ()),
    # fleets (docs/fleet.md) are `hyperpod fleet`'s library: they stand on the core and the Plan
    # model (the plans' JSON) and drive stacks through the engine, never a cloud's stages, a
    # simulator or another front end; of a cloud the region names (to check the fleet file) and, for
    # the gates after a wave, HyperPod's client and its observed state (a read, as `hyperpod status`)
    # and its deep health check (as `hyperpod health-check`); for a saved fleet plan, the pinned
    # plans compared as a saved plan is (aws/pinned.py); for a fleet move between two clusters, the
    # planner's move steps run by the executor (aws/cross_moves.py)
    (
        "fleet",
        (*CLOUDS, *SIMULATORS, *FRONT_ENDS),
        ("aws.regions", "aws.client", "aws.observe", "aws.apply.health", "aws.pinned", "aws.cross_moves"),
    ),
    # … and only the CLI imports them
    *[(layer, (FLEET,), ()) for layer in (*NEUTRAL, *CLOUDS, *SIMULATORS, "provider", "native", "components")],
]


# Known breaches, each with what ends it; the test fails when one is fixed and still listed here.
KNOWN = {
    # the Google Cloud dynamic provider moved to provider/gcp.py; its old module path stays, because a
    # stack's state holds the provider pickled by that path
    "gcp.provider imports provider.gcp",
    # connect() builds its simulator itself: ends when it goes through the backend registry (BACKEND_REGISTRY)
    "aws.client imports sim.aws",
    "gcp.client imports sim.gcp",
}


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def breaches(layer: str, forbidden: tuple[str, ...], allowed: tuple[str, ...], package: Path | None = None) -> list[str]:
    package = package or imports.PACKAGE
    found = []
    for path in sorted(package.rglob("*.py")):
        module = imports.module_name(path, package)
        if not _within(module, layer) or module == BACKEND_REGISTRY:
            continue
        for target in sorted({i.target for i in imports.imports_in(path, package)}):
            if any(_within(target, f) for f in forbidden) and not any(_within(target, a) for a in allowed):
                found.append(f"{module} imports {target}")
    return found


@pytest.mark.parametrize(("layer", "forbidden", "allowed"), RULES, ids=[f"{r[0]}-{i}" for i, r in enumerate(RULES)])
def test_import_rule(layer, forbidden, allowed):
    assert [b for b in breaches(layer, forbidden, allowed) if b not in KNOWN] == []


def test_every_known_breach_still_exists():
    found = {b for rule in RULES for b in breaches(*rule)}
    assert KNOWN - found == set(), "fixed: remove from KNOWN"


def test_the_rules_see_relative_lazy_and_typing_imports(tmp_path):
    """The checker is not vacuous: it resolves `..x`, `.x`, absolute imports, a module imported by
    name from its package, and imports inside functions and under TYPE_CHECKING."""
    package = tmp_path / "pulumi_hyperpod"
    for folder in ("core", "aws", "gcp", "sim", "cli"):
        (package / folder).mkdir(parents=True)
        (package / folder / "__init__.py").write_text("")
    (package / "__init__.py").write_text("")
    (package / "aws" / "client.py").write_text("")
    (package / "sim" / "worldfile.py").write_text("")
    (package / "core" / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "from ..aws import client\n"
        "if TYPE_CHECKING:\n    from pulumi_hyperpod.gcp import Thing\n"
        "def f():\n    from pulumi_hyperpod.sim.worldfile import check\n"
    )
    (package / "core" / "b.py").write_text("from .a import f\nimport pulumi_hyperpod.cli\n")
    assert breaches("core", (*CLOUDS, *SIMULATORS, *FRONT_ENDS), (), package) == [
        "core.a imports aws.client",
        "core.a imports gcp",
        "core.a imports sim.worldfile",
        "core.b imports cli",
    ]
    (package / "core" / "backends.py").write_text("from pulumi_hyperpod.sim import worldfile\n")
    assert "core.backends imports sim.worldfile" not in breaches("core", SIMULATORS, (), package)  # the one registry


def test_every_registered_cloud_lives_in_its_own_folder():
    from pulumi_hyperpod.core.cloud import REGISTRY

    for name, where in REGISTRY.items():
        assert where.startswith(f"pulumi_hyperpod.{name}."), where


def test_every_cloud_policy_member_is_a_policy_field_checked_in_a_clouds_folder():
    from pulumi_hyperpod.core.cloud import REGISTRY
    from pulumi_hyperpod.core.policy_members import CHECKS, checker
    from pulumi_hyperpod.plans.policy import Policy

    for member, where in CHECKS.items():
        assert member in Policy.model_fields, member
        assert any(where.startswith(f"pulumi_hyperpod.{cloud}.") for cloud in REGISTRY), where
        assert callable(checker(member)), where


# ---- run time: what a fresh process loads ---------------------------------------------------------

LOADED = """
import json, sys
{code}
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {roots!r} or m.startswith({prefixes!r}))))
"""
CLOUD_MODULES = ("botocore", "boto3", "google", "kubernetes", "pulumi_aws")


def loaded(code: str, roots: tuple[str, ...] = CLOUD_MODULES, prefixes: tuple[str, ...] = ()) -> list[str]:
    """The modules of `roots` (top-level names) and `prefixes` a fresh process holds after `code`."""
    return json.loads(run_fresh(LOADED.format(code=code, roots=roots, prefixes=prefixes)))


def test_loading_a_gcp_spec_imports_no_botocore_and_nothing_of_aws():
    code = 'from pulumi_hyperpod.gcp.spec import ClusterSpec\nClusterSpec.from_file("examples/gcp-training-cluster/cluster.json")'
    assert loaded(code, prefixes=("pulumi_hyperpod.aws", "pulumi_hyperpod.sim")) == []


def test_the_gcp_spec_check_is_not_vacuous():
    """The same probe sees what it forbids when it is loaded."""
    code = "import pulumi_hyperpod.gcp.spec, pulumi_hyperpod.aws.servicemodel, botocore.model"
    found = loaded(code, prefixes=("pulumi_hyperpod.aws",))
    assert "botocore.model" in found and "pulumi_hyperpod.aws.servicemodel" in found


def test_importing_every_module_of_the_core_and_the_plan_model_imports_no_cloud():
    code = (
        "import importlib, pkgutil, pulumi_hyperpod.core, pulumi_hyperpod.plans\n"
        "for package in (pulumi_hyperpod.core, pulumi_hyperpod.plans):\n"
        "    for info in pkgutil.iter_modules(package.__path__, package.__name__ + '.'):\n"
        "        importlib.import_module(info.name)\n"
        "assert 'pulumi_hyperpod.plans.model' in sys.modules and 'pulumi_hyperpod.core.cloud' in sys.modules"
    )
    clouds = tuple(f"pulumi_hyperpod.{name}" for name in (*CLOUDS, *SIMULATORS, "slurm", *FRONT_ENDS))
    assert loaded(code, prefixes=clouds) == []


# Every front end goes through the one pipeline (issue 25): core/cloud.py (prepare, deletion,
# execute) and core/planfile.py (save, load), never a cloud's stages wired by hand. Names imported
# from a package count too (`from pulumi_hyperpod.aws.planner import plan` is the planner).
STAGES = (
    "aws.pipeline",  # HyperPod's library API over the pipeline
    "aws.stages",
    "aws.apply",
    "aws.preflight",
    "aws.planner",  # HyperPod's planner rules
    "gcp.planner",
    "gcp.apply",
    "gcp.pipeline",
    "gcp.preflight",
)
STAGE_EXCEPTIONS = (
    "aws.apply.waiters",  # the wait vocabulary (--wait, the provider's `wait`) and a wait on another writer's delete: no plan
    "aws.apply.progress",  # the type of the progress events a front end draws
    "aws.apply.health",  # `hyperpod health`: a node health check, its own command, not a plan
    "aws.apply.wait_policies",  # the wait vocabulary again, without botocore (the provider's `check` path)
    "aws.planner.compare",  # which members force a replacement: the provider's diff reports them to the engine as `replaces`
    "gcp.planner.compare",  # the same for Google Cloud's provider
)


def imported_names(path: Path, package: Path) -> set[str]:
    """Every module `path` imports, plus each name imported from a module ("aws.planner.plan")."""
    found = {i.target for i in imports.imports_in(path, package)}
    here = imports.module_name(path, package).split(".")
    parent = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.level:
                base = parent[: len(parent) - (node.level - 1)] if node.level > 1 else list(parent)
                target = ".".join([*base, *node.module.split(".")])
            elif node.module.startswith("pulumi_hyperpod."):
                target = node.module.removeprefix("pulumi_hyperpod.")
            else:
                continue
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def stage_breaches(package: Path | None = None) -> list[str]:
    package = package or imports.PACKAGE
    found = []
    for path in sorted(package.rglob("*.py")):
        module = imports.module_name(path, package)
        if not any(_within(module, front_end) for front_end in FRONT_ENDS):
            continue
        for target in sorted(imported_names(path, package)):
            if any(_within(target, s) for s in STAGES) and not any(_within(target, a) for a in STAGE_EXCEPTIONS):
                found.append(f"{module} imports {target}")
    return found


def test_front_ends_go_through_core_cloud():
    assert stage_breaches() == []


def test_the_stage_rule_sees_names_and_the_pipeline(tmp_path):
    """Not vacuous: a front end wiring a stage by hand is found, by module or by name."""
    front_end = tmp_path / "pulumi_hyperpod" / "cli"
    front_end.mkdir(parents=True)
    (front_end / "bad.py").write_text(
        "def f():\n    from ..aws import pipeline\n    from ..aws.planner import plan\n    from ..plans import plan_text\n"
        "    from pulumi_hyperpod.gcp.pipeline.saved import load\n"
    )
    assert stage_breaches(tmp_path / "pulumi_hyperpod") == [
        "cli.bad imports aws.pipeline",
        "cli.bad imports aws.planner",
        "cli.bad imports aws.planner.plan",
        "cli.bad imports gcp.pipeline.saved",
        "cli.bad imports gcp.pipeline.saved.load",
    ]
