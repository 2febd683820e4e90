"""PEP 562 lazy exports for package `__init__` files: a public name is imported from its
submodule on first use, so importing a package costs only what its caller touches (a Pulumi
preview starts two Python processes; each pays for every module it imports, at start and exit)."""

from __future__ import annotations

import importlib
import sys
from typing import Any
from collections.abc import Callable, Mapping


def lazy_exports(package: str, exports: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public `exports` map a name to the relative
    submodule defining it (".executor"). A resolved name is cached in the package's namespace."""

    def __getattr__(name: str) -> Any:
        submodule = exports.get(name)
        if submodule is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(submodule, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exports))

    return __getattr__, __dir__
