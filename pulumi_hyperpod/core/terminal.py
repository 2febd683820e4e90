"""Text from users and services on its way to a terminal or a log: control characters (ESC, BEL,
CR, backspace, C1 codes) are shown escaped (`\\x1b`), never sent, so a key in a cluster file, a
region name or a service message cannot retitle the terminal, clear the screen, or forge a second
`error:` line. Rich markup is a separate matter: text is passed as `rich.text.Text`, never parsed."""

from __future__ import annotations

import re

# C0 and C1 control characters except TAB and LF (layout the renderers themselves produce)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def shown(text: str, *, one_line: bool = False) -> str:
    """`text` with its control characters escaped; `one_line`: newlines too."""
    text = _CONTROL.sub(lambda match: match.group().encode("unicode_escape").decode("ascii"), text)
    return text.replace("\n", "\\n") if one_line else text


# User text with no bound of its own (a Slurm user or job id, a Slurm node name from a --workload
# file) in the sentences and tables printed for people: a 10,000-character user name is a wall of
# text, not information. The records (a saved plan's workload view, `--json` data) keep it whole.
CLIP = 64


def clipped(text: str, limit: int = CLIP) -> str:
    """`text`, or its first characters and how many more there are when it is longer than `limit`."""
    if len(text) <= limit:
        return text
    return f"{text[: limit - 1]}… ({len(text) - limit + 1:,} more characters)"
