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
from .session import BLOCK_TIMEOUT, run_block, scratch_copy
from .verdicts import show, verdict
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
    failures: list[str] = []
    ran = 0
    try:
        for block in DOCS[doc]:
            outcome = run_block(block, root, newcomer_home, block.timeout or BLOCK_TIMEOUT)
            ran += 1
            problem = verdict(outcome)
            print(f"{block.where(REPO)}: {problem or 'ok'} ({outcome.seconds:.1f}s)")
            if problem:
                failures.append(f"{problem}\n{show(outcome, REPO)}")
    finally:
        RAN.append((str(doc.relative_to(REPO)), ran, time.monotonic() - started))
    assert not failures, f"{len(failures)} of {ran} blocks do not run as the doc says:\n\n" + "\n\n".join(failures)
