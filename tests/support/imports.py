"""The package's import graph read from its source (the AST, never an import): every
`import`/`from ... import` of a `pulumi_hyperpod` module, at top level, inside a function or under
`if TYPE_CHECKING:`, each resolved to the module it loads (`from pulumi_hyperpod.aws import cloud`
is `aws.cloud`, a module; `from pulumi_hyperpod.aws.cloud import AwsCloud` is `aws.cloud` too).
Names are relative to the package ("gcp.apply"). Used by the layer and cycle tests."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "pulumi_hyperpod"


@dataclass(frozen=True, slots=True)
class Import:
    target: str  # the module loaded, relative to the package
    line: int
    where: str  # "top", "function" (inside a def: runs when called) or "typing" (under TYPE_CHECKING: never runs)


def module_name(path: Path, package: Path = PACKAGE) -> str:
    parts = list(path.relative_to(package).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str, package: Path) -> bool:
    base = package.joinpath(*name.split(".")) if name else package
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _targets(node: ast.Import | ast.ImportFrom, here: list[str], package: Path) -> list[str]:
    if isinstance(node, ast.Import):
        return [a.name.removeprefix("pulumi_hyperpod.") for a in node.names if a.name.startswith("pulumi_hyperpod.")]
    if node.level:
        base = here[: len(here) - (node.level - 1)] if node.level > 1 else list(here)
        source = ".".join([*base, *(node.module.split(".") if node.module else [])])
    elif node.module == "pulumi_hyperpod" or (node.module or "").startswith("pulumi_hyperpod."):
        source = node.module.removeprefix("pulumi_hyperpod").removeprefix(".")  # type: ignore[union-attr]
    else:
        return []
    found = []
    for alias in node.names:
        child = f"{source}.{alias.name}" if source else alias.name
        found.append(child if _is_module(child, package) else source)
    return [name for name in found if name]


def imports_in(path: Path, package: Path = PACKAGE) -> list[Import]:
    """Every package import in `path`, with where it runs."""
    name = module_name(path, package)
    here = name.split(".") if name else []
    parent = here if path.name == "__init__.py" else here[:-1]
    found: list[Import] = []

    def visit(node: ast.AST, where: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.extend(Import(t, child.lineno, where) for t in _targets(child, parent, package))
            elif isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                visit(child, "typing" if where == "typing" else "function")
            elif isinstance(child, ast.If) and _is_type_checking(child.test):
                for stmt in child.body:
                    visit(ast.Module(body=[stmt], type_ignores=[]), "typing")
                for stmt in child.orelse:
                    visit(ast.Module(body=[stmt], type_ignores=[]), where)
            else:
                visit(child, where)

    visit(ast.parse(path.read_text()), "top")
    return found


def imports_of(path: Path, package: Path = PACKAGE) -> set[str]:
    """Every package module `path` imports, wherever it runs (TYPE_CHECKING imports included)."""
    return {found.target for found in imports_in(path, package)}


def graph(package: Path = PACKAGE, *, wheres: tuple[str, ...] = ("top", "function")) -> dict[str, set[str]]:
    """module → the modules it imports (only the imports whose `where` is listed)."""
    edges: dict[str, set[str]] = {}
    for path in sorted(package.rglob("*.py")):
        source = module_name(path, package)
        edges.setdefault(source, set()).update(i.target for i in imports_in(path, package) if i.where in wheres and i.target != source)
    return edges


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted, sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(node: str) -> None:
        # iterative, so a long chain of imports cannot reach the recursion limit
        work = [(node, iter(sorted(edges.get(node, ()))))]
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        while work:
            current, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                    break
                if child in on_stack:
                    low[current] = min(low[current], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[current])
                if low[current] == index[current]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == current:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))

    for node in sorted(edges):
        if node not in index:
            connect(node)
    return sorted(found)
