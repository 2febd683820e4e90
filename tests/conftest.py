"""Every test chooses its own simulated world. scripts/env.sh points a shell at the repository's
world ($HYPERPOD_FAKE_STATE); a test run from that shell must not read or write it."""

import os

for _name in ("HYPERPOD_FAKE_STATE", "HYPERPOD_GCP_FAKE_STATE", "HYPERPOD_FAKE_SCENARIO"):
    os.environ.pop(_name, None)

# Hypothesis: no per-example deadline. The machines these tests run on are shared 2-core ones, where a
# first example can take 50x its usual time; the examples' number bounds the time, not a clock.
from hypothesis import settings as _settings

_settings.register_profile("hyperpod", deadline=None)
_settings.load_profile("hyperpod")


# The CLI run in-process opens each test's persistent world once per process (Simulator.shared); a
# session of thousands of tests would keep every one's SQLite connections open. Closed after each test
# (only when some test loaded the simulator: a lean-import test must not load it here).
import sys as _sys

import pytest as _pytest


@_pytest.fixture(autouse=True)
def _close_shared_worlds():
    yield
    simulator = _sys.modules.get("pulumi_hyperpod.sim.aws.simulator")
    if simulator is not None:
        simulator.Simulator.close_shared()
