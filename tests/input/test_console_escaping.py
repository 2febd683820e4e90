"""What the CLI prints of user or service text cannot drive the terminal: every control character a
cell, a title or a message carries is printed escaped, while the console's own styling still works
(cli/common.py). Done with rich's public API: no private method of rich is overridden."""

from __future__ import annotations

import io

import rich.console
from rich.table import Table
from rich.text import Text

from pulumi_hyperpod.cli.common import _console_class, cell, make_console, print_line

HOSTILE = "demo\x1b[2J\x9b31m"  # (rich itself drops BEL and a few others)
ESCAPED = "demo\\x1b[2J\\x9b31m"


def printed(render, **options) -> str:
    buffer = io.StringIO()
    console = make_console(file=buffer, width=120, **options)
    render(console)
    return buffer.getvalue()


def test_a_table_cell_and_title_are_escaped():
    def render(console):
        table = Table(title=cell(HOSTILE))
        table.add_column("name")
        table.add_row(cell(HOSTILE))
        console.print(table)

    out = printed(render)
    assert "\x1b" not in out and "\x9b" not in out
    assert out.count(ESCAPED) == 2


def test_a_line_and_a_plain_string_are_escaped():
    out = printed(lambda console: (print_line(HOSTILE, console=console), console.print(HOSTILE, markup=False)))
    assert out.splitlines() == [ESCAPED, ESCAPED]


def test_styles_still_reach_a_terminal():
    out = printed(lambda console: console.print(Text(HOSTILE, style="red")), force_terminal=True, color_system="standard")
    assert "\x1b[31m" in out and ESCAPED in out and "\x1b[2J" not in out


def test_no_private_method_of_rich_is_overridden():
    ours = _console_class()
    overridden = {name for name in vars(ours) if name in dir(rich.console.Console) and not name.startswith("__")}
    assert not {name for name in overridden if name.startswith("_")}, overridden
