"""Every test chooses its own simulated world. scripts/env.sh points a shell at the repository's
world ($HYPERPOD_FAKE_STATE); a test run from that shell must not read or write it."""

import os

for _name in ("HYPERPOD_FAKE_STATE", "HYPERPOD_GCP_FAKE_STATE", "HYPERPOD_FAKE_SCENARIO"):
    os.environ.pop(_name, None)
