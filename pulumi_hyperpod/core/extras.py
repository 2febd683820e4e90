"""The optional parts of the package (pyproject.toml's extras): what each is for, the modules it
brings, and the one line a user reads when a path needs one that is not installed.

The core install carries what every user needs; an EKS workload read, a Google Cloud session or a
component's supporting AWS resource imports its library inside the function that needs it, under
`needed(EXTRA)`, which turns that library's absence into a `MissingExtra` naming the extra to
install (core/messages.py renders it as one line; docs/install.md lists the extras).

Neutral (docs/DESIGN.md, "The core"): it imports nothing but the standard library.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

# extra → (what needs it, the modules it installs); `png` (cairosvg) says its own line, naming the
# file it could not write (aws/timeline/files.py)
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "eks": ("EKS workloads", ("kubernetes",)),
    "gcp": ("Google Cloud training clusters", ("google.auth",)),
    "components": ("The components' supporting AWS resources", ("pulumi_aws",)),
}


class MissingExtra(ImportError):
    """A path needs an optional dependency that is not installed: the message names the extra."""

    def __init__(self, extra: str) -> None:
        what, modules = EXTRAS[extra]
        self.extra = extra
        super().__init__(f"{what} need the '{extra}' extra: pip install 'pulumi-hyperpod[{extra}]'", name=modules[0])


def _provided_by(missing: str | None, extra: str) -> bool:
    """Whether the module that failed to import (`ModuleNotFoundError.name`) is one `extra` installs."""
    if not missing:
        return False
    return any(missing == module or missing.startswith(module + ".") for module in EXTRAS[extra][1])


@contextmanager
def needed(extra: str) -> Iterator[None]:
    """Around the lazy import of an optional library: its absence raises `MissingExtra(extra)`; any
    other import failure (a broken install, a module of ours) is raised as it is."""
    if extra not in EXTRAS:
        raise KeyError(f"no extra {extra!r}: one of {', '.join(EXTRAS)}")
    try:
        yield
    except ModuleNotFoundError as error:
        if not _provided_by(error.name, extra):
            raise
        raise MissingExtra(extra) from None
