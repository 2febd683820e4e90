"""The import rules of the whole package (docs/DESIGN.md, "Layers"): the core and the Plan model are
neutral, HyperPod's planner is pure, each cloud stands on the core and not on the other cloud, the
Slurm layer on no cloud's front end, and no library module imports a front end. Every import counts, inside functions too (a lazy import is
still a dependency); TYPE_CHECKING imports count as well."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest
from tests.support.paths import PACKAGE

FRONT_ENDS = ("cli", "provider", "native", "components", "simserver")
CLOUDS = ("aws", "gcp")

# (modules the rule is about, imported prefixes they must not use, the exceptions allowed)
RULES = [
    # the core: what both clouds share; it names no cloud (the registry holds module names as strings)
    ("core", (*CLOUDS, "slurm", "workload", "timeline", *FRONT_ENDS), ()),
    # the Plan model, Policy and rendering (all of plans/) are written once: no cloud behind them; a Policy
    # member one cloud defines is checked through core/policy_members.py, which names the check as a string
    ("plan", (*CLOUDS, "slurm.spec", "workload", *FRONT_ENDS), ()),
    # HyperPod's planner is pure: of AWS it reads the observed state, the spec and the service model, and
    # calls nothing (no client, apply, cost, preflight, pipeline or simulator)
    ("aws.planner", ("aws",), ("aws.planner", "aws.observe", "aws.clusterspec", "aws.servicemodel")),
    # Google Cloud stands on the core, never on AWS
    ("gcp", ("aws", *FRONT_ENDS), ()),
    # AWS does not reach into Google Cloud (its Cloud asks gcp.detect which shape a file has)
    ("aws", ("gcp",), ("gcp.detect",)),
    # the Slurm layer: no front end, no Google Cloud code
    ("slurm", ("gcp", *FRONT_ENDS), ()),
    # library code never imports a front end
    *[(layer, FRONT_ENDS, ()) for layer in ("core", "plan", "aws", "gcp", "slurm", "workload", "timeline", "members")],
]


# Known breaches, each with what ends it; the test fails when one is fixed and still listed here.
KNOWN = {
    # the Google Cloud dynamic provider moved to provider/gcp.py; its old module path stays, because a
    # stack's state holds the provider pickled by that path
    "gcp.provider imports provider.gcp",
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: Path) -> set[str]:
    """Every pulumi_hyperpod module `path` imports, as a name relative to the package ("gcp.apply")."""
    here = _module_name(path).split(".") if _module_name(path) else []
    package = here if path.name == "__init__.py" else here[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else list(package)
                target = ".".join([*base, *(node.module.split(".") if node.module else [])])
                names = [f"{target}.{a.name}" if target else a.name for a in node.names] if not node.module else [target]
                found.update(n for n in names if n)
            elif node.module and node.module.startswith("pulumi_hyperpod."):
                found.add(node.module.removeprefix("pulumi_hyperpod."))
        elif isinstance(node, ast.Import):
            found.update(a.name.removeprefix("pulumi_hyperpod.") for a in node.names if a.name.startswith("pulumi_hyperpod."))
    return found


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def breaches(layer: str, forbidden: tuple[str, ...], allowed: tuple[str, ...]) -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        if not _within(module, layer):
            continue
        for target in sorted(imports_of(path)):
            if any(_within(target, f) for f in forbidden) and not any(_within(target, a) for a in allowed):
                found.append(f"{module} imports {target}")
    return found


@pytest.mark.parametrize(("layer", "forbidden", "allowed"), RULES, ids=[f"{r[0]}-{i}" for i, r in enumerate(RULES)])
def test_import_rule(layer, forbidden, allowed):
    assert [b for b in breaches(layer, forbidden, allowed) if b not in KNOWN] == []


def test_every_known_breach_still_exists():
    found = {b for rule in RULES for b in breaches(*rule)}
    assert KNOWN - found == set(), "fixed: remove from KNOWN"


def test_the_rules_see_relative_and_lazy_imports(tmp_path, monkeypatch):
    """The checker is not vacuous: it resolves `..x.y`, `.x` and imports inside functions."""
    assert "core.errors" in imports_of(PACKAGE / "slurm" / "spec.py")  # from ..core.errors import ...
    assert "gcp.detect" in imports_of(PACKAGE / "aws" / "cloud.py")  # inside a method
    assert breaches("aws", ("gcp",), ()) == ["aws.cloud imports gcp.detect"]
    assert "aws.observe" in imports_of(PACKAGE / "aws" / "pipeline" / "__init__.py")  # from ..observe import


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


# Every front end goes through the one pipeline (issue 25): core/cloud.py (prepare, deletion,
# execute) and core/planfile.py (save, load), never a cloud's stages wired by hand. Names imported
# from a package count too (`from ..aws.planner import plan` is the planner).
STAGES = (
    "aws.pipeline",  # HyperPod's library API over the pipeline
    "aws.stages",
    "aws.apply",
    "aws.preflight",
    "aws.planner",  # HyperPod's planner rules
    "gcp.planner",
    "gcp.plan_build",
    "gcp.apply",
    "gcp.saved",
    "gcp.preflight",
)
STAGE_EXCEPTIONS = (
    "aws.apply.waiters",  # the wait vocabulary (--wait, the provider's `wait`) and a wait on another writer's delete: no plan
    "aws.apply.progress",  # the type of the progress events a front end draws
    "aws.apply.health",  # `hyperpod health`: a node health check, its own command, not a plan
    "aws.apply.wait_policies",  # the wait vocabulary again, without botocore (the provider's `check` path)
    "aws.planner.compare",  # which members force a replacement: the provider's diff reports them to the engine as `replaces`
)


def imported_names(path: Path) -> set[str]:
    """imports_of(path), plus each name imported from a module ("aws.planner.plan" for `from ..aws.planner import plan`)."""
    found = set(imports_of(path))
    here = _module_name(path).split(".") if _module_name(path) else []
    package = here if path.name == "__init__.py" else here[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else list(package)
                target = ".".join([*base, *node.module.split(".")])
            elif node.module.startswith("pulumi_hyperpod."):
                target = node.module.removeprefix("pulumi_hyperpod.")
            else:
                continue
            found.update(f"{target}.{alias.name}" for alias in node.names)
    return found


def stage_breaches() -> list[str]:
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = _module_name(path)
        if not any(_within(module, front_end) for front_end in FRONT_ENDS):
            continue
        for target in sorted(imported_names(path)):
            if any(_within(target, s) for s in STAGES) and not any(_within(target, a) for a in STAGE_EXCEPTIONS):
                found.append(f"{module} imports {target}")
    return found


def test_front_ends_go_through_core_cloud():
    assert stage_breaches() == []


def test_the_stage_rule_sees_names_and_the_pipeline(monkeypatch, tmp_path):
    """Not vacuous: a front end wiring a stage by hand is found, by module or by name."""
    front_end = tmp_path / "pulumi_hyperpod" / "cli"
    front_end.mkdir(parents=True)
    (front_end / "bad.py").write_text(
        "def f():\n    from ..aws import pipeline\n    from ..aws.planner import plan\n    from ..plan import plan_text\n    from ..gcp.saved import load\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", tmp_path / "pulumi_hyperpod")
    assert stage_breaches() == [
        "cli.bad imports aws.pipeline",
        "cli.bad imports aws.planner",
        "cli.bad imports aws.planner.plan",
        "cli.bad imports gcp.saved",
        "cli.bad imports gcp.saved.load",
    ]
