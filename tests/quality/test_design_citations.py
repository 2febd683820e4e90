"""The code cites docs/DESIGN.md, and only sections it has: `docs/DESIGN.md, "Section"` names a
heading of the file; no citation of a design or style file outside the repository remains."""

from __future__ import annotations

import re
from pathlib import Path
from tests.support.paths import REPO

ROOT = REPO
CITATION = re.compile(r'docs/DESIGN\.md, "([^"]+)"')


def _sources() -> list[Path]:
    return sorted(
        p for p in [*(ROOT / "pulumi_hyperpod").rglob("*.py"), *(ROOT / "tests").rglob("*.py")] if p.name != "test_design_citations.py"
    )


def test_every_cited_section_is_a_heading_of_the_design():
    headings = {line.lstrip("#").strip() for line in (ROOT / "docs" / "DESIGN.md").read_text().splitlines() if line.startswith("#")}
    cited = {(path.relative_to(ROOT).as_posix(), section) for path in _sources() for section in CITATION.findall(path.read_text())}
    assert cited, "the checker found no citation at all"
    assert sorted(c for c in cited if c[1] not in headings) == []


def test_no_citation_of_a_design_file_outside_the_repository():
    stale = re.compile(r"(?<![\w/])(?:DESIGN|STYLE)\.md")
    found = [path.relative_to(ROOT).as_posix() for path in _sources() if stale.search(path.read_text())]
    assert found == []
