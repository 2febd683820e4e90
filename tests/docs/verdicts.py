"""Whether a block's run matches its doc, and how a failed one is shown: a doc's blocks read in order
(`read`), as both docs tests read them."""

from __future__ import annotations

from pathlib import Path

from .blocks import Block, credential_error_line, missing_output
from .session import BLOCK_TIMEOUT, Outcome, run_block

SHOWN_LINES = 80  # of a failed block's output, the last


def show(outcome: Outcome, root: Path) -> str:
    """The block's place, its code and the end of its output."""
    code = "\n".join("    " + line for line in outcome.block.code.splitlines())
    lines = outcome.output.rstrip().splitlines()
    if len(lines) > SHOWN_LINES:
        lines = [f"[... {len(lines) - SHOWN_LINES} lines before]", *lines[-SHOWN_LINES:]]
    output = "\n".join(lines)
    return (
        f"{outcome.block.where(root)} ({outcome.block.lang}, exit {outcome.returncode}, "
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


def read(blocks: list[Block], root: Path, home: Path, repo: Path) -> list[str]:
    """Run `blocks` in order in the scratch copy `root` (each in a new shell, with its own budget or
    BLOCK_TIMEOUT), printing one line per block; one problem per block that does not run as its doc
    says, with its output. Every block runs: a reader goes on too."""
    problems = []
    for block in blocks:
        outcome = run_block(block, root, home, block.timeout or BLOCK_TIMEOUT)
        problem = verdict(outcome)
        print(f"{block.where(repo)}: {problem or 'ok'} ({outcome.seconds:.1f}s)", flush=True)
        if problem:
            problems.append(f"{problem}\n{show(outcome, repo)}")
    return problems
