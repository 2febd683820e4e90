"""The errors bad input raises: every broken rule, each with its field path and the file it came from.

Neutral (docs/DESIGN.md, "The core"): both clouds, the Slurm layer and every front end share them.

One family for every file a user hands us (cluster spec, policy, snapshot), so every front end
reports them the same way: one line per problem, `FILE: FIELD.PATH: rule`.
"""

from __future__ import annotations

from typing import NamedTuple


class Violation(NamedTuple):
    """One broken rule: where (a field path such as `InstanceGroups[2].MinInstanceCount`) and why.
    A named pair, so callers may unpack it as `(path, rule)`."""

    path: str
    rule: str

    def __str__(self) -> str:
        return f"{self.path}: {self.rule}" if self.path else self.rule


SHOWN = 50  # problems listed one per line; the rest are counted


class InputError(Exception):
    """Input that breaks one or more rules. Raised before any API call is made.

    Not a ValueError on purpose: pydantic wraps ValueErrors raised inside validators into its own
    ValidationError with less readable text; this type passes through unchanged.
    """

    kind = "input"

    def __init__(self, violations: list[Violation], source: str | None = None):
        self.violations = list(violations)
        self.source = source
        super().__init__(self._render())

    def lines(self) -> list[str]:
        """One self-contained line per problem: where (file, field path) and the rule; at most
        `SHOWN` of them, so a file with ten thousand unknown keys does not flood a terminal."""
        where = self.source or self.kind
        lines = [f"{where}: {violation}" for violation in self.violations[:SHOWN]]
        if len(self.violations) > SHOWN:
            lines.append(f"{where}: {len(self.violations) - SHOWN} more problems not shown")
        return lines

    def _render(self) -> str:
        count = len(self.violations)
        if count == 1:
            return self.lines()[0]
        header = f"{count} problems in the {self.kind}{f' {self.source}' if self.source else ''}:"
        return "\n".join([header, *self.lines()])

    def as_dicts(self) -> list[dict[str, str]]:
        return [{"path": v.path, "rule": v.rule} for v in self.violations]


class SpecError(InputError):
    """A cluster spec that breaks one or more rules."""

    kind = "cluster spec"


class PolicyError(InputError):
    """A policy file that breaks one or more rules."""

    kind = "policy"


class SnapshotError(InputError):
    """A snapshot (`--observed FILE`) that is not a consistent DescribeCluster + ListClusterNodes."""

    kind = "snapshot"
