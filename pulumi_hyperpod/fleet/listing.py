"""`hyperpod list --fleet`: the clusters of every account × region a fleet file's stacks name.

Pure over `list_one(account, region)`, which returns one region's rows (the CLI's: ListClusters, every
page, and DescribeCluster each) or raises. The regions are read concurrently, at most `parallel` at
once, in a thread pool: the work is waiting on the service, not computing. A region that cannot be
read (no credentials, AccessDenied) is kept as its error, and the others are still listed.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from pulumi_hyperpod.fleet.spec import FleetStack
from pulumi_hyperpod.fleet.summary import DEFAULT_ACCOUNT

Where = tuple[str, str]  # (account, region); a stack without an account is in DEFAULT_ACCOUNT


@dataclass(frozen=True)
class RegionListing:
    """One account × region: its clusters' rows, or why it could not be read."""

    account: str
    region: str
    rows: tuple[Mapping[str, Any], ...] = ()
    error: str | None = None


def places(stacks: Iterable[FleetStack]) -> dict[Where, FleetStack]:
    """Each account × region the stacks name, in fleet order, with the first stack naming it (whose
    environment — credentials, profile, endpoint — the region is read with)."""
    found: dict[Where, FleetStack] = {}
    for stack in stacks:
        found.setdefault((stack.account or DEFAULT_ACCOUNT, stack.region), stack)
    return found


def list_fleet(
    where: Sequence[Where],
    list_one: Callable[[str, str], Sequence[Mapping[str, Any]]],
    parallel: int = 8,
    word: Callable[[Exception], str] = str,
) -> list[RegionListing]:
    """Every account × region's listing, at most `parallel` read at once, in `where`'s order; an
    error reading one (worded by `word`) is that region's result, not the whole listing's."""

    def one(place: Where) -> RegionListing:
        account, region = place
        try:
            return RegionListing(account, region, rows=tuple(list_one(account, region)))
        except Exception as error:  # this region's failure is its line; the other regions are still listed
            return RegionListing(account, region, error=word(error))

    with ThreadPoolExecutor(max_workers=max(1, min(parallel, len(where) or 1)), thread_name_prefix="fleet-list") as pool:
        return list(pool.map(one, where))


def fleet_rows(listings: Iterable[RegionListing]) -> list[dict[str, Any]]:
    """The listed clusters as one list of rows: each region's rows, with its `account` and `region`."""
    return [{"account": listing.account, "region": listing.region, **row} for listing in listings for row in listing.rows]


def failures(listings: Iterable[RegionListing]) -> list[str]:
    """One line per region that could not be read, naming its account and region."""
    return [f"account {listing.account} region {listing.region}: {listing.error}" for listing in listings if listing.error is not None]
