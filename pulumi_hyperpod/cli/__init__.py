"""The `hyperpod` command line."""

from pulumi_hyperpod.cli.app import main

__all__ = ["main"]
