"""The Google Cloud simulator's tests use the Google Cloud fixtures (tests/support/gcp.py), not the
HyperPod simulator's `sim` and `client` of tests/unit/sim/conftest.py."""

from tests.support.gcp import client, doc, running, sim  # noqa: F401 (fixtures)
