"""Records (dataclasses) whose methods are not compiled for every class.

`@dataclass` generates `__init__`, `__repr__`, `__eq__` (and, frozen, `__hash__`, `__setattr__`,
`__delattr__`) per class, each compiled from source when its module loads: about 0.5 ms a frozen
class, and a fresh provider process's no-change `diff` loads some thirty of them. Here those
methods are written once:

- `Mutable` holds `__init__`, `__repr__` and `__eq__`, reading the class's fields from a table
  (`_RecordLayout`) its decorator makes once, with the generated methods' semantics (positional then
  keyword-only parameters, defaults and default factories, `__post_init__`; repr and compare per
  field's flags). `@mutable_record` declares a plain dataclass on it (the program's argument
  classes), with the signature the generated `__init__` would show.
- `Frozen` adds `__hash__`, and a `__setattr__`/`__delattr__` raising FrozenInstanceError after
  `__init__`, as frozen=True does (`dataclasses.replace` makes a new record). `@record` declares a
  frozen record on it: nothing compiled for the class, about a tenth of the decorator's import cost.
  (A class on `Frozen` declared `@dataclass(unsafe_hash=True)` still gets its methods generated.)
- `Entity` holds only that `__init__` (identity, not value: object's eq, hash and repr); `@entity`
  declares the simulator's entities on it (a cluster, a group: mutated in place).
- `@bulk_record`, for records made one per node, group or price, keeps frozen=True's compiled
  `__init__` (no call per field) and frozen `__setattr__`/`__delattr__`, and takes Frozen's repr,
  eq and hash.

The price of `@record` is per instance: `__init__` matches its arguments in Python (a few µs a
record). Records made once per plan, cluster or process use it, and NodeState (a listing builds
each node's without `__init__`); the per-node ones a plan makes (NodeBasis, Victim) are
`@bulk_record`s.
"""

from __future__ import annotations

from dataclasses import MISSING, FrozenInstanceError, dataclass, field, fields
from reprlib import recursive_repr
from typing import TYPE_CHECKING, Any, Callable, ClassVar, TypeVar, cast

if TYPE_CHECKING:  # pragma: no cover - what the type checker reads; nothing imported at run time
    from typing_extensions import dataclass_transform
else:

    def dataclass_transform(**_: Any) -> Any:
        return lambda decorated: decorated


R = TypeVar("R", bound=type)


class _RecordLayout:
    """What the generated methods of one record class would have spelled out in their source.
    (A plain class: a NamedTuple would compile its own `__new__` when this module loads.)"""

    __slots__ = ("name", "positional", "keyword_only", "defaults", "factories", "assigned", "shown", "compared", "hashed", "post_init")

    def __init__(
        self,
        *,
        name: str,  # the class's __qualname__, for messages
        positional: tuple[str, ...],  # __init__'s parameters before `*`
        keyword_only: frozenset[str],  # after `*`
        defaults: dict[str, Any],  # parameter or init=False field -> its default
        factories: dict[str, Callable[[], Any]],  # parameter or init=False field -> its default factory
        assigned: tuple[str, ...],  # the fields __init__ sets, in declaration order
        shown: tuple[str, ...],  # __repr__
        compared: tuple[str, ...],  # __eq__
        hashed: tuple[str, ...],  # __hash__
        post_init: bool,  # __init__ ends with __post_init__()
    ) -> None:
        self.name, self.positional, self.keyword_only = name, positional, keyword_only
        self.defaults, self.factories, self.assigned = defaults, factories, assigned
        self.shown, self.compared, self.hashed, self.post_init = shown, compared, hashed, post_init


def _layout(cls: type) -> _RecordLayout:
    declared = fields(cls)
    parameters = [f for f in declared if f.init]
    keyword_only = frozenset(f.name for f in parameters if f.kw_only)
    defaults = {f.name: f.default for f in declared if f.default is not MISSING}
    factories = {f.name: f.default_factory for f in declared if f.default_factory is not MISSING}
    return _RecordLayout(
        name=cls.__qualname__,
        positional=tuple(f.name for f in parameters if f.name not in keyword_only),
        keyword_only=keyword_only,
        defaults=defaults,
        factories=factories,
        # an init=False field with a plain default is read from the class, as the generated __init__ leaves it
        assigned=tuple(f.name for f in declared if f.init or f.name in factories),
        shown=tuple(f.name for f in declared if f.repr),
        compared=tuple(f.name for f in declared if f.compare),
        hashed=tuple(f.name for f in declared if (f.compare if f.hash is None else f.hash)),
        post_init=hasattr(cls, "__post_init__"),
    )


class Entity:
    """The base of `@entity` classes, and of `Mutable`: a dataclass's `__init__`, written once over the
    class's field table. An entity is compared, hashed and shown by identity (object's methods)."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]
    _record_layout: ClassVar[_RecordLayout]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        layout = self._record_layout
        if len(args) > len(layout.positional):
            raise TypeError(
                f"{layout.name}.__init__() takes {len(layout.positional) + 1} positional arguments but {len(args) + 1} were given"
            )
        values = dict(zip(layout.positional, args))
        for name, value in kwargs.items():
            if name in values:
                raise TypeError(f"{layout.name}.__init__() got multiple values for argument {name!r}")
            if name not in layout.keyword_only and name not in layout.positional:
                raise TypeError(f"{layout.name}.__init__() got an unexpected keyword argument {name!r}")
            values[name] = value
        assign = object.__setattr__  # the class's own __setattr__ refuses; data descriptors still apply
        for name in layout.assigned:
            if name in values:
                assign(self, name, values[name])
            elif name in layout.defaults:
                assign(self, name, layout.defaults[name])
            elif name in layout.factories:
                assign(self, name, layout.factories[name]())
            else:
                kind = "keyword-only" if name in layout.keyword_only else "positional"
                raise TypeError(f"{layout.name}.__init__() missing 1 required {kind} argument: {name!r}")
        if layout.post_init:
            self.__post_init__()  # type: ignore[attr-defined]


class Mutable(Entity):
    """The base of `@mutable_record` classes, and of `Frozen`: Entity's `__init__` with a dataclass's
    `__repr__` and `__eq__` (unhashable, as a dataclass with eq=True and not frozen)."""

    __slots__ = ()

    @recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self._record_layout.shown)
        return f"{self.__class__.__qualname__}({shown})"

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        names = self._record_layout.compared
        return tuple(getattr(self, n) for n in names) == tuple(getattr(other, n) for n in names)

    # no __hash__: defining __eq__ leaves the class unhashable, as a dataclass with eq=True and not frozen


class Frozen(Mutable):
    """The base of `@record` classes: Mutable's methods, a hash, and no assignment after __init__."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, n) for n in self._record_layout.hashed))

    def __setattr__(self, name: str, value: Any) -> None:
        # a field not set yet is being set by __init__; anything else is an assignment frozen=True refuses
        if name in self.__dict__ or name not in self.__dataclass_fields__:
            raise FrozenInstanceError(f"cannot assign to field {name!r}")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")


@dataclass_transform(frozen_default=True, eq_default=True, field_specifiers=(field,))
def record(cls: R) -> R:
    """A frozen record on `Frozen`: a dataclass at run time whose `__init__`, `__eq__`, `__hash__`
    and `__repr__` are Frozen's (behaving as frozen=True's), read by type checkers as frozen=True, so
    an assignment to a field is a type error as well as a FrozenInstanceError. A method the class
    defines itself is kept, as the decorator keeps it."""
    return _on_frozen(cls, "record", init=False, repr=False, eq=False)


@dataclass_transform(frozen_default=True, eq_default=True, field_specifiers=(field,))
def bulk_record(cls: R) -> R:
    """A frozen record made in bulk (one per group or price): `@dataclass(frozen=True)`'s own
    compiled `__init__` (no call per field) and `__setattr__`/`__delattr__`, with Frozen's `__repr__`,
    `__eq__` and `__hash__`: three methods fewer compiled per class, the same per-instance cost."""
    return _on_frozen(cls, "bulk_record", frozen=True, repr=False, eq=False)


def _on_frozen(cls: R, decorator: str, **generated: bool) -> R:
    """`cls` as a dataclass generating only `generated`'s methods, with its field table for Frozen's."""
    if not issubclass(cls, Frozen):
        raise TypeError(f"@{decorator} needs {cls.__name__} to derive from Frozen")
    if "__eq__" in cls.__dict__ or "__hash__" in cls.__dict__:
        raise TypeError(f"@{decorator}: {cls.__name__} defines __eq__ or __hash__; declare it with @dataclass instead")
    made = dataclass(**generated)(cls)
    cast(Any, made)._record_layout = _layout(made)
    return cast(R, made)


@dataclass_transform(field_specifiers=(field,))
def entity(cls: R) -> R:
    """A dataclass declared `eq=False, repr=False` (an entity mutated in place, the same one the same
    object) on `Entity`: the same `__init__`, not compiled for the class."""
    if not issubclass(cls, Entity) or issubclass(cls, Mutable):
        raise TypeError(f"@entity needs {cls.__name__} to derive from Entity")
    made = dataclass(init=False, repr=False, eq=False)(cls)
    cast(Any, made)._record_layout = _layout(made)
    return cast(R, made)


class _Signature:
    """`inspect.signature(cls)` of a `@mutable_record`: the parameters the generated `__init__` would
    have shown (help(), IDEs), built when asked."""

    def __get__(self, instance: object, owner: type) -> Any:
        import inspect

        layout: _RecordLayout = cast(Any, owner)._record_layout
        declared = {f.name: f for f in fields(owner)}

        def parameter(name: str) -> inspect.Parameter:
            kind = inspect.Parameter.KEYWORD_ONLY if name in layout.keyword_only else inspect.Parameter.POSITIONAL_OR_KEYWORD
            default = layout.defaults.get(name, _FACTORY if name in layout.factories else inspect.Parameter.empty)
            return inspect.Parameter(name, kind, default=default, annotation=declared[name].type)

        names = [*layout.positional, *(name for name in declared if name in layout.keyword_only)]
        return inspect.Signature([parameter(name) for name in names], return_annotation=None)


class _Factory:
    def __repr__(self) -> str:
        return "<factory>"  # how the generated __init__'s signature shows a default factory


_FACTORY = _Factory()


@dataclass_transform(field_specifiers=(field,))
def mutable_record(cls: R) -> R:
    """A dataclass (mutable, compared by value, unhashable) on `Mutable`: the same `__init__`,
    `__repr__`, `__eq__` and signature as `@dataclass` gives, none of them compiled for the class."""
    if not issubclass(cls, Mutable) or issubclass(cls, Frozen):
        raise TypeError(f"@mutable_record needs {cls.__name__} to derive from Mutable")
    if "__eq__" in cls.__dict__:
        raise TypeError(f"@mutable_record: {cls.__name__} defines __eq__; declare it with @dataclass instead")
    made = dataclass(init=False, repr=False, eq=False)(cls)
    cast(Any, made)._record_layout = _layout(made)
    cast(Any, made).__signature__ = _Signature()
    return cast(R, made)
