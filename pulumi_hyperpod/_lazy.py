"""PEP 562 lazy exports for package `__init__` files: a public name is imported from its
submodule on first use, so importing a package costs only what its caller touches (a Pulumi
preview starts two Python processes; each pays for every module it imports, at start and exit)."""

from __future__ import annotations

import importlib
import inspect
import sys
import types
from typing import Any, Callable, Mapping


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


def callable_package(package: str, function: str) -> None:
    """Make `package` callable as its own `function`: `pulumi_hyperpod.apply(...)` calls
    `pulumi_hyperpod.aws.apply.apply(...)`. The name is then the subpackage and the function at once, so
    dotted paths through it resolve (`import pulumi_hyperpod.aws.apply.waiters as w`, `mock.patch(
    "pulumi_hyperpod.aws.observe.reader.list_nodes")`), which a function in the subpackage's place broke."""

    class CallablePackage(types.ModuleType):
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            return getattr(self, function)(*args, **kwargs)

        @property
        def __signature__(self) -> inspect.Signature:  # help() and inspect show the function's parameters
            return inspect.signature(getattr(self, function))

    CallablePackage.__name__ = CallablePackage.__qualname__ = f"CallablePackage[{function}]"
    sys.modules[package].__class__ = CallablePackage
