"""A stack's state holds its dynamic providers pickled (dill, by module path) by the release that
last updated it: every provider the previous release pickled still loads under this layout.

`pickled_91d55fa.json` was made in a checkout of 91d55fa (the release before issue 38's layout):

    git worktree add /tmp/old 91d55fa
    PYTHONPATH=/tmp/old python -c "$MAKE"      # MAKE below: the SDK's own pickler, serialize_provider

over `ClusterProvider()`, `ClusterProvider(simulator="demo")`, `GcpClusterProvider()` and the lifecycle
bundle's `_BundleUploadProvider()`: each is the state's `__provider` as that release wrote it. What
they name by reference (pickletools): `provider.provider`, `provider.settings` (`Defaults`),
`provider.gcp` and `components.bundle`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIXTURE = json.loads((Path(__file__).with_name("pickled_91d55fa.json")).read_text())["providers"]

MAKE = """
import json
from pulumi.dynamic.dynamic import serialize_provider
from pulumi_hyperpod.provider.provider import ClusterProvider
from pulumi_hyperpod.provider.gcp import GcpClusterProvider
from pulumi_hyperpod.components.bundle import _BundleUploadProvider
made = {"aws": ClusterProvider(), "aws-simulator": ClusterProvider(simulator="demo"), "gcp": GcpClusterProvider(),
        "bundle": _BundleUploadProvider()}
print(json.dumps({name: serialize_provider(provider) for name, provider in made.items()}))
"""

# Run where nothing was imported before (a provider process unpickles first thing): a module path
# that only resolves because a test imported it earlier would pass here otherwise.
LOAD = """
import base64, dataclasses, json, sys, warnings
import dill
case = json.loads(sys.stdin.read())
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    provider = dill.loads(base64.b64decode(case["pickle"]))
def fields(v):  # a record's fields by name, whether it keeps them in a __dict__ or in slots
    return dataclasses.asdict(v) if dataclasses.is_dataclass(v) else vars(v) if hasattr(v, "__dict__") else v
state = {k: fields(v) for k, v in vars(provider).items()}
cls = type(provider)
print(json.dumps({"class": f"{cls.__module__}.{cls.__qualname__}", "state": state,
                  "warnings": [str(w.message) for w in caught if "pulumi_hyperpod" in str(w.message)]}))
"""


def load_fresh(case: dict) -> dict:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.run(
        [sys.executable, "-c", LOAD], input=json.dumps(case), capture_output=True, text=True, env=env, cwd=REPO, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("name", sorted(FIXTURE))
def test_a_provider_the_previous_release_pickled_loads(name):
    case = FIXTURE[name]
    loaded = load_fresh(case)
    assert loaded == {"class": case["class"], "state": case["state"], "warnings": []}


def test_the_loaded_provider_is_this_release_s_class():
    """Loaded in this process too: the class the state names is the one the package defines (not a copy)."""
    import base64

    import dill

    from pulumi_hyperpod.provider.provider import ClusterProvider
    from pulumi_hyperpod.provider.settings import Defaults

    provider = dill.loads(base64.b64decode(FIXTURE["aws-simulator"]["pickle"]))
    assert type(provider) is ClusterProvider and provider.simulator == "demo"
    assert provider.defaults == Defaults()
