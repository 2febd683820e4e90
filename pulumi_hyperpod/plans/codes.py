"""What a reason code is, for every cloud: an enum member that is its own word. Each cloud's planner
declares its codes (aws/planner/codes.py, gcp/planner/codes.py), one enum per idea, on this base;
the Plan model carries them as the `str`s they are, so the JSON, the policies and the rendering show
the word (text only at the edges), and a code read back from a file equals its member."""

from __future__ import annotations

from enum import Enum


class Code(str, Enum):
    """`enum.StrEnum` (Python 3.11) for 3.10: str() and format() give the value, not "Class.MEMBER";
    repr() gives the word quoted too, so a plan's codes printed as Python data (a list of a plan's
    refusal rules, a victim's code in a program's output) read as the words the JSON holds."""

    def __repr__(self) -> str:
        return repr(self.value)

    def __str__(self) -> str:
        return str(self.value)

    def __format__(self, spec: str) -> str:
        return format(str(self.value), spec)
