"""Keyset pagination: a NextToken remembers the last item's sort key, not an offset.

So a node that appears or disappears between two pages neither repeats nor hides another one,
and each page is a bisect into the sorted keys (a 2,000-node ListClusterNodes stays cheap).
"""

from __future__ import annotations

import base64
import bisect
import json
from typing import Any
from collections.abc import Sequence

from pulumi_hyperpod.sim.aws.errors import ValidationException


def encode(key: Sequence[Any]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key), separators=(",", ":")).encode()).decode()


def decode(token: str) -> tuple:
    try:
        return tuple(json.loads(base64.urlsafe_b64decode(token.encode())))
    except Exception:
        raise ValidationException.field("NextToken", "is not a token this operation returned") from None


def response(result_key: str, items: list[Any], keys: list[tuple], params: dict, **options: Any) -> dict:
    """A List* response: one page of `items` (sorted ascending by `keys`) under `result_key`, in the
    request's SortOrder, with the NextToken when more follow."""
    chosen, token = page(
        items,
        keys,
        descending=params.get("SortOrder") == "Descending",
        max_results=params.get("MaxResults"),
        token=params.get("NextToken"),
        **options,
    )
    answer: dict = {result_key: chosen}
    if token:
        answer["NextToken"] = token
    return answer


def page(
    items: list[Any],
    keys: list[tuple],
    *,
    descending: bool,
    max_results: int | None,
    token: str | None,
    default_max: int = 100,
) -> tuple[list[Any], str | None]:
    """One page of `items` (sorted ascending by `keys`), in the requested order."""
    limit = max_results or default_max
    if descending:
        end = bisect.bisect_left(keys, decode(token)) if token else len(keys)
        start = max(0, end - limit)
        chosen = items[start:end][::-1]
        next_token = encode(keys[start]) if start > 0 else None
    else:
        start = bisect.bisect_right(keys, decode(token)) if token else 0
        end = start + limit
        chosen = items[start:end]
        next_token = encode(keys[end - 1]) if end < len(keys) else None
    return chosen, next_token
