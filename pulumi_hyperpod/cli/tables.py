"""Tables several commands print. Cells are `Text`: names are printed as written, never as markup."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from rich.table import Table

    from pulumi_hyperpod.aws.observe import ClusterState


def status_table(state: ClusterState) -> Table:
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)
    from rich.text import Text  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    title = f"{state.name} [{state.status}]" + (f" — {state.failure_message}" if state.failure_message else "")
    table = Table(title=Text(title), title_justify="left")
    for column in ("group", "type", "status", "current", "target", "min", "instance types"):
        table.add_column(column, overflow="fold")  # a name is never shown shortened to "…"
    for g in state.groups:
        cells = (
            g.name + (" (restricted)" if g.restricted else ""),
            g.node_type or "-",
            g.status or "-",
            str(g.current_count),
            str(g.target_count),
            str(g.min_count),
            ", ".join(g.instance_types),
        )
        table.add_row(*(Text(cell) for cell in cells))
    return table
