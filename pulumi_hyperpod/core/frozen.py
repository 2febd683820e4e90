"""Frozen records without the two methods `dataclass(frozen=True)` compiles for every class.

`@dataclass(frozen=True)` generates `__setattr__` and `__delattr__` per class, each compiled from
source when its module loads (~0.1 ms apiece; with `__init__`, `__eq__`, `__hash__` and `__repr__`,
about 0.5 ms a class, and a no-change preview's `diff` loads some forty record classes in a fresh
provider process). `Frozen` holds those two once. A record derives from it and is declared
`@dataclass(unsafe_hash=True)`: `__eq__` and `__hash__` are then generated exactly as frozen=True
generates them, and `__init__` sets each field once. After that, as with frozen=True, assigning or
deleting any attribute raises FrozenInstanceError (`dataclasses.replace` makes a new record).

The price is per instance: `__init__` goes through this `__setattr__` once per field (about 0.2 µs
each). Records made once per plan or cluster use it, and NodeState (a listing builds each node's
without `__init__`); the per-node and per-group ones a plan makes (NodeBasis, Victim, GroupChange,
GroupBasis, GroupCost) stay `frozen=True`.
"""

from __future__ import annotations

from dataclasses import FrozenInstanceError, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

if TYPE_CHECKING:  # pragma: no cover - what the type checker reads; nothing imported at run time
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Any:
        return lambda decorated: decorated


R = TypeVar("R", bound=type)


class Frozen:
    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]

    def __setattr__(self, name: str, value: Any) -> None:
        # a field not set yet is being set by __init__; anything else is an assignment frozen=True refuses
        if name in self.__dict__ or name not in self.__dataclass_fields__:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


@dataclass_transform(frozen_default=True, eq_default=True, field_specifiers=(field,))
def record(cls: R) -> R:
    """A frozen record on `Frozen`: `@dataclass(unsafe_hash=True)` at run time (the same `__init__`,
    `__eq__`, `__hash__` and `__repr__` as frozen=True), read by type checkers as frozen=True, so an
    assignment to a field is a type error as well as a FrozenInstanceError."""
    if not issubclass(cls, Frozen):
        raise TypeError(f"@record needs {cls.__name__} to derive from Frozen")
    return cast(R, dataclass(unsafe_hash=True)(cls))
