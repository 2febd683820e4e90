"""A plugin written in Go, run from its source: tests/engine/go_plugin is a resource provider
(`echo:index:Echo`) whose PulumiPlugin.yaml says `runtime: go`; a YAML program names that
directory in `plugins.providers`, so the engine asks the Go language host to run it (RunPlugin):
the host builds it and streams its output (the port first) back. up, a no-change preview, an
update of the input, destroy."""

from __future__ import annotations

import json
import re
import shutil

import pytest
import yaml

from .conftest import REPO, STACK, EngineProject, engine_env
from .stack import require_host

pytestmark = pytest.mark.engine

PLUGIN = REPO / "tests" / "engine" / "go_plugin"


@pytest.fixture(scope="module")
def project(pulumi_cli: str, tmp_path_factory: pytest.TempPathFactory) -> EngineProject:
    require_host(pulumi_cli, "pulumi-language-go")
    require_host(pulumi_cli, "pulumi-language-yaml")
    base = tmp_path_factory.mktemp("go-plugin")
    source = base / "echo-provider"
    shutil.copytree(PLUGIN, source)  # the host builds in the plugin's directory: not in the repository
    root = base / "project"
    root.mkdir()
    (root / "Pulumi.yaml").write_text(
        yaml.safe_dump(
            {
                "name": "go-plugin",
                "runtime": "yaml",
                "plugins": {"providers": [{"name": "echo", "path": str(source)}]},
                "config": {"message": {"type": "string", "default": "hello"}},
                "resources": {"said": {"type": "echo:index:Echo", "properties": {"message": "${message}"}}},
                "outputs": {"echoed": "${said.message}"},
            },
            sort_keys=False,
        )
    )
    return EngineProject(root=root, env=engine_env(base))


def test_the_engine_runs_a_go_plugin_from_source(project: EngineProject) -> None:
    project.run("stack", "init", STACK)
    up = project.run("up", "--yes")
    assert "+ 2 created" in up.stdout, up.describe()
    assert json.loads(project.run("stack", "output", "--json").stdout) == {"echoed": "hello"}
    empty = project.run("preview", "--expect-no-changes", check=False)
    assert empty.returncode == 0, empty.describe()

    project.config_set("message", "again")
    preview = project.run("preview", "--diff")
    print(preview.stdout)
    assert re.search(r'~ message\s*:\s*"hello" => "again"', preview.stdout), preview.describe()
    project.run("up", "--yes", "--skip-preview")
    assert json.loads(project.run("stack", "output", "--json").stdout) == {"echoed": "again"}

    project.run("destroy", "--yes")
    export = json.loads(project.run("stack", "export").stdout)
    assert not [r for r in export["deployment"].get("resources") or [] if r["type"] == "echo:index:Echo"]
