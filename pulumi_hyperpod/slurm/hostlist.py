"""Slurm's hostlist syntax: `ip-10-1-17-[1-3,7]`, `gpu[01-02]-[a,b]`, `n1,n2` → node names.

As `scontrol show hostnames` expands it: bracketed ranges keep their zero padding (`[01-03]` gives
01, 02, 03), several bracket groups in one name multiply out left to right, and commas outside
brackets separate names.
"""

from __future__ import annotations

import itertools
import re

_MAX_NAMES = 100_000  # a hostlist naming more nodes than any HyperPod cluster holds is a mistake
_MAX_DIGITS = 18  # a range bound longer than this is no node number (and Python refuses to read 4,300 digits)


class HostlistError(ValueError):
    pass


def expand(hostlist: str) -> list[str]:
    """The node names a hostlist names, in its order, each once. How many it names is counted from
    the ranges first (the product of their sizes): `ip-[0-9999]-[0-9999]-[0-9]` is refused in
    microseconds, never built."""
    parts = [_parse_one(part) for part in _split_top(hostlist.strip())]
    total = sum(_count(choices) for choices in parts)
    if total > _MAX_NAMES:
        raise HostlistError(f"hostlist {_quoted(hostlist)} names {_amount(total)} nodes; at most {_MAX_NAMES:,}")
    names: dict[str, None] = {}
    for choices in parts:
        names.update(dict.fromkeys("".join(combo) for combo in itertools.product(*(_values(c) for c in choices))))
    return list(names)


def _quoted(text: str) -> str:
    return repr(text[:60] + ("…" if len(text) > 60 else ""))


def _amount(total: int) -> str:
    return f"{total:,}" if total < 10**15 else f"about 1e{total.bit_length() * 30103 // 100000}"  # log10(2) ≈ 0.30103


def _count(choices: list[list[tuple[int, int, int] | str]]) -> int:
    """How many names one pattern makes, as written (a name twice counts twice)."""
    total = 1
    for choice in choices:
        total *= sum(1 if isinstance(item, str) else item[1] - item[0] + 1 for item in choice)
    return total


def _values(choice: list[tuple[int, int, int] | str]) -> list[str]:
    values: list[str] = []
    for item in choice:
        if isinstance(item, str):
            values.append(item)
        else:
            low, high, width = item
            values.extend(str(n).zfill(width) for n in range(low, high + 1))
    return values


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise HostlistError(f"hostlist {_quoted(text)}: ']' without '['")
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if depth:
        raise HostlistError(f"hostlist {_quoted(text)}: '[' without ']'")
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _parse_one(pattern: str) -> list[list[tuple[int, int, int] | str]]:
    """A name's pieces, each a list of choices: a literal, or (low, high, zero-padded width) of a range."""
    pieces = re.split(r"(\[[^\]]*\])", pattern)
    return [_range(piece[1:-1], pattern) if piece.startswith("[") else [piece] for piece in pieces]


def _range(body: str, pattern: str) -> list[tuple[int, int, int] | str]:
    items: list[tuple[int, int, int] | str] = []
    for item in body.split(","):
        item = item.strip()
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
        if not match:
            if item and re.fullmatch(r"[A-Za-z0-9_.]+", item):
                items.append(item)
                continue
            raise HostlistError(f"hostlist {_quoted(pattern)}: {_quoted(item)} is not a number or a range")
        low, high = match.group(1), match.group(2) or match.group(1)
        if max(len(low), len(high)) > _MAX_DIGITS:
            raise HostlistError(f"hostlist {_quoted(pattern)}: a range bound has more than {_MAX_DIGITS} digits")
        if int(high) < int(low):
            raise HostlistError(f"hostlist {_quoted(pattern)}: range {item} goes down")
        width = len(low) if low.startswith("0") and len(low) > 1 else 0
        items.append((int(low), int(high), width))
    return items
