"""The input suite: everything a user hands the tool (specs, policies, snapshots, names, options)."""

from __future__ import annotations

import pytest

from tests.support.cli import use_fake_world


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A fresh simulated world; the working directory is `tmp_path`."""
    return use_fake_world(monkeypatch, tmp_path)
