"""Every shell and Python block of the documentation, run as written, with its shown output checked.

A doc file is one session: its blocks run in order in one scratch copy of the repository
(`session.scratch_copy`), so a block may use what an earlier block of the same file made (a stack,
a cluster in the simulator's world, a file it wrote) — but each block starts in a fresh shell from
the repository root, with nothing sourced and no variable set, as a reader pasting it would. Every
block of the file runs (a reader goes on too); the test fails naming each block that failed, with
its output. A block that cannot run fails, it is never skipped. The rules (blocks.py,
docs/CONTRIBUTING-docs.md):

- a shell block runs with `bash -e -o pipefail`: every command must succeed unless the doc writes
  what it expects (`cmd || echo "exit $?"`), and its ```text block, if any, must be found in its
  output (every non-blank line not `...`, in order, spaces collapsed);
- a block after `<!-- docs-test: needs-credentials -->` runs with no credentials at all and must
  fail with the one error line its ```text block shows.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from .blocks import credential_error_line, missing_output, runnable_blocks
from .conftest import RAN
from .session import BLOCK_TIMEOUT, Outcome, run_block, scratch_copy
from tests.support.paths import REPO

pytestmark = pytest.mark.docs

DOCS = runnable_blocks(REPO)
SHOWN_LINES = 80  # of a failed block's output, the last


def _show(outcome: Outcome, root: Path) -> str:
    code = "\n".join("    " + line for line in outcome.block.code.splitlines())
    lines = outcome.output.rstrip().splitlines()
    if len(lines) > SHOWN_LINES:
        lines = [f"[... {len(lines) - SHOWN_LINES} lines before]", *lines[-SHOWN_LINES:]]
    output = "\n".join(lines)
    return (
        f"{outcome.block.where(REPO)} ({outcome.block.lang}, exit {outcome.returncode}, "
        f"{outcome.seconds:.1f}s):\n{code}\n--- output ---\n{output}"
    )


def verdict(outcome: Outcome) -> str | None:
    """Why this block's run does not match its doc, or None."""
    block = outcome.block
    if block.needs_credentials:
        error = credential_error_line(block.expected)
        if error is None:
            return "a needs-credentials block must be followed by a ```text block holding its one error line"
        if outcome.returncode == 0:
            return "a needs-credentials block succeeded without credentials"
        if missing_output(error, outcome.output) is not None:
            return f"without credentials it did not fail with the documented error {error!r}"
        return None
    if outcome.returncode != 0:
        return f"exit {outcome.returncode}"
    if block.expected is not None:
        line = missing_output(block.expected, outcome.output)
        if line is not None:
            return f"the output the doc shows is not what it prints: {line!r} is missing (doc line {block.expected_line})"
    return None


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
                failures.append(f"{problem}\n{_show(outcome, root)}")
    finally:
        RAN.append((str(doc.relative_to(REPO)), ran, time.monotonic() - started))
    assert not failures, f"{len(failures)} of {ran} blocks do not run as the doc says:\n\n" + "\n\n".join(failures)
