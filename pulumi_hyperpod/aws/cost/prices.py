"""Price tables: on-demand USD per instance-hour, by instance type and region.

The shipped table (`pulumi_hyperpod/data/prices.yaml`) holds public list prices with their
source and date. A user's own numbers are layered over it: a file (`$HYPERPOD_PRICES` or an
explicit path) and a dict (the provider's `prices` setting). A lookup asks the layers from the
last to the first; the first that knows the type in that region answers. A type nobody knows is
`None` — "price unknown" — never zero.

Accepted data (the shipped file's format, or a flat mapping):

    {"ml.p5.48xlarge": 55.0}                                    # applies in every region
    {"prices": {"ml.p5.48xlarge": {"usd": 55.0, "source": "EDP rate"}},
     "applies_in": ["us-east-1"],                               # optional: where `prices` apply
     "regions": {"eu-west-1": {"ml.p5.48xlarge": 71.5}}}        # per-region prices
"""

from __future__ import annotations

from dataclasses import dataclass
import math
import os
import pkgutil
from functools import lru_cache
from pathlib import Path
from typing import Any
from collections.abc import Mapping

import yaml

from pulumi_hyperpod.core.errors import InputError
from importlib import resources


PRICES_ENV = "HYPERPOD_PRICES"
FORMAT = "hyperpod-prices/1"
_TOP_KEYS = frozenset({"format", "currency", "checked", "applies_in", "sources", "prices", "regions"})


class PriceTableError(ValueError):
    """A price file or dict that cannot be used; the message names where and what to do."""


@lru_cache(maxsize=1)
def _price_file_error() -> type:
    """The InputError of a price file (its kind names it; its size limit is a spec's), made on first
    use: core.errors loads the service model, which pricing a plan does not need otherwise."""

    class PriceFileError(InputError):
        kind = "price"

    return PriceFileError


@dataclass(frozen=True, slots=True)
class Price:
    per_hour: float
    source: str  # a key of the table's `sources`, or where an override came from


class _Layer:
    """One source of prices in a table. Never changed once made. A plain class: never compared nor
    shown, and the methods a dataclass generates are compiled when the module loads, in every preview."""

    __slots__ = ("applies_in", "checked", "origin", "prices", "regions", "sources")

    def __init__(
        self,
        *,
        origin: str,  # "shipped table", a file path, "prices setting"
        prices: Mapping[str, Price],
        applies_in: frozenset[str] | None,  # None: every region
        regions: Mapping[str, Mapping[str, Price]],
        checked: str | None,
        sources: Mapping[str, str],
    ) -> None:
        self.origin = origin
        self.prices = prices
        self.applies_in = applies_in
        self.regions = regions
        self.checked = checked
        self.sources = sources

    def lookup(self, instance_type: str, region: str) -> Price | None:
        regional = self.regions.get(region)
        if regional and instance_type in regional:
            return regional[instance_type]
        if self.applies_in is None or region in self.applies_in:
            return self.prices.get(instance_type)
        return None


class PriceTable:
    """Layers of prices; later layers win. Immutable: `merged` returns a new table."""

    currency = "USD"

    def __init__(self, layers: tuple[_Layer, ...] = ()) -> None:
        self._layers = tuple(layers)

    @classmethod
    def from_data(cls, data: Any, origin: str = "prices setting") -> PriceTable:
        return cls((_layer(data, origin),))

    @classmethod
    def from_file(cls, path: str | Path) -> PriceTable:
        """A price file, read as every input is (core/documents.py): JSON or YAML 1.2 (`010` refused
        as ambiguous, `1:20` text), a regular file only, size and depth limits."""
        from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - not on a no-change preview's path (tests/unit/provider/test_diff_lean.py)

        path = Path(path)
        if not os.path.lexists(path):
            raise PriceTableError(f"{path}: cannot read the price file: no such file")
        try:
            data = read_document(path, _price_file_error())
        except InputError as error:
            raise PriceTableError(" ".join(error.lines())) from None
        return cls.from_data(data, origin=str(path))

    def merged(self, other: PriceTable | Mapping[str, Any] | None, origin: str = "prices setting") -> PriceTable:
        if other is None:
            return self
        if not isinstance(other, PriceTable):
            other = PriceTable.from_data(other, origin)
        return PriceTable(self._layers + other._layers)

    # ---- lookups -------------------------------------------------------------------------------
    def price(self, instance_type: str, region: str) -> Price | None:
        for layer in reversed(self._layers):
            found = layer.lookup(instance_type, region)
            if found is not None:
                return found
        return None

    def per_hour(self, instance_type: str | None, region: str) -> float | None:
        found = self.price(instance_type, region) if instance_type else None
        return found.per_hour if found is not None else None

    def instance_types(self, region: str) -> frozenset[str]:
        known: set[str] = set()
        for layer in self._layers:
            for name in set(layer.prices) | set(layer.regions.get(region, {})):
                if layer.lookup(name, region) is not None:
                    known.add(name)
        return frozenset(known)

    def describe(self) -> str:
        """Where the numbers come from, for the plan's cost lines."""
        parts = []
        for layer in self._layers:
            checked = f", checked {layer.checked}" if layer.checked else ""
            parts.append(f"{layer.origin}{checked}")
        return " + ".join(parts) or "no prices"

    def sources(self) -> dict[str, str]:
        merged: dict[str, str] = {}
        for layer in self._layers:
            merged.update(layer.sources)
        return merged


# ---- loading -------------------------------------------------------------------------------------
@lru_cache(maxsize=1)
def shipped_prices() -> PriceTable:
    """The table shipped with the package (loaded once)."""
    # pkgutil (loaded with the Pulumi host) reads it through the package's loader as
    # importlib.resources would, without importing its readers (1.5 ms in every provider process)
    data = pkgutil.get_data("pulumi_hyperpod", "data/prices.yaml")
    if data is None:  # a loader that cannot read data files: importlib.resources' way
        data = resources.files("pulumi_hyperpod").joinpath("data/prices.yaml").read_bytes()
    text = data.decode("utf-8")
    # libyaml's parser when present (same safe loader, ~10x faster): every provider process
    # that prices a plan reads this file
    return PriceTable.from_data(yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)), origin="shipped list prices")


@lru_cache(maxsize=8)
def _defaults(env_path: str | None) -> PriceTable:
    table = shipped_prices()
    if not env_path:
        return table
    try:
        return table.merged(PriceTable.from_file(env_path))
    except PriceTableError as error:  # say where the path came from: no command line names it
        raise PriceTableError(f"${PRICES_ENV}: {error}") from None


def default_prices() -> PriceTable:
    """The shipped table, with the file named by $HYPERPOD_PRICES over it (each loaded once)."""
    return _defaults(os.environ.get(PRICES_ENV) or None)


def load_prices(path: str | Path | None = None, overrides: Mapping[str, Any] | None = None) -> PriceTable:
    """Shipped table + a price file (`path`, else $HYPERPOD_PRICES) + a dict of overrides."""
    table = default_prices() if path is None else shipped_prices().merged(PriceTable.from_file(path))
    return table.merged(overrides) if overrides else table


def as_price_table(prices: PriceTable | Mapping[str, Any] | str | Path | None) -> PriceTable:
    """What `pipeline.make_plan(prices=…)` and `cost_report(prices=…)` accept, as a table."""
    if prices is None:
        return default_prices()
    if isinstance(prices, PriceTable):
        return prices
    if isinstance(prices, (str, Path)):
        return load_prices(path=prices)
    if isinstance(prices, Mapping):
        return default_prices().merged(prices)
    raise PriceTableError(f"prices must be a PriceTable, a mapping or a file path; got {type(prices).__name__}")


# ---- validation ----------------------------------------------------------------------------------
def _layer(data: Any, origin: str) -> _Layer:
    if not isinstance(data, Mapping):
        raise PriceTableError(f"{origin}: a price table is a mapping of instance type to USD per hour; got {type(data).__name__}")
    flat = {key: value for key, value in data.items() if isinstance(key, str) and key.startswith("ml.")}
    unknown = [key for key in data if key not in flat and key not in _TOP_KEYS]
    if unknown:
        key = unknown[0]
        hint = f" (did you mean ml.{key}?)" if isinstance(key, str) and "." in key else ""
        raise PriceTableError(f"{origin}: unknown key {key!r}{hint}; expected ml.* instance types or {', '.join(sorted(_TOP_KEYS))}")
    if data.get("format", FORMAT) != FORMAT:
        raise PriceTableError(f"{origin}: format {data.get('format')!r} is not {FORMAT}")
    if data.get("currency", "USD") != "USD":
        raise PriceTableError(f"{origin}: currency {data.get('currency')!r}: only USD prices are supported")
    default_source = "override" if origin != "shipped list prices" else "shipped"
    prices = {**_prices(data.get("prices") or {}, f"{origin}: prices", default_source), **_prices(flat, origin, default_source)}
    regions_data = data.get("regions") or {}
    if not isinstance(regions_data, Mapping):
        raise PriceTableError(f"{origin}: regions must map a region name to its prices")
    regions = {
        str(region): _prices(entries or {}, f"{origin}: regions.{region}", default_source) for region, entries in regions_data.items()
    }
    applies_in = data.get("applies_in")
    if applies_in is not None and (isinstance(applies_in, str) or not all(isinstance(r, str) for r in applies_in)):
        raise PriceTableError(f"{origin}: applies_in must be a list of region names")
    sources = data.get("sources") or {}
    return _Layer(
        origin=origin,
        prices=prices,
        applies_in=frozenset(applies_in) if applies_in is not None else None,
        regions=regions,
        checked=str(data["checked"]) if data.get("checked") else None,
        sources={str(k): " ".join(str(v).split()) for k, v in sources.items()} if isinstance(sources, Mapping) else {},
    )


def _prices(entries: Any, where: str, default_source: str) -> dict[str, Price]:
    if not isinstance(entries, Mapping):
        raise PriceTableError(f"{where}: expected a mapping of instance type to USD per hour")
    result = {}
    for name, value in entries.items():
        if not isinstance(name, str) or not name.startswith("ml."):
            hint = f" (did you mean ml.{name}?)" if isinstance(name, str) else ""
            raise PriceTableError(f"{where}: {name!r} is not an ml.* instance type{hint}")
        source = default_source
        if isinstance(value, Mapping):
            source = str(value.get("source") or default_source)
            value = value.get("usd", value.get("per_hour"))
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
            raise PriceTableError(f"{where}.{name}: a price is a number of USD per hour, 0 or more; got {value!r}")
        result[name] = Price(float(value), source)
    return result
