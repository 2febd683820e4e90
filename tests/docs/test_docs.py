"""Each doc file alone, in a world of its own: a reader who opens only that doc can follow it.

The docs tier's main test is `test_reading.py` (every doc in the order a reader follows them, in
one world). This one runs each doc file in a scratch copy and a world of its own, so a doc that
only works after another doc left something behind (a cluster, a stack, a file) fails here. It runs
every block a second time, so it is opt-in: `HYPERPOD_DOCS_EACH=1` (one doc:
`HYPERPOD_DOCS_EACH=1 bash scripts/test tests/docs -k scale-walkthrough`). The rules a block is
checked by: `verdicts.verdict` (docs/CONTRIBUTING-docs.md).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from .blocks import runnable_blocks
from .conftest import RAN
from .session import scratch_copy
from .verdicts import read
from tests.support.paths import REPO

pytestmark = [
    pytest.mark.docs,
    pytest.mark.skipif(os.environ.get("HYPERPOD_DOCS_EACH") != "1", reason="each doc alone: HYPERPOD_DOCS_EACH=1"),
]

DOCS = runnable_blocks(REPO)


@pytest.mark.parametrize("doc", [p for p, blocks in DOCS.items() if blocks], ids=lambda p: str(p.relative_to(REPO)))
def test_doc_runs_as_written(doc: Path, tmp_path: Path, newcomer_home: Path) -> None:
    root = scratch_copy(REPO, tmp_path / "repo")
    started = time.monotonic()
    try:
        failures = read(DOCS[doc], root, newcomer_home, REPO)
    finally:
        RAN.append((str(doc.relative_to(REPO)), len(DOCS[doc]), time.monotonic() - started))
    assert not failures, f"{len(failures)} of {len(DOCS[doc])} blocks do not run as the doc says:\n\n" + "\n\n".join(failures)
