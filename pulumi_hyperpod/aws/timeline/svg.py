"""Panels of step series drawn as one SVG document (written directly: no plotting library).

One panel per group (or per scenario), stacked, sharing the time axis: target dashed, current
(instances that exist) and usable (instances a job can run on, filled) as steps. Text from the
cluster (names, notes) is XML-escaped; nothing of it is read as markup.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from xml.sax.saxutils import escape

from pulumi_hyperpod.aws.timeline.series import Panel, Point

WIDTH, LEFT, RIGHT, TOP, PANEL_HEIGHT, GAP, NOTE_LINE = 1000, 64, 215, 56, 190, 64, 15
SERIES = (  # (field, label, colour, stroke width, dash)
    ("usable", "usable (jobs can run)", "#2a9d3f", 3.5, ""),
    ("current", "current (instances exist)", "#e07b10", 2.0, ""),
    ("target", "target (asked for)", "#2f5fb3", 2.0, "7 5"),
)
_TIME_STEPS = (60, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400, 172800, 604800)


def _time_step(span: float) -> int:
    return next((step for step in _TIME_STEPS if span / step <= 10), _TIME_STEPS[-1])


def _time_label(seconds: float, step: int) -> str:
    if step < 1800:
        return f"{seconds / 60:g} min"
    if step < 86400:
        return f"{seconds / 3600:g} h"
    return f"{seconds / 86400:g} d"


def _count_step(top: int) -> int:
    return next(step for step in (1, 2, 4, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10**9) if top / step <= 8)


def _value(point: Point, name: str) -> int | None:
    return getattr(point, name)


def _step_path(points: Sequence[Point], name: str, end: float, x, y) -> str:
    """An SVG path of the series `name` as steps, from the first point it is known to `end`; where it
    is unknown (None) the line breaks rather than carrying the last value on."""
    parts = []
    drawing = False
    for index, point in enumerate(points):
        value = _value(point, name)
        if value is None:
            drawing = False
            continue
        until = points[index + 1].seconds if index + 1 < len(points) else end
        command = "L" if drawing else "M"
        parts.append(f"{command}{x(point.seconds):.1f},{y(value):.1f} L{x(until):.1f},{y(value):.1f}")
        drawing = True
    return " ".join(parts)


def _panel_svg(panel: Panel, top: float, span: float, time_step: int) -> list[str]:
    plot_width = WIDTH - LEFT - RIGHT
    values = [v for p in panel.points for v in (p.target, p.current, p.usable) if v is not None]
    ceiling = max([1, *values])
    count_step = _count_step(ceiling)
    ceiling = -(-ceiling // count_step) * count_step

    def x(seconds: float) -> float:
        return LEFT + plot_width * (seconds / span if span else 0)

    def y(value: float) -> float:
        return top + PANEL_HEIGHT - PANEL_HEIGHT * value / ceiling

    out = [
        f'<text x="{LEFT}" y="{top - 10}" class="panel">{escape(panel.title)}</text>',
        f'<rect x="{LEFT}" y="{top}" width="{plot_width}" height="{PANEL_HEIGHT}" class="frame"/>',
    ]
    for value in range(0, ceiling + 1, count_step):
        out.append(f'<line x1="{LEFT}" x2="{LEFT + plot_width}" y1="{y(value):.1f}" y2="{y(value):.1f}" class="grid"/>')
        out.append(f'<text x="{LEFT - 8}" y="{y(value) + 4:.1f}" class="tick" text-anchor="end">{value}</text>')
    seconds = 0
    while seconds <= span + 1e-6:
        out.append(f'<line x1="{x(seconds):.1f}" x2="{x(seconds):.1f}" y1="{top}" y2="{top + PANEL_HEIGHT}" class="grid"/>')
        out.append(
            f'<text x="{x(seconds):.1f}" y="{top + PANEL_HEIGHT + 16}" class="tick" text-anchor="middle">'
            f"{_time_label(seconds, time_step)}</text>"
        )
        seconds += time_step
    usable = _step_path(panel.points, "usable", panel.end, x, y)
    if usable:  # the usable capacity as an area: what the picture is about
        out.append(f'<path d="{usable} L{x(panel.end):.1f},{y(0):.1f} L{x(panel.points[0].seconds):.1f},{y(0):.1f} Z" class="area"/>')
    for name, _label, colour, width, dash in SERIES:
        path = _step_path(panel.points, name, panel.end, x, y)
        if path:
            dashes = f' stroke-dasharray="{dash}"' if dash else ""
            out.append(
                f'<path d="{path}" fill="none" stroke="{colour}" stroke-width="{width}"{dashes} '
                f'stroke-linejoin="round"><title>{name}</title></path>'
            )
    last = panel.points[-1]
    out.append(
        f'<text x="{LEFT + plot_width + 10}" y="{top + 16}" class="now">now: target {last.target if last.target is not None else "?"}'
        f"</text>"
    )
    out.append(f'<text x="{LEFT + plot_width + 10}" y="{top + 34}" class="now">current {last.current}, usable {last.usable}</text>')
    for index, note in enumerate(panel.notes):
        out.append(f'<text x="{LEFT}" y="{top + PANEL_HEIGHT + 34 + index * NOTE_LINE}" class="note">{escape(note)}</text>')
    return out


def render_svg(title: str, panels: Iterable[Panel], subtitle: str = "") -> str:
    """The SVG document: `title`, then the panels stacked over one time axis."""
    panels = list(panels)
    if not panels:
        raise ValueError("nothing to draw: no instance group has any point")
    span = max(max(panel.end for panel in panels), max(p.seconds for panel in panels for p in panel.points), 1.0)
    time_step = _time_step(span)
    heights = [PANEL_HEIGHT + GAP + NOTE_LINE * len(panel.notes) for panel in panels]
    height = TOP + sum(heights) + 40
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
        "<style>.title{font-size:18px;font-weight:bold}.subtitle{font-size:12px;fill:#444}"
        ".panel{font-size:14px;font-weight:bold}.tick{font-size:11px;fill:#333}.note{font-size:11px;fill:#666}"
        ".now{font-size:11px;fill:#222}.legend{font-size:12px}.frame{fill:#fff;stroke:#999}"
        ".grid{stroke:#e4e4e4}.area{fill:#2a9d3f;fill-opacity:0.14;stroke:none}</style>",
        f'<rect width="{WIDTH}" height="{height}" fill="#fff"/>',
        f'<text x="{LEFT}" y="24" class="title">{escape(title)}</text>',
    ]
    if subtitle:
        out.append(f'<text x="{LEFT}" y="42" class="subtitle">{escape(subtitle)}</text>')
    legend_x = WIDTH - RIGHT + 10
    for index, (_name, label, colour, width, dash) in enumerate(reversed(SERIES)):
        ly = TOP + PANEL_HEIGHT - 50 + index * 18
        dashes = f' stroke-dasharray="{dash}"' if dash else ""
        out.append(f'<line x1="{legend_x}" x2="{legend_x + 24}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="{width}"{dashes}/>')
        out.append(f'<text x="{legend_x + 30}" y="{ly + 4}" class="legend">{escape(label)}</text>')
    top = TOP + 20
    for panel, panel_height in zip(panels, heights, strict=True):
        out.extend(_panel_svg(panel, top, span, time_step))
        top += panel_height
    out.append("</svg>")
    return "\n".join(out) + "\n"
