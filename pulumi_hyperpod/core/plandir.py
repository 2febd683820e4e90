"""Where a plan is written as a file in a directory of plans, one per cluster: `<dir>/<cluster>.json`.

$HYPERPOD_PLAN_DIR (the provider writes each plan it shows there, provider/cloud_provider.py) and
$HYPERPOD_PINNED_PLAN_DIR (the plans the provider may apply and no other: provider/pinned.py,
written by `fleet apply --plan`, fleet/savedplan.py) name such directories. Standard library only:
the provider's process loads it.
"""

from __future__ import annotations

import re
from pathlib import Path

PINNED_DIR_ENV = "HYPERPOD_PINNED_PLAN_DIR"


def plan_path(directory: str | Path, cluster: str) -> Path:
    """`<dir>/<cluster>.json`: characters other than letters, digits, `.`, `_`, `-` become `_`."""
    return Path(directory) / f"{re.sub(r'[^A-Za-z0-9._-]', '_', cluster)}.json"
