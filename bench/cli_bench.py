"""`hyperpod` start-up (issue 16): what a new process pays before and around a command.

Plain script: `.venv/bin/python bench/cli_bench.py [--runs N] [--before OLD_TREE] [--big]`.
Every figure is a median over N new processes (`python -c "from pulumi_hyperpod.cli import main; main()"`,
the same interpreter, PYTHONPATH at the tree measured, run in a scratch directory):

- wall seconds of `hyperpod --help`, `hyperpod --version` and `hyperpod plan --help`;
- `hyperpod --backend fake plan -f examples/specs/seed000-create-cluster.json` (an empty simulated
  world: a create) under `python -X importtime`: the modules the command imports, their total import
  time (sum of "self"), and the part spent importing `pulumi_hyperpod.cli` itself (start-up);
- with --big: wall seconds of `hyperpod --backend fake plan` on a 5,000-node simulated cluster (a
  scale-in), the whole command as a new process (issue 16's target: under 1 s).

With --before, the old tree is measured too, alternating with this one run by run (paired: the
machine's load hits both alike). Bytecode: by default each tree's .pyc files are written to a
private cache (PYTHONPYCACHEPREFIX in a temp dir) and warmed before timing, as an installed
package has them; --no-bytecode measures with PYTHONDONTWRITEBYTECODE=1 (every module of the
package compiled from source at each start, as in this project's sandboxes).

Measured on one machine (2 cores shared with other work, load average 2.5-3), paired runs, medians;
before: the branch point 31801a6 (`git archive 31801a6 | tar -x -C /tmp/base`), after: this tree.
`bench/cli_bench.py --runs 11 --before /tmp/base --big` (bytecode cached):
  hyperpod --help                                  0.719 → 0.094 s
  hyperpod --version                               0.650 → 0.118 s
  hyperpod plan --help                             0.615 → 0.108 s
  plan: modules imported                           637 → 622
  plan: import time, all modules                   0.680 → 0.593 s
  plan: import of pulumi_hyperpod.cli              0.653 → 0.047 s
  hyperpod --backend fake plan, 5,000 nodes        1.922 → 1.434 s
    of which the exit after the command            0.343 → 0.020 s
`bench/cli_bench.py --runs 9 --before /tmp/base --big --no-bytecode`:
  hyperpod --help                                  1.035 → 0.104 s
  hyperpod plan --help                             1.007 → 0.159 s
  plan: import of pulumi_hyperpod.cli              0.725 → 0.056 s
  hyperpod --backend fake plan, 5,000 nodes        2.484 → 1.795 s
    of which the exit after the command            0.355 → 0.023 s
The plan imports nearly the same modules as before (all but the other commands, the apply executor
and rich's progress bars): its import total moves little and is noisy (±0.2 s between runs here).
What the start-up saved, the plan now spends importing the pipeline (servicemodel → botocore.session
→ botocore.client → botocore.waiter → botocore.docs, pydantic) and in the simulator's observe.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
SPEC = HERE / "examples" / "specs" / "seed000-create-cluster.json"
CLI = "import sys; from pulumi_hyperpod.cli import main; sys.exit(main())"
# The same, saying (last line on stderr) when the command returned: the rest is the interpreter's exit.
CLI_TIMED = (
    "import sys, time\nfrom pulumi_hyperpod.cli import main\ntry:\n    main()\nexcept SystemExit as done:\n"
    "    code = done.code\nelse:\n    code = 0\nprint('returned at', time.time(), file=sys.stderr)\nsys.exit(code)"
)
BIG = 5_000


def _env(tree: Path, scratch: Path, bytecode: bool, world: Path) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(tree), "HYPERPOD_FAKE_STATE": str(world), "COLUMNS": "120"}
    env.pop("PYTHONPYCACHEPREFIX", None)
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(scratch / "pyc" / tree.name)  # per tree: never the other's bytecode
    else:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _run(args: list[str], env: dict[str, str], cwd: Path, importtime: bool = False, code: str = CLI) -> tuple[float, str]:
    """(wall seconds, stderr) of one new `hyperpod ARGS` process; it must exit 0."""
    command = [sys.executable, *(["-X", "importtime"] if importtime else []), "-c", code, *args]
    started = time.perf_counter()
    done = subprocess.run(command, check=False, env=env, cwd=cwd, capture_output=True, text=True, timeout=300)
    elapsed = time.perf_counter() - started
    if code is CLI_TIMED:
        done.stderr += f"\nended at {time.time()}"
    if done.returncode != 0:
        raise SystemExit(f"hyperpod {' '.join(args)} exited {done.returncode}:\n{done.stderr[-2000:]}")
    return elapsed, done.stderr


_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def import_figures(stderr: str) -> tuple[int, float, float]:
    """(modules imported, seconds importing them: the sum of self times, seconds of the top-level
    import of pulumi_hyperpod.cli: the start-up) from `-X importtime` output."""
    modules, total, cli = 0, 0, 0
    for line in stderr.splitlines():
        match = _LINE.match(line)
        if not match:
            continue
        modules += 1
        total += int(match[1])
        if match[4] == "pulumi_hyperpod.cli" and len(match[3]) == 1:  # `from pulumi_hyperpod.cli import main`
            cli = int(match[2])
    return modules, total / 1e6, cli / 1e6


# Run with PYTHONPATH at the tree measured: each tree's simulator writes the world in its own format.
BIG_WORLD = """
import json, sys
from pulumi_hyperpod.sim.aws import Simulator

path, spec, big = sys.argv[1], sys.argv[2], int(sys.argv[3])


def group(name, count, instance_type):
    return {"InstanceGroupName": name, "InstanceType": instance_type, "InstanceCount": count,
            "LifeCycleConfig": {"SourceS3Uri": "s3://bucket/lifecycle/src/", "OnCreate": "on_create.sh"},
            "ExecutionRole": "arn:aws:iam::111122223333:role/hyperpod"}


request = {"ClusterName": "big", "NodeProvisioningMode": "Continuous",
           "VpcConfig": {"SecurityGroupIds": ["sg-12345678"], "Subnets": ["subnet-aaaa1111", "subnet-bbbb2222"]},
           "Orchestrator": {"Eks": {"ClusterArn": "arn:aws:eks:us-west-2:111122223333:cluster/big"}},
           "InstanceGroups": [group("gpu", big - 8, "ml.p5.48xlarge"), group("cpu", 8, "ml.m5.xlarge")]}
sim = Simulator(path, scenario={"speed": 0})
sim.client().create_cluster(**request)
sim.advance(1800)
request["InstanceGroups"][1]["InstanceCount"] = 6  # a scale-in: victims chosen among the nodes
open(spec, "w", encoding="utf-8").write(json.dumps(request))
"""


def big_world(tree: Path, path: Path, spec: Path) -> None:
    """A frozen simulated world with one InService 5,000-node cluster, written by `tree`'s own
    simulator, and a spec that shrinks a group."""
    path.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run(
        [sys.executable, "-c", BIG_WORLD, str(path), str(spec), str(BIG)],
        check=True,
        cwd=path.parent,
        env={**os.environ, "PYTHONPATH": str(tree)},
    )


def measure(trees: dict[str, Path], runs: int, bytecode: bool, big: bool) -> dict[str, dict[str, list[float]]]:
    figures: dict[str, dict[str, list[float]]] = {label: {} for label in trees}
    with tempfile.TemporaryDirectory() as directory:
        scratch = Path(directory)
        empty = scratch / "empty"
        worlds = {
            label: (scratch / f"big-{index}" / "fake.sqlite", scratch / f"big-{index}" / "spec.json") for index, label in enumerate(trees)
        }
        if big:
            for label, tree in trees.items():
                big_world(tree, *worlds[label])
        cases = {
            "hyperpod --help": ["--help"],
            "hyperpod --version": ["--version"],
            "hyperpod plan --help": ["plan", "--help"],
        }
        envs = {label: _env(tree, scratch, bytecode, empty) for label, tree in trees.items()}
        for label, env in envs.items():  # warm-up: bytecode written, page cache filled
            _run(["--help"], env, scratch)
            _run(["--backend", "fake", "plan", "-f", str(SPEC)], env, scratch)
            if big:
                big_path, big_spec = worlds[label]
                _run(["--backend", "fake", "plan", "-f", str(big_spec)], {**env, "HYPERPOD_FAKE_STATE": str(big_path)}, scratch)
        for _ in range(runs):
            for label, env in envs.items():  # alternating: paired runs
                mine = figures[label]
                for name, args in cases.items():
                    mine.setdefault(name, []).append(_run(args, env, scratch)[0])
                _, stderr = _run(["--backend", "fake", "plan", "-f", str(SPEC)], env, scratch, importtime=True)
                modules, total, cli = import_figures(stderr)
                mine.setdefault("plan: modules imported", []).append(modules)
                mine.setdefault("plan: import time, all modules (s)", []).append(total)
                mine.setdefault("plan: import of pulumi_hyperpod.cli (s)", []).append(cli)
                if big:
                    big_path, big_spec = worlds[label]
                    elapsed, stderr = _run(
                        ["--backend", "fake", "plan", "-f", str(big_spec)],
                        {**env, "HYPERPOD_FAKE_STATE": str(big_path)},
                        scratch,
                        code=CLI_TIMED,
                    )
                    stamps = {
                        line.split()[0]: float(line.split()[-1])
                        for line in stderr.splitlines()
                        if line.startswith(("returned at ", "ended at "))
                    }
                    returned, ended = stamps["returned"], stamps["ended"]
                    mine.setdefault(f"hyperpod --backend fake plan, {BIG:,} nodes (s)", []).append(elapsed)
                    mine.setdefault("  of which the exit after the command (s)", []).append(ended - returned)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=7, help="new processes per figure (median)")
    parser.add_argument("--before", type=Path, help="an older tree of the project to measure too, alternating")
    parser.add_argument("--big", action="store_true", help=f"also the whole plan command on a {BIG:,}-node cluster")
    parser.add_argument("--no-bytecode", action="store_true", help="measure with PYTHONDONTWRITEBYTECODE=1")
    options = parser.parse_args()
    trees = {"before": options.before.resolve()} if options.before else {}
    trees["after" if options.before else "this tree"] = HERE
    figures = measure(trees, options.runs, not options.no_bytecode, options.big)
    print(
        f"medians of {options.runs} runs ({'bytecode cached' if not options.no_bytecode else 'no bytecode'}; "
        f"{', '.join(f'{label}: {tree}' for label, tree in trees.items())})"
    )
    labels = list(trees)
    for name in figures[labels[0]]:
        values = [statistics.median(figures[label][name]) for label in labels]
        shown = " → ".join(f"{v:.0f}" if name.endswith("modules imported") else f"{v:.3f}" for v in values)
        print(f"  {name:<48} {shown}")


if __name__ == "__main__":
    main()
