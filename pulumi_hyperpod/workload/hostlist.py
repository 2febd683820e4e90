"""Slurm's hostlist syntax: `ip-10-1-17-[1-3,7]`, `gpu[01-02]-[a,b]`, `n1,n2` → node names.

As `scontrol show hostnames` expands it: bracketed ranges keep their zero padding (`[01-03]` gives
01, 02, 03), several bracket groups in one name multiply out left to right, and commas outside
brackets separate names.
"""

from __future__ import annotations

import itertools
import re

_MAX_NAMES = 100_000  # a hostlist naming more nodes than any HyperPod cluster holds is a mistake


class HostlistError(ValueError):
    pass


def expand(hostlist: str) -> list[str]:
    """The node names a hostlist names, in its order, each once."""
    names: list[str] = []
    seen: set[str] = set()
    for part in _split_top(hostlist.strip()):
        for name in _expand_one(part):
            if name not in seen:
                seen.add(name)
                names.append(name)
                if len(names) > _MAX_NAMES:
                    raise HostlistError(f"hostlist {hostlist[:60]!r} names more than {_MAX_NAMES:,} nodes")
    return names


def _split_top(text: str) -> list[str]:
    parts, depth, current = [], 0, []
    for char in text:
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth < 0:
                raise HostlistError(f"hostlist {text!r}: ']' without '['")
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if depth:
        raise HostlistError(f"hostlist {text!r}: '[' without ']'")
    parts.append("".join(current))
    return [p.strip() for p in parts if p.strip()]


def _expand_one(pattern: str) -> list[str]:
    pieces = re.split(r"(\[[^\]]*\])", pattern)
    choices = [_range(piece[1:-1], pattern) if piece.startswith("[") else [piece] for piece in pieces]
    return ["".join(combo) for combo in itertools.product(*choices)]


def _range(body: str, pattern: str) -> list[str]:
    values: list[str] = []
    for item in body.split(","):
        item = item.strip()
        match = re.fullmatch(r"(\d+)(?:-(\d+))?", item)
        if not match:
            if item and re.fullmatch(r"[A-Za-z0-9_.]+", item):
                values.append(item)
                continue
            raise HostlistError(f"hostlist {pattern!r}: {item!r} is not a number or a range")
        low, high = match.group(1), match.group(2) or match.group(1)
        if int(high) < int(low):
            raise HostlistError(f"hostlist {pattern!r}: range {item} goes down")
        if int(high) - int(low) > _MAX_NAMES:
            raise HostlistError(f"hostlist {pattern!r}: range {item} names more than {_MAX_NAMES:,} nodes")
        width = len(low) if low.startswith("0") and len(low) > 1 else 0
        values.extend(str(n).zfill(width) for n in range(int(low), int(high) + 1))
    return values
