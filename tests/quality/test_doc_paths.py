"""Every file a doc names exists (issue 37, item 14: docs/lifecycle.md named a test file that did
not): each path under tests/, pulumi_hyperpod/, scripts/ or examples/ in docs/*.md and README.md.
Placeholders (a part in capitals, `examples/NAME`) are not paths. CHANGELOG.md is history: it names
what was."""

from __future__ import annotations

import re
from tests.support.paths import REPO

ROOT = REPO
PATH = re.compile(r"\b(?:tests|pulumi_hyperpod|scripts|examples)/[A-Za-z0-9_./-]*[A-Za-z0-9_]")


def named_paths(text: str) -> set[str]:
    return {path for path in PATH.findall(text) if not any(part.isupper() for part in path.split("/"))}


def test_every_path_a_doc_names_exists():
    missing = [
        f"{doc.relative_to(ROOT)}: {path}"
        for doc in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
        for path in sorted(named_paths(doc.read_text()))
        if not (ROOT / path).exists()
    ]
    assert not missing, "\n".join(missing)


def test_the_path_check_can_fail():
    assert named_paths("see `tests/fake/test_sim_zz_conformance.py` and examples/NAME") == {"tests/fake/test_sim_zz_conformance.py"}
