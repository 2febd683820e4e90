"""`pulumi preview` of the demo stack vs the same project with an empty program: median seconds.

What the provider adds to a preview (the dynamic provider's process start, check, diff with a live
observe + plan against the simulator) over the engine's and the Python language host's own cost.
Each side is a tmp copy of the root demo project with its own PULUMI_HOME, file backend and
simulator world; each is `pulumi up`'d once (the demo: a live cluster, so the preview diffs
against it), then previewed RUNS times with nothing to change.

Run: source scripts/env.sh && python bench/engine_bench.py   (needs `pulumi` on PATH)
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parents[1]
RUNS = int(os.environ.get("ENGINE_BENCH_RUNS", "5"))
EMPTY_PROGRAM = '"""An empty Pulumi program: the engine and language host alone."""\n'


def venv() -> Path:
    candidate = REPO / ".venv"
    return candidate if (candidate / "bin" / "python").exists() else Path(sys.prefix)


def make_project(base: Path, program: str | None) -> tuple[Path, dict[str, str]]:
    """A copy of the demo project (virtualenv made absolute) in base/project; `program` replaces
    __main__.py when given. Its own engine home, backend and simulator world."""
    root = base / "project"
    root.mkdir(parents=True)
    project = yaml.safe_load((REPO / "Pulumi.yaml").read_text())
    runtime = project.get("runtime")
    runtime = dict({"name": runtime} if isinstance(runtime, str) else runtime or {"name": "python"})
    runtime["options"] = {**(runtime.get("options") or {}), "virtualenv": str(venv())}
    project["runtime"] = runtime
    project.pop("backend", None)
    (root / "Pulumi.yaml").write_text(yaml.safe_dump(project, sort_keys=False))
    if program is None:
        shutil.copy(REPO / "__main__.py", root / "__main__.py")
    else:
        (root / "__main__.py").write_text(program)
    for name in ("home", "state", "world"):
        (base / name).mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PULUMI_", "HYPERPOD_"))}
    env.update(
        PULUMI_HOME=str(base / "home"),
        PULUMI_BACKEND_URL=f"file://{base / 'state'}",
        PULUMI_CONFIG_PASSPHRASE="engine-bench",
        PULUMI_SKIP_UPDATE_CHECK="true",
        PULUMI_DISABLE_AUTOMATIC_PLUGIN_ACQUISITION="true",
        HYPERPOD_FAKE_STATE=str(base / "world" / "fake.sqlite"),
    )
    return root, env


def pulumi(root: Path, env: dict[str, str], *args: str) -> float:
    started = time.perf_counter()
    proc = subprocess.run(["pulumi", *args, "--non-interactive", "--color", "never"], cwd=root, env=env,
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"pulumi {' '.join(args)} failed in {root} (exit {proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    return elapsed


def measure(label: str, program: str | None, base: Path) -> list[float]:
    root, env = make_project(base, program)
    pulumi(root, env, "stack", "init", "dev")
    setup = pulumi(root, env, "up", "--yes", "--skip-preview")
    timings = [pulumi(root, env, "preview", "--expect-no-changes") for _ in range(RUNS)]
    print(f"{label:>14}: median {statistics.median(timings):.2f} s over {RUNS} previews "
          f"(min {min(timings):.2f}, max {max(timings):.2f}; first `up` {setup:.2f} s)")
    pulumi(root, env, "destroy", "--yes", "--skip-preview")
    return timings


def main() -> None:
    if shutil.which("pulumi") is None:
        sys.exit("no `pulumi` on PATH: run scripts/install, then `source scripts/env.sh`")
    with tempfile.TemporaryDirectory(prefix="engine-bench-") as tmp:
        empty = measure("empty program", EMPTY_PROGRAM, Path(tmp) / "empty")
        demo = measure("demo stack", None, Path(tmp) / "demo")
    ratio = statistics.median(demo) / statistics.median(empty)
    print(f"demo / empty: {ratio:.2f}x  (+{statistics.median(demo) - statistics.median(empty):.2f} s per preview)")


if __name__ == "__main__":
    main()
