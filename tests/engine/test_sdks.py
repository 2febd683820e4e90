"""sdk/nodejs and sdk/go are what `python -m pulumi_hyperpod.native.sdkgen` generates from
schema.json with this engine (`pulumi package gen-sdk`, then tsc for the Node.js package): the
same files, byte for byte. Regenerate after changing the schema; this test fails until then."""

from __future__ import annotations

import filecmp
import json
from pathlib import Path

import pytest

import pulumi_hyperpod
from pulumi_hyperpod.native import sdkgen

from .conftest import REPO

pytestmark = pytest.mark.engine
SDK = REPO / "sdk"


def files(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file() and "node_modules" not in p.parts}


@pytest.fixture(scope="module")
def regenerated(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("sdk")
    sdkgen.generate(out)
    return out


def test_the_committed_sdks_are_what_the_schema_generates(regenerated: Path) -> None:
    committed, fresh = files(SDK), files(regenerated)
    assert committed == fresh, f"only committed: {sorted(committed - fresh)}; only generated: {sorted(fresh - committed)}"
    differ = [name for name in sorted(committed) if not filecmp.cmp(SDK / name, regenerated / name, shallow=False)]
    assert not differ, f"sdk/ is stale: {differ}; run `python -m pulumi_hyperpod.native.sdkgen`"


def test_the_packages_carry_the_plugin_version() -> None:
    version = pulumi_hyperpod.__version__
    for manifest in (SDK / "nodejs" / "package.json", SDK / "nodejs" / "bin" / "package.json"):
        package = json.loads(manifest.read_text())
        assert package["version"] == version and package["pulumi"] == {"resource": True, "name": "hyperpod", "version": version}
    plugin = json.loads((SDK / "go" / "hyperpod" / "pulumi-plugin.json").read_text())
    assert plugin == {"resource": True, "name": "hyperpod", "version": version}
    assert (SDK / "go" / "go.mod").read_text().startswith("module github.com/pulumi-hyperpod/pulumi-hyperpod/sdk/go\n")
    assert (SDK / "nodejs" / "bin" / "index.js").exists() and (SDK / "nodejs" / "bin" / "cluster.d.ts").exists()
