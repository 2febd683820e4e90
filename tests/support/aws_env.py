"""An environment where botocore finds no AWS region and no credentials, and asks no instance
metadata service: what `up`, a preview and `hyperpod plan` meet on a machine set up for nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

UNSET = (
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_PROFILE",
    "AWS_DEFAULT_PROFILE",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
    "AWS_CONTAINER_CREDENTIALS_FULL_URI",
    "HYPERPOD_BACKEND",
)


def no_aws_config(monkeypatch: pytest.MonkeyPatch, directory: Path) -> None:
    for name in UNSET:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(directory / "no-config"))  # files that do not exist
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(directory / "no-credentials"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
