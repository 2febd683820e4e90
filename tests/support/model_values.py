"""Hypothesis strategies for values of botocore shapes: what the model allows (enums, patterns,
lengths, ranges, required members, unions), so a property can range over the model itself."""

from __future__ import annotations

import datetime as dt
import re
import string
from typing import Any

from hypothesis import strategies as st

_SIMPLE = st.text(alphabet=string.ascii_letters + string.digits, min_size=1, max_size=12)


# Shapes whose documentation, not a pattern, says what a value is (docs/rules.md): a few of each.
_DOCUMENTED = {
    "CronScheduleExpression": st.sampled_from(["cron(0 3 ? * SUN *)", "cron(30 1 1 * ? *)", "cron(0 0/6 ? * MON-FRI 2028)"]),
}


def _string(shape) -> st.SearchStrategy[str]:
    if shape.name in _DOCUMENTED:
        return _DOCUMENTED[shape.name]
    if shape.enum:
        return st.sampled_from(list(shape.enum))
    low, high = shape.metadata.get("min", 0), min(shape.metadata.get("max", 64), 300)
    pattern = shape.metadata.get("pattern")
    if pattern:
        try:
            re.compile(pattern)
            base = st.from_regex(re.compile(pattern), fullmatch=True)
        except (re.error, Exception):  # \p{L} classes and the like: plain letters match them
            base = _SIMPLE
    else:
        base = _SIMPLE
    if low > 12 and pattern and pattern.endswith(".*"):  # long ARNs: pad the free tail to the minimum length
        base = base.map(lambda text: text + "x" * max(low - len(text), 0))
    return base.filter(lambda text: low <= len(text) <= high and (not pattern or base is _SIMPLE or re.fullmatch(pattern, text)))


def values(shape, depth: int = 0) -> st.SearchStrategy[Any]:
    kind = shape.type_name
    if kind == "string":
        return _string(shape)
    if kind in ("integer", "long"):
        return st.integers(shape.metadata.get("min", 0), min(shape.metadata.get("max", 1000), 10**6))
    if kind == "boolean":
        return st.booleans()
    if kind == "timestamp":
        return st.datetimes(dt.datetime(2027, 1, 1), dt.datetime(2030, 1, 1)).map(
            lambda t: t.replace(microsecond=0, tzinfo=dt.timezone.utc).isoformat()
        )
    if kind == "list":
        low = max(shape.metadata.get("min", 0), 1)
        return st.lists(values(shape.member, depth + 1), min_size=low, max_size=max(low, min(shape.metadata.get("max", 2), 2)))
    if kind == "map":
        return st.dictionaries(_string(shape.key), values(shape.value, depth + 1), min_size=1, max_size=2)
    if kind == "structure":
        members = dict(shape.members)
        if shape.is_tagged_union:
            return st.one_of([values(m, depth + 1).map(lambda v, n=n: {n: v}) for n, m in members.items()])
        required = {n: values(members[n], depth + 1) for n in shape.required_members}
        optional = {n: values(m, depth + 1) for n, m in members.items() if n not in shape.required_members and depth < 3}
        return st.fixed_dictionaries(required, optional=optional)
    raise NotImplementedError(f"no strategy for {kind} shapes")
