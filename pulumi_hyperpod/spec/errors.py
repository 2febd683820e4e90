"""The error a bad spec raises: every broken rule, each with its field path."""

from __future__ import annotations

from ..servicemodel import Violation


class SpecError(Exception):
    """A spec that breaks one or more rules. Raised before any API call is made.

    Not a ValueError on purpose: pydantic wraps ValueErrors raised inside validators into its own
    ValidationError with less readable text; this type passes through unchanged.
    """

    def __init__(self, violations: list[Violation], source: str | None = None):
        self.violations = list(violations)
        self.source = source
        super().__init__(self._render())

    def _render(self) -> str:
        where = f" in {self.source}" if self.source else ""
        count = len(self.violations)
        lines = [f"{count} problem{'s' if count != 1 else ''} in the cluster spec{where}:"]
        lines += [f"  - {v}" for v in self.violations]
        return "\n".join(lines)

    def as_dicts(self) -> list[dict[str, str]]:
        return [{"path": v.path, "rule": v.rule} for v in self.violations]
