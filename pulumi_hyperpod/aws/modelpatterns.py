"""Does a value match a pattern of botocore's model: the standard library's `re` when it provably
gives the answer the third-party `regex` module gives, `regex` otherwise.

The model is written for an engine that knows `\\p{L}`-style classes (`regex`). Importing `regex`
costs a fresh provider process ~6 ms, and a typical spec's values are printable ASCII matched against
plain patterns. On printable ASCII (0x20-0x7E) the two engines' `\\s`, `\\d`, `\\w`, `\\b` and `.` agree
(they differ on \\x1c-\\x1f, \\x85, \\xa0 and many non-ASCII characters), and a `\\p{...}` class inside
a set can be replaced by its ASCII members. So `re` is used when the value is printable ASCII and the
pattern, so rewritten, compiles in `re` and has none of the syntax the two engines may read
differently (fuzzy `{e<=1}` constraints, inline flags, nested or POSIX sets, set operations);
tests/unit/aws/test_modelpatterns.py checks every pattern of the sagemaker model against `regex`.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

# The printable ASCII members of each class the model's patterns use, in `regex`'s reading
# (tests/unit/aws/test_modelpatterns.py derives them from `regex` itself). A class not listed here
# (or with no ASCII member, like \p{M}) sends the pattern to `regex`.
_ASCII_MEMBERS = {
    "L": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "Z": " ",
    "N": "0123456789",
    "S": "$+<=>^`|~",
    "P": "!\"#%&'()*,-./:;?@[\\]_{}",
    "Alnum": "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
}

_CLASS_NAME = re.compile(r"\{(\w+)\}")
# A `{` that is not a plain `{m}`, `{m,}`, `{m,n}` or `{,n}` quantifier: `regex` may read it as a
# fuzzy-matching constraint where `re` reads a literal.
_QUANTIFIER = re.compile(r"\{(?:\d+(?:,\d*)?|,\d+)\}")
# Groups both engines read alike; any other `(?` (inline flags, `regex`'s own groups) goes to `regex`.
_PLAIN_GROUP = re.compile(r"\(\?(?::|=|!|<=|<!)")


def fullmatch(pattern: str, value: str) -> bool:
    """Whether the whole of `value` matches `pattern`, as `regex.fullmatch` answers."""
    if value.isascii() and value.isprintable():  # on ASCII, isprintable is exactly 0x20-0x7E
        compiled = _ascii_compiled(pattern)
        if compiled is not None:
            return compiled.fullmatch(value) is not None
    return _regex_compiled(pattern).fullmatch(value) is not None


@lru_cache(maxsize=512)
def _regex_compiled(pattern: str) -> Any:
    import regex  # only for a pattern or a value `re` may read differently

    return regex.compile(pattern)


@lru_cache(maxsize=512)
def _ascii_compiled(pattern: str) -> re.Pattern[str] | None:
    """`pattern` compiled by `re` for printable-ASCII values, or None when `re` may answer otherwise."""
    rewritten = _ascii_form(pattern)
    if rewritten is None or "{" in _QUANTIFIER.sub("", rewritten) or "(?" in _PLAIN_GROUP.sub("", rewritten):
        return None
    try:
        return re.compile(rewritten)
    except re.error:
        return None


def _ascii_form(pattern: str) -> str | None:
    """`pattern` with each `\\p{...}` inside a set replaced by the class's ASCII members; None when a
    class is unknown, has no ASCII member, stands outside a set, or a set holds a `[` or a set
    operation (`--`, `&&`, `||`, `~~`)."""
    out: list[str] = []
    in_set = False
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if char == "\\":
            escaped = pattern[i + 1 : i + 2]
            if escaped == "p":
                name = _CLASS_NAME.match(pattern, i + 2)
                members = _ASCII_MEMBERS.get(name.group(1), "") if name else ""
                if not (in_set and members and name):
                    return None
                out.append("".join(re.escape(member) for member in members))
                i = name.end()
                continue
            if escaped in ("P", "X", ""):
                return None
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if char == "[":
            if in_set:
                return None  # a nested set or a POSIX class: `regex` reads them, `re` does not
            in_set = True
            start = i + 1 + (pattern[i + 1 : i + 2] == "^")
            if pattern[start : start + 1] == "]":
                start += 1  # a `]` first in a set is a literal in both engines
            out.append(pattern[i:start])
            i = start
            continue
        if in_set and char in "-&|~" and pattern[i + 1 : i + 2] == char:
            return None  # a set operation (`regex` V1) that `re` warns of: not left to a global warnings filter
        if char == "]" and in_set:
            in_set = False
        out.append(char)
        i += 1
    return "".join(out)
