"""Where things are, for every test: the repository, the package, the examples and the test data.

One place to look them up, so a test keeps working wherever it sits under tests/ (no
`Path(__file__).parents[N]` to recount when a test moves).
"""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "pulumi_hyperpod"
EXAMPLES = REPO / "examples"
SPECS = EXAMPLES / "specs"
GOVERNANCE = EXAMPLES / "task-governance"  # a compute quota, a scheduler configuration and the EKS cluster they govern
TESTS = REPO / "tests"
BADINPUT = TESTS / "badinput"  # the bad-input corpus (make_corpus.py, corpus-*/, expected-*.json)
DATA = TESTS / "data"  # data files read by tests in more than one folder
