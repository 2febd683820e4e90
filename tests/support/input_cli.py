"""Running the CLI the way the input suite needs it."""

from __future__ import annotations


from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from tests.support.paths import SPECS as SPECS  # the input tests import it with run


class Run:
    def __init__(self, result):
        self.result = result
        self.code = result.exit_code
        self.output = result.output  # stdout and stderr, as a user sees them

    def lines(self) -> list[str]:
        return self.output.splitlines()


def run(*args: str) -> Run:
    """`hyperpod --backend fake ARGS`, never raising: the exit code and output are what a test reads."""
    result = CliRunner().invoke(main, ["--backend", "fake", *args])
    assert "Traceback" not in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return Run(result)
