"""Which strings are AWS regions: botocore's partition data (botocore/data/partitions.json), the file
botocore's endpoint rules resolve a region's partition from. A region is one a partition lists, or one
its `regionRegex` admits (a region newer than the installed botocore, e.g. `us-east-9`); the
partitions' `aws-global`-style pseudo-regions are not regions a cluster lives in.

The file is read directly (json, gzip) rather than through botocore's loader: checking `--region`
must not cost a command botocore's import when the command itself needs none.
"""

from __future__ import annotations

import functools
import gzip
import importlib.util
import json
import re
from pathlib import Path

from pulumi_hyperpod.core.terminal import shown


@functools.cache
def _partitions() -> tuple[tuple[re.Pattern[str], frozenset[str]], ...]:
    spec = importlib.util.find_spec("botocore")
    if spec is None or spec.origin is None:  # pragma: no cover - botocore is a dependency
        raise RuntimeError("botocore is not installed: its partition data says which regions exist")
    data = Path(spec.origin).parent / "data"
    plain, packed = data / "partitions.json", data / "partitions.json.gz"
    document = json.loads(plain.read_text() if plain.exists() else gzip.decompress(packed.read_bytes()))
    return tuple(
        (re.compile(partition["regionRegex"], re.ASCII), frozenset(name for name in partition["regions"] if not name.endswith("-global")))
        for partition in document["partitions"]
    )


def is_region(name: str) -> bool:
    """`name` is a region of one of AWS's partitions (botocore's data)."""
    return any(name in listed or pattern.fullmatch(name) for pattern, listed in _partitions())


def not_a_region(name: str) -> str:
    """The one phrase that says `name` is not a region (its control characters escaped)."""
    return f"{shown(repr(name), one_line=True)} is not an AWS region (none of botocore's partitions has it; e.g. us-west-2, eu-west-1)"
