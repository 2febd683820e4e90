"""The Google Cloud tests' fixtures: seed 002's document and a client on an in-memory simulator
(defined in tests/support/gcp.py with the helpers the tests import)."""

from tests.support.gcp import client, doc, running, sim  # noqa: F401 (fixtures)
