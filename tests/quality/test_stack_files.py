"""Pulumi state and secrets are the reader's (issue 39, item 3): no stack config file is tracked
(`pulumi stack init` writes the stack's encryption salt into Pulumi.<stack>.yaml, and a tracked salt
pins every reader to the passphrase it was made with), and scripts/env.sh sets its demo passphrase
only for the repository's own local state, never over the reader's own passphrase or backend."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.paths import REPO

STACK_FILE = re.compile(r"(^|/)Pulumi\.[^/]+\.ya?ml$")


def test_no_stack_config_file_is_tracked() -> None:
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.splitlines()
    assert [name for name in tracked if STACK_FILE.search(name)] == []


def test_nothing_tracked_holds_a_salt_or_a_passphrase_for_the_examples() -> None:
    found = []
    for folder in (REPO / "examples", REPO):
        for path in sorted(folder.glob("*.yaml")) + sorted(folder.glob("*/*.yaml")):
            text = path.read_text(encoding="utf-8")
            if "encryptionsalt" in text or "PULUMI_CONFIG_PASSPHRASE" in text:
                found.append(str(path.relative_to(REPO)))
    assert found == []


def env_after_sourcing(root: Path, **env: str) -> dict[str, str]:
    """The Pulumi variables a new shell has after `source scripts/env.sh`, with `env` set before."""
    script = 'source scripts/env.sh >/dev/null && env | grep "^PULUMI_" || true'
    base = {"PATH": os.environ["PATH"], "HOME": str(root / "home"), **env}
    out = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script], cwd=root, env=base, capture_output=True, text=True, check=True
    ).stdout
    return dict(line.split("=", 1) for line in out.splitlines())


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "env.sh").write_text((REPO / "scripts" / "env.sh").read_text())
    return tmp_path


def test_env_sh_demo_passphrase_only_for_the_local_state(root: Path) -> None:
    local = env_after_sourcing(root)
    assert local["PULUMI_BACKEND_URL"] == f"file://{root}/state"
    assert local["PULUMI_CONFIG_PASSPHRASE"] == "hyperpod-demo"

    mine = env_after_sourcing(root, PULUMI_CONFIG_PASSPHRASE="my own")
    assert mine["PULUMI_CONFIG_PASSPHRASE"] == "my own"
    empty = env_after_sourcing(root, PULUMI_CONFIG_PASSPHRASE="")  # an empty passphrase is Pulumi's to accept
    assert empty["PULUMI_CONFIG_PASSPHRASE"] == ""
    from_file = env_after_sourcing(root, PULUMI_CONFIG_PASSPHRASE_FILE=str(root / "passphrase"))
    assert "PULUMI_CONFIG_PASSPHRASE" not in from_file

    remote = env_after_sourcing(root, PULUMI_BACKEND_URL="s3://my-state-bucket/hyperpod?region=us-west-2")
    assert remote["PULUMI_BACKEND_URL"] == "s3://my-state-bucket/hyperpod?region=us-west-2"
    assert "PULUMI_CONFIG_PASSPHRASE" not in remote  # the reader's backend: the reader's secrets provider
    assert not (root / "s3:").exists()  # and no local folder named after the URL
