"""Tables several commands print."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from ..observe import ClusterState


def status_table(state: ClusterState) -> Table:
    table = Table(title=Text(f"{state.name} [{state.status}]" + (f" — {state.failure_message}" if state.failure_message else "")), title_justify="left")
    for column in ("group", "type", "status", "current", "target", "min", "instance types"):
        table.add_column(column)
    for g in state.groups:
        table.add_row(g.name, g.node_type or "-", g.status or "-", str(g.current_count), str(g.target_count), str(g.min_count), ", ".join(g.instance_types))
    return table
