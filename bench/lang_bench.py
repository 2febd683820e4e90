"""`pulumi preview` of each language's example program (the native provider's cluster, seed 004's
shape, live on the simulator) against an empty program in the same language: paired runs, medians.

What declaring the cluster costs a TypeScript, Go or YAML program over that language's own start-up
(the language host, the runtime, the SDK): the provider plugin's process, its check and diff with a
live observe and plan. The example's preview has nothing to change (`--expect-no-changes`). The
empty program shares the example's installed dependencies (TypeScript: the same node_modules, so
ts-node compiles the empty program too; Go: the same go.mod, built by the host like the example).
Each language has its own engine home, file backend and simulator world.

Run: source scripts/env.sh && python bench/lang_bench.py   (needs `pulumi`, node/npm, go)
     LANG_BENCH_RUNS=5 (paired previews per language); LANG_BENCH_LANGUAGES=typescript,go,yaml
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml
from engine_bench import run_pulumi  # the same timed `pulumi` run (this folder is on sys.path)

REPO = Path(__file__).resolve().parents[1]
RUNS = int(os.environ.get("LANG_BENCH_RUNS", "5"))
LANGUAGES = os.environ.get("LANG_BENCH_LANGUAGES", "typescript,go,yaml").split(",")

# See bench/engine_bench.py: plugins started from a background job would ignore SIGINT and every
# `pulumi` command would wait out the engine's 5 s before killing them.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

EMPTY_TS = "// An empty Pulumi program: the engine, the Node.js host, ts-node and the SDK alone.\nexport {};\n"
EMPTY_GO = """// An empty Pulumi program: the engine, the Go host, the build and the SDK alone.
package main

import "github.com/pulumi/pulumi/sdk/v3/go/pulumi"

func main() { pulumi.Run(func(*pulumi.Context) error { return nil }) }
"""


class Project:
    """A copy of one example (plugin path made absolute, SDK references pointing into this
    repository) in `root`, sharing `env` (engine home, backend, world) with its language's pair."""

    def __init__(self, example: str, root: Path, env: dict[str, str], name: str) -> None:
        source = REPO / "examples" / example
        shutil.copytree(
            source, root, ignore=shutil.ignore_patterns("node_modules", "Pulumi.*.yaml", "package-lock.json", "README.md", ".hyperpod")
        )
        project = yaml.safe_load((source / "Pulumi.yaml").read_text())
        project["name"] = name
        for provider in (project.get("plugins") or {}).get("providers") or []:
            provider["path"] = str(REPO / "plugin")
        (root / "Pulumi.yaml").write_text(yaml.safe_dump(project, sort_keys=False))
        if (root / "package.json").exists():
            manifest = json.loads((root / "package.json").read_text())
            manifest["dependencies"]["@pulumi-hyperpod/hyperpod"] = f"file:{REPO / 'sdk' / 'nodejs' / 'bin'}"
            (root / "package.json").write_text(json.dumps(manifest, indent=4))
        if (root / "go.mod").exists():
            gomod = (root / "go.mod").read_text()
            (root / "go.mod").write_text(re.sub(r"=> \.\./\.\./sdk/go", f"=> {REPO / 'sdk' / 'go'}", gomod))
        self.root, self.env = root, env

    def pulumi(self, *args: str) -> float:
        return run_pulumi(self.root, self.env, *args)[0]

    def preview(self) -> float:
        return self.pulumi("preview", "--expect-no-changes")


def language_env(base: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "HYPERPOD_"))}
    for name in ("home", "state", "world"):
        (base / name).mkdir(parents=True)
    env.update(
        PULUMI_HOME=str(base / "home"),
        PULUMI_BACKEND_URL=f"file://{base / 'state'}",
        PULUMI_CONFIG_PASSPHRASE="lang-bench",
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        HYPERPOD_FAKE_STATE=str(base / "world" / "fake.sqlite"),
    )
    return env


def pair(language: str, base: Path) -> tuple[Project, Project]:
    """(empty program, example program), both installed and `up`, ready for no-change previews."""
    env = language_env(base)
    example = {"typescript": "typescript-cluster", "go": "go-cluster", "yaml": "yaml-cluster"}[language]
    program = Project(example, base / "program", env, f"bench-{language}-program")
    empty = Project(example, base / "empty", env, f"bench-{language}-empty")
    if language == "typescript":
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline"], cwd=program.root, check=True, capture_output=True)
        (empty.root / "node_modules").symlink_to(program.root / "node_modules", target_is_directory=True)
        (empty.root / "index.ts").write_text(EMPTY_TS)
    elif language == "go":
        (empty.root / "main.go").write_text(EMPTY_GO)
    else:
        spec = yaml.safe_load((empty.root / "Pulumi.yaml").read_text())
        spec["resources"], spec["outputs"] = {}, {}
        (empty.root / "Pulumi.yaml").write_text(yaml.safe_dump(spec, sort_keys=False))
    for project in (empty, program):
        project.pulumi("stack", "init", "dev")
        project.pulumi("up", "--yes", "--skip-preview")
        project.preview()  # warm: ts-node's first compile, go build's first link
    return empty, program


def main() -> None:
    if shutil.which("pulumi") is None:
        sys.exit("no `pulumi` on PATH: run scripts/install, then `source scripts/env.sh`")
    print(f"language bench: {RUNS} paired no-change previews per language ({', '.join(LANGUAGES)})")
    with tempfile.TemporaryDirectory(prefix="lang-bench-") as tmp:
        for language in LANGUAGES:
            empty, program = pair(language, Path(tmp) / language)
            pairs = [(empty.preview(), program.preview()) for _ in range(RUNS)]
            ratios = [p / e for e, p in pairs]
            e_med, p_med = statistics.median(e for e, _ in pairs), statistics.median(p for _, p in pairs)
            print(f"\n{language}")
            print(
                f"  preview, empty program   : median {e_med:.2f} s (min {min(e for e, _ in pairs):.2f}, "
                f"max {max(e for e, _ in pairs):.2f})"
            )
            print(
                f"  preview, cluster program : median {p_med:.2f} s (min {min(p for _, p in pairs):.2f}, "
                f"max {max(p for _, p in pairs):.2f})"
            )
            print(
                f"  program / empty          : {statistics.median(ratios):.2f}x (median of {RUNS} paired ratios, "
                f"{min(ratios):.2f}-{max(ratios):.2f}; +{p_med - e_med:.2f} s per preview)"
            )


if __name__ == "__main__":
    main()
