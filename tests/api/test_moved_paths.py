"""The module paths issue 38's layout commit moved keep importing for one release: each old path
is the module at its new path (the same object), with one DeprecationWarning naming that path
(pulumi_hyperpod/_moved.py). `moved_386c705.txt` is the commit's renames
(`git diff --name-status -M 91d55fa 386c705`), one `old new` module pair a line."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pulumi_hyperpod import _moved

REPO = Path(__file__).resolve().parents[2]
RENAMES = [tuple(line.split()) for line in Path(__file__).with_name("moved_386c705.txt").read_text().splitlines() if line.strip()]
PLAN_MODEL = "pulumi_hyperpod.plan"  # the one old path that cannot be kept: the planner function's name


def fresh(code: str) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize(("old", "new"), RENAMES, ids=[old for old, _ in RENAMES])
def test_every_path_the_layout_moved_leads_to_its_new_place(old, new):
    if old == PLAN_MODEL or old.startswith(PLAN_MODEL + "."):
        assert _moved.new_path(old) is None and "plan" in _moved.GONE
    else:
        assert _moved.new_path(old) == new


def test_the_simulator_s_older_path_is_kept_too():
    assert _moved.new_path("pulumi_hyperpod.fake.simulator") == "pulumi_hyperpod.sim.aws.simulator"


def test_no_old_path_hides_a_module_that_is_there():
    """The finder answers before the file system: an old path that is a real module again would be masked."""
    for old in _moved.MOVED:
        assert not (REPO / "pulumi_hyperpod" / Path(*old.split("."))).exists()
        assert not (REPO / "pulumi_hyperpod" / Path(*old.split("."))).with_suffix(".py").exists()


OLD_IMPORTS = """
import json, sys, warnings
found = {}
for old, new, name in %r:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module = __import__(old, fromlist=[name] if name else [])
        value = getattr(module, name) if name else None
    found[old] = {
        "same": sys.modules[old] is sys.modules[new],
        "name": sys.modules[old].__name__,
        "attribute_same": value is getattr(sys.modules[new], name) if name else True,
        "warnings": [(w.category.__name__, str(w.message), w.filename) for w in caught],
    }
print(json.dumps(found))
"""

CASES = [
    ("pulumi_hyperpod.aws.fake", "pulumi_hyperpod.sim.aws", "Simulator"),
    ("pulumi_hyperpod.fake", "pulumi_hyperpod.sim.aws", "Simulator"),
    ("pulumi_hyperpod.aws.fake.store", "pulumi_hyperpod.sim.aws.store", "SqliteStore"),
    ("pulumi_hyperpod.gcp.fake", "pulumi_hyperpod.sim.gcp", None),
    ("pulumi_hyperpod.workload", "pulumi_hyperpod.aws.workload", None),
    ("pulumi_hyperpod.workload.fake.hyperpod", "pulumi_hyperpod.sim.workload.hyperpod", "workload_source"),
    ("pulumi_hyperpod.workload.hostlist", "pulumi_hyperpod.slurm.hostlist", None),
    ("pulumi_hyperpod.timeline", "pulumi_hyperpod.aws.timeline", None),
    ("pulumi_hyperpod.members", "pulumi_hyperpod.aws.members", None),
    ("pulumi_hyperpod.aws.clusterspec", "pulumi_hyperpod.aws.spec", "ClusterSpec"),
    ("pulumi_hyperpod.slurm.render", "pulumi_hyperpod.aws.slurm.render", None),
    ("pulumi_hyperpod.simserver", "pulumi_hyperpod.sim.server", None),
    ("pulumi_hyperpod.core.clock", "pulumi_hyperpod.sim.clock", "SharedClock"),
    ("pulumi_hyperpod.files", "pulumi_hyperpod.core.files", None),
    ("pulumi_hyperpod.gcp.saved", "pulumi_hyperpod.gcp.pipeline.saved", None),
]


def test_old_paths_import_as_the_new_module_with_one_warning_each():
    """One DeprecationWarning per moved path, at the importing line, naming the new path; a module
    under a path already warned about (`aws.fake.store` after `aws.fake`) adds none."""
    found = fresh(OLD_IMPORTS % (CASES,))
    warned: list[str] = []
    for old, new, _name in CASES:
        got = found[old]
        assert got["same"] and got["name"] == new and got["attribute_same"], (old, got)
        ours = [w for w in got["warnings"] if "pulumi_hyperpod" in w[1]]
        entry = _moved.moved_entry(old)
        assert entry is not None
        if entry[0] in warned:
            assert ours == [], (old, ours)
            continue
        warned.append(entry[0])
        moved_from, moved_to = (f"pulumi_hyperpod.{path}" for path in entry)
        line = f"{moved_from} is deprecated: it moved to {moved_to} (the old path goes in the next release)"
        assert ours == [["DeprecationWarning", line, "<string>"]], (old, ours)
    assert len(warned) == len({_moved.moved_entry(old)[0] for old, _, _ in CASES}) == len(CASES) - 1  # aws.fake.store: none


def test_the_old_plan_model_path_fails_with_one_line_naming_the_new_one():
    found = fresh(
        "import json\nfrom pulumi_hyperpod import plan\nout = {'plan': plan.__module__}\n"
        "for path in ('pulumi_hyperpod.plan', 'pulumi_hyperpod.plan.model'):\n"
        "    try:\n        __import__(path)\n    except ImportError as error:\n        out[path] = str(error)\n"
        "import pulumi_hyperpod\nout['still'] = callable(pulumi_hyperpod.plan)\nprint(json.dumps(out))"
    )
    line = "the Plan model moved to pulumi_hyperpod.plans (from pulumi_hyperpod.plans import Plan)"
    assert found["plan"] == "pulumi_hyperpod.aws.planner.rules" and found["still"] is True
    assert line in found["pulumi_hyperpod.plan"] and line in found["pulumi_hyperpod.plan.model"]
    assert "\n" not in found["pulumi_hyperpod.plan"]


def _old_imports(path: Path) -> list[str]:
    """The old paths `path` imports: a module under one, or a name of a package that is one
    (`from pulumi_hyperpod.cli import fake_gcp`)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        found += [
            f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path.name}:{node.lineno} {name}"
            for name in names
            if _moved.new_path(name) is not None or name.split(".")[:2] == ["pulumi_hyperpod", "plan"]
        ]
    return found


def test_nothing_in_the_repository_imports_an_old_path():
    """The old paths are for users' programs: the package, its tests, benchmarks and examples use the new ones."""
    roots = [REPO / name for name in ("pulumi_hyperpod", "tests", "bench", "examples", "scripts")]
    files = [p for root in roots if root.exists() for p in root.rglob("*.py") if ".venv" not in p.parts]
    assert [hit for path in files for hit in _old_imports(path)] == []


def test_the_old_import_scan_can_fail(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text("from pulumi_hyperpod.cli import fake_gcp\nimport pulumi_hyperpod.plan.model\nfrom pulumi_hyperpod.sim import aws\n")
    assert [hit.split(" ", 1)[1] for hit in _old_imports(probe)] == ["pulumi_hyperpod.cli.fake_gcp", "pulumi_hyperpod.plan.model"]


def test_an_old_path_still_runs_with_python_m():
    """`python -m pulumi_hyperpod.members` (now `pulumi_hyperpod.aws.members`) runs the module's code."""
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    old = subprocess.run(
        [sys.executable, "-W", "always", "-m", "pulumi_hyperpod.members"], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    new = subprocess.run(
        [sys.executable, "-m", "pulumi_hyperpod.aws.members"], capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert old.returncode == 0, old.stderr
    assert old.stdout == new.stdout and " members: " in old.stdout
    assert "pulumi_hyperpod.members is deprecated: it moved to pulumi_hyperpod.aws.members" in old.stderr
