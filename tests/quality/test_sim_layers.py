"""The simulator's modules import one way (docs/DESIGN.md, "Layers"): no import cycle among
pulumi_hyperpod/sim/aws/*.py, counting imports inside functions too (a lazy import is still a cycle)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SIM = Path(__file__).resolve().parents[2] / "pulumi_hyperpod" / "sim"
FAKE = SIM / "aws"


def _imports(path: Path) -> set[str]:
    """Sibling modules of pulumi_hyperpod.sim.aws that a module imports, anywhere in its body."""
    found: set[str] = set()
    siblings = {p.stem for p in FAKE.glob("*.py")}
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module == "pulumi_hyperpod.sim.aws":
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pulumi_hyperpod.sim.aws."):
            found.add(node.module.split(".")[3])
    return {name for name in found if name in siblings and name != path.stem}


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        stack.append(name)
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                return [*stack[stack.index(target) :], target]
            if not state.get(target):
                found = visit(target)
                if found:
                    return found
        stack.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if not state.get(name):
            found = visit(name)
            if found:
                return found
    return None


def test_the_simulator_has_no_import_cycle():
    graph = {path.stem: _imports(path) for path in FAKE.glob("*.py") if path.stem != "__init__"}
    assert _cycle(graph) is None, " → ".join(_cycle(graph) or [])


def test_the_cycle_check_can_fail():
    assert _cycle({"operations": {"node_operations"}, "node_operations": {"operations"}}) == [
        "node_operations",
        "operations",
        "node_operations",
    ]


@pytest.mark.parametrize("module", ["operations", "node_operations"])
def test_operation_modules_do_not_import_each_other(module):
    other = {"operations": "node_operations", "node_operations": "operations"}[module]
    assert other not in _imports(FAKE / f"{module}.py")


# The simulator is an independent witness (issue 37): its rules are written from the service's
# documentation in fake/ (service_rules.py), so a rule the spec or the planner gets wrong is not
# answered the same wrong way. No module of the simulator imports the spec or the planner.
FORBIDDEN = ("pulumi_hyperpod.aws.spec", "pulumi_hyperpod.aws.planner")


def _absolute_imports(path: Path) -> set[str]:
    """Every module `path` imports, anywhere in its body, as an absolute dotted name."""
    package = "pulumi_hyperpod.sim.aws".split(".")
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            found.add(module)
            found.update(f"{module}.{alias.name}" for alias in node.names)
    return found


def _reaches(imports: set[str]) -> list[str]:
    return sorted(name for name in imports if any(name == f or name.startswith(f + ".") for f in FORBIDDEN))


@pytest.mark.parametrize("path", sorted(FAKE.glob("*.py")), ids=lambda p: p.stem)
def test_the_simulator_imports_neither_the_spec_nor_the_planner(path):
    assert not _reaches(_absolute_imports(path)), f"{path.name} imports {_reaches(_absolute_imports(path))}"


def test_the_import_check_can_fail(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text(
        "from pulumi_hyperpod.aws.spec import rules\nfrom pulumi_hyperpod.aws.planner.compare import x\nimport pulumi_hyperpod.aws.spec.keys\n"
    )
    assert _reaches(_absolute_imports(module)) == [
        "pulumi_hyperpod.aws.planner.compare",
        "pulumi_hyperpod.aws.planner.compare.x",
        "pulumi_hyperpod.aws.spec",
        "pulumi_hyperpod.aws.spec.keys",
        "pulumi_hyperpod.aws.spec.rules",
    ]


def test_the_module_list_is_the_simulator_s():
    """The checks above read the HyperPod simulator's modules: a moved folder would leave them vacuous."""
    assert {"operations", "node_operations", "simulator", "store", "world"} <= {path.stem for path in FAKE.glob("*.py")}


# The workload simulator (sim/workload) stands on the HyperPod simulator's public surface only: the
# names `pulumi_hyperpod.sim.aws` exports (Simulator.cluster_workloads, the node roles and states,
# short_hostname), never a module under it or a private attribute of the Simulator.
def _surface_breaches(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("pulumi_hyperpod.sim.aws."):
            found.append(f"imports {node.module}")
        elif isinstance(node, ast.ImportFrom) and node.module == "pulumi_hyperpod.sim" and any(a.name == "aws" for a in node.names):
            found.append("imports the sim.aws package as a module")
        elif isinstance(node, ast.Import) and any(a.name.startswith("pulumi_hyperpod.sim.aws") for a in node.names):
            found.append("imports pulumi_hyperpod.sim.aws by module")
        elif isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
            owner = node.value.id if isinstance(node.value, ast.Name) else None
            if owner not in ("self", "cls"):
                found.append(f"reads {owner or '…'}.{node.attr}")
    return found


@pytest.mark.parametrize("path", sorted((SIM / "workload").glob("*.py")), ids=lambda p: p.stem)
def test_the_workload_simulator_uses_only_the_hyperpod_simulator_s_public_surface(path):
    assert _surface_breaches(path) == []


def test_the_surface_check_can_fail(tmp_path):
    module = tmp_path / "probe.py"
    module.write_text("from pulumi_hyperpod.sim.aws.model import RUNNING\nwith sim._world() as world:\n    pass\n")
    assert _surface_breaches(module) == ["imports pulumi_hyperpod.sim.aws.model", "reads sim._world"]
