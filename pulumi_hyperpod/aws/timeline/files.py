"""Writing a picture: SVG as drawn, PNG through `cairosvg` (optional: `pip install 'pulumi-hyperpod[png]'`).

PNG is converted by a well-kept SVG renderer rather than drawn a second time; it is optional
because it brings Cairo bindings that nothing else here needs. Files are written whole
(files.write_whole): a reader never sees half a picture.
"""

from __future__ import annotations

import os
from pathlib import Path
from collections.abc import Iterable

from pulumi_hyperpod.core.files import write_whole

FORMATS = (".svg", ".png")


def picture_format(path: str) -> str:
    """`.svg` or `.png`, from the file name; ValueError naming the file otherwise."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise ValueError(f"{path}: --out must end in .svg or .png (got {suffix or 'no extension'})")
    return suffix


def write_picture(path: str, svg: str, inputs: Iterable[str | os.PathLike[str]] = ()) -> None:
    """The SVG document `svg` to `path`, converted to PNG when the name ends in .png; never over one of `inputs`."""
    if picture_format(path) == ".svg":
        write_whole(path, svg.encode("utf-8"), inputs=inputs)
        return
    try:
        import cairosvg  # noqa: PLC0415 - cairosvg (the png extra): only for --out FILE.png
    except ImportError:
        raise ValueError(
            f"{path}: writing PNG needs the optional cairosvg package (pip install "
            "'pulumi-hyperpod[png]'); or write .svg, which any browser shows"
        ) from None
    write_whole(path, cairosvg.svg2png(bytestring=svg.encode("utf-8"), output_width=1920), inputs=inputs)
