"""The docs tier: one fresh HOME for the run, and a line saying how many blocks ran and how long."""

from __future__ import annotations

from pathlib import Path

import pytest

from .session import engine_missing, newcomer_home as newcomer_home_in
from tests.support.paths import REPO


RAN: list[tuple[str, int, float]] = []  # (doc file, blocks run, seconds)


@pytest.fixture(scope="session")
def newcomer_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A HOME with nothing in it but the engine scripts/install built, shared by the run's
    sessions. No engine is a failure, not a skip: the docs say to install it."""
    problem = engine_missing(REPO)
    if problem:
        pytest.fail(problem)
    return newcomer_home_in(tmp_path_factory.mktemp("newcomer"))


def pytest_terminal_summary(terminalreporter) -> None:
    if RAN:
        blocks = sum(n for _, n, _ in RAN)
        seconds = sum(s for _, _, s in RAN)
        terminalreporter.write_line(f"docs: {blocks} blocks run from {len(RAN)} files in {seconds:.0f}s")
