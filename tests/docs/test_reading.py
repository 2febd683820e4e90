"""The docs read the way a reader reads them: in order, in one terminal's world, leaving nothing behind.

One scratch copy of the repository (`session.scratch_copy`), so one simulated world
(`.hyperpod/`), one Pulumi state (`state/`) and one HOME for the whole reading: README.md first,
then the docs in the order README's "Documentation" list gives, then the other docs, then each
example's README, then any other top-level README (`blocks.reading_order`). Every shell and Python
block runs as written, in a new shell from the repository root, and is checked by the rules of
docs/CONTRIBUTING-docs.md (`verdicts.verdict`): a cluster name two docs use, a stack one doc leaves
for the next, a file a block writes, all show here. Every block runs (a reader goes on too); the
test fails naming each block that failed, with its output.

When the reading is over, the copy's `git status` is clean: no tracked file changed (a doc that
edits a tracked stack file) and no new file that git does not ignore (a doc that leaves its output
in the tree).
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from .blocks import Block, reading_order, runnable_blocks
from .conftest import RAN
from .session import as_committed, left_in_tree, scratch_copy
from .verdicts import read
from tests.support.paths import REPO

pytestmark = pytest.mark.docs


def the_reading(root: Path) -> list[tuple[Path, list[Block]]]:
    blocks = runnable_blocks(root)
    return [(doc, blocks[doc]) for doc in reading_order(root) if blocks[doc]]


def test_the_docs_run_in_order_in_one_world(tmp_path: Path, newcomer_home: Path) -> None:
    root = scratch_copy(REPO, tmp_path / "repo")
    as_committed(root)
    failures: list[str] = []
    reading = the_reading(REPO)
    for doc, blocks in reading:
        started = time.monotonic()
        try:
            failures += read(blocks, root, newcomer_home, REPO)
        finally:
            RAN.append((str(doc.relative_to(REPO)), len(blocks), time.monotonic() - started))
    ran = sum(len(blocks) for _, blocks in reading)
    left = left_in_tree(root)
    if left:
        failures.append(
            "the reading left the tree changed (git status --porcelain of the scratch copy; a doc writes its "
            "files to a git-ignored path or outside the tree, and edits no tracked file):\n" + "\n".join(left)
        )
    assert not failures, f"{len(failures)} problems in a reading of {ran} blocks:\n\n" + "\n\n".join(failures)
