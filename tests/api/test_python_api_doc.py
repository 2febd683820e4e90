"""docs/python-api.md's examples run as written and print what the doc shows: a program written
against the documented flow (spec → observe → plan → apply) runs. The docs tier runs the same
blocks from a scratch copy (`pytest tests/docs -k python-api`); this is the fast tier's check."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.docs.blocks import PYTHON, blocks_in, missing_output

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "python-api.md"
BLOCKS = [block for block in blocks_in(DOC) if block.lang in PYTHON]


def test_the_doc_has_its_examples():
    assert len(BLOCKS) >= 5 and all(block.expected for block in BLOCKS)


@pytest.mark.parametrize("block", BLOCKS, ids=[f"line-{block.line}" for block in BLOCKS])
def test_each_example_runs_and_prints_what_the_doc_shows(block, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("HYPERPOD_")}  # no world of this shell's
    env.update(PYTHONPATH=str(REPO), HOME=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", block.code], cwd=REPO, env=env, capture_output=True, text=True, timeout=120)
    output = proc.stdout + proc.stderr
    assert proc.returncode == 0, output
    assert missing_output(block.expected, output) is None, output
