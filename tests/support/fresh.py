"""Test code run in a fresh Python process with this checkout first on its path: what a provider
process imports and does, seen where nothing was imported before it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def run_fresh(code: str, stdin: str | None = None, cwd: Path = REPO) -> str:
    """The last line `code` printed; the test fails with the process's stderr when it exits non-zero."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    proc = subprocess.run([sys.executable, "-c", code], input=stdin, capture_output=True, text=True, env=env, cwd=cwd, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.splitlines()[-1]
