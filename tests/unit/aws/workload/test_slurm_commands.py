"""Slurm's commands run here or through the prefix a user gives; failures are one line naming the command."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.aws.workload.slurm import CommandRunner
from pulumi_hyperpod.aws.workload.source import WorkloadError


def test_a_prefix_takes_the_command_as_arguments_or_as_one_quoted_string_where_it_has_braces() -> None:
    assert CommandRunner().argv(["squeue", "--json"]) == ["squeue", "--json"]
    assert CommandRunner("ssh -q head-node").argv(["squeue", "--json"]) == ["ssh", "-q", "head-node", "squeue", "--json"]
    ssm = CommandRunner("aws ssm start-session --target i-0123 --parameters command={}")
    assert ssm.argv(["scontrol", "update", "reason=hyperpod scale-in since 2026-12-01T10:00:00Z"]) == [
        "aws",
        "ssm",
        "start-session",
        "--target",
        "i-0123",
        "--parameters",
        "command=scontrol update 'reason=hyperpod scale-in since 2026-12-01T10:00:00Z'",
    ]


def test_a_placeholder_word_is_replaced_by_the_quoted_command() -> None:
    runner = CommandRunner("bash -c {}")
    assert runner.argv(["sinfo", "--json"]) == ["bash", "-c", "sinfo --json"]
    assert runner(["echo", "a b"]) == "a b\n"  # run through the prefix for real


def test_a_missing_command_and_a_failing_one_are_one_line_errors() -> None:
    with pytest.raises(WorkloadError, match="no-such-slurm-tool: command not found"):
        CommandRunner("no-such-slurm-tool")(["squeue", "--json"])
    with pytest.raises(WorkloadError, match=r"exit 3: boom"):
        CommandRunner("bash -c {}")(["sh", "-c", "echo boom >&2; exit 3"])
