"""What the policy tests need from outside the repository: the real `opa` (scripts/install-opa
builds it once from its Go module and caches it) and a virtualenv with `pulumi-policy` for the
CrossGuard pack (policies/crossguard), cached like the engine, keyed by the pack's requirements."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.paths import REPO

PACK = REPO / "policies" / "crossguard"


def cache_root() -> Path:
    return Path(os.environ.get("PULUMI_HYPERPOD_CACHE") or Path.home() / ".cache" / "pulumi-hyperpod")


def opa_path() -> str:
    """The cached opa (built on first use: about 2 minutes). A failed build fails the test: the
    rules are only tested when a real opa evaluates them."""
    done = subprocess.run(["bash", str(REPO / "scripts" / "install-opa")], capture_output=True, text=True, timeout=900, check=False)
    if done.returncode != 0:
        pytest.fail(f"scripts/install-opa failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    return done.stdout.strip().splitlines()[-1]


def policy_venv() -> Path:
    """A virtualenv with the pack's requirements, made once under the cache (pip, from the package
    index) and moved into place whole."""
    requirements = (PACK / "requirements.txt").read_bytes()
    venv = cache_root() / f"policy-venv-{hashlib.sha256(requirements).hexdigest()[:12]}"
    if _works(venv):
        return venv
    building = venv.with_name(venv.name + f".build-{os.getpid()}")
    shutil.rmtree(building, ignore_errors=True)
    base = getattr(sys, "_base_executable", None) or sys.executable
    steps = [
        [base, "-m", "venv", str(building)],
        [str(building / "bin" / "python"), "-m", "pip", "install", "--quiet", "-r", str(PACK / "requirements.txt")],
    ]
    for step in steps:
        done = subprocess.run(step, capture_output=True, text=True, timeout=900, check=False)
        if done.returncode != 0:
            shutil.rmtree(building, ignore_errors=True)
            pytest.fail(f"could not make the policy pack's virtualenv ({' '.join(step)}): {done.stderr.strip()[-2000:]}")
    shutil.rmtree(venv, ignore_errors=True)
    building.rename(venv)
    return venv


def _works(venv: Path) -> bool:
    python = venv / "bin" / "python"
    return python.exists() and subprocess.run([str(python), "-c", "import pulumi_policy"], capture_output=True, check=False).returncode == 0
