"""No import cycle among the package's modules (issue 38): the graph counts every import a module
runs, at top level and inside functions (a function-local import does not remove a cycle, it only
hides it until the function runs), but not those under TYPE_CHECKING (they never run). The
strongly connected components of that graph are the cycles; the few deliberate ones are listed
below with why, and the list only shrinks (a listed cycle that is gone fails the test too)."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support import imports

ALLOWED = {
    # ClusterState.from_snapshot is the public constructor on the type; the reader it calls checks the
    # file against botocore's output shapes, which a preview (that never reads a snapshot) must not load
    frozenset({"aws.observe.snapshot", "aws.observe.state"}),
    # components.args keeps the EKS argument classes' old path (PEP 562 `__getattr__`, for programs
    # written against it); EKS's own module needs the shared argument classes
    frozenset({"components.args", "components.base", "components.eks"}),
}


def test_no_import_cycle_but_the_deliberate_ones():
    found = {frozenset(c) for c in imports.cycles(imports.graph())}
    assert sorted(sorted(c) for c in found - ALLOWED) == []


def test_every_allowed_cycle_still_exists():
    found = {frozenset(c) for c in imports.cycles(imports.graph())}
    assert sorted(sorted(c) for c in ALLOWED - found) == [], "gone: remove it from ALLOWED"


def test_a_cycle_hidden_in_a_function_is_found_and_typing_imports_are_not(tmp_path):
    package = tmp_path / "pulumi_hyperpod"
    (package / "a").mkdir(parents=True)
    for name in ("__init__", "a/__init__"):
        (package / f"{name}.py").write_text("")
    (package / "a" / "x.py").write_text("from pulumi_hyperpod.a.y import f\n")
    (package / "a" / "y.py").write_text("def f():\n    from . import x\n")  # the lazy import that hides the cycle
    (package / "a" / "z.py").write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .w import T\n")
    (package / "a" / "w.py").write_text("from pulumi_hyperpod.a import z\n")
    graph = imports.graph(package)
    assert imports.cycles(graph) == [["a.x", "a.y"]]
    assert imports.cycles(imports.graph(package, wheres=("top",))) == []  # what a top-level-only graph misses


# A deliberate lazy import says why on its line: `
# enables PLC0415, so an unmarked one fails scripts/lint).
MARK = re.compile(r"#\s*noqa:\s*PLC0415(?P<rest>.*)$")


def unexplained_lazy_imports(package: Path = imports.PACKAGE) -> list[str]:
    found = []
    for path in sorted(package.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), 1):
            mark = MARK.search(line)
            if mark and len(mark.group("rest").strip(" -—:,").split()) < 2:
                found.append(f"{path.relative_to(package)}:{number}")
    return found


def test_every_deliberate_lazy_import_says_why():
    assert unexplained_lazy_imports() == []


def test_a_bare_noqa_is_found(tmp_path):
    (tmp_path / "m.py").write_text(
        "def f():\n    import json  # noqa: PLC0415\n    import csv  # noqa: PLC0415 - only a report\n    import re  # noqa: PLC0415 -\n"
    )
    assert unexplained_lazy_imports(tmp_path) == ["m.py:2", "m.py:4"]
