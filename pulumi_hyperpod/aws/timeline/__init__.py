"""Pictures of a cluster over time: target, current and usable nodes per instance group.

`series` turns a cluster's events (ListClusterEvents, simulated or real) into step series;
`svg` draws them; `png` converts the drawing when the optional `cairosvg` is installed.
"""

from pulumi_hyperpod.aws.timeline.series import Panel, Point, panels_from_events
from pulumi_hyperpod.aws.timeline.svg import render_svg

__all__ = ["Panel", "Point", "panels_from_events", "render_svg"]
