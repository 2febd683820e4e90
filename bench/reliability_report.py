"""Reliability figures: the fault loop over a fixed seed set, and the bad-input corpus.

    .venv/bin/python bench/reliability_report.py [--scenarios 200] [--seed 2026]

Prints: scenarios run, faults injected, converged, unreachable-reported, nodes lost (must be 0),
unplanned deletions (must be 0), invariant violations, bad inputs rejected / total (specs; then
price files, lifecycle parameters and saved plans), and the
concurrency line: two applies (targets 4 and 20 from 2, and 8 and 6 from 10) interleaved at every
API call of the first, both orders, both provisioning modes — trials, winners, clean refusals, nodes lost (must be 0);
and the saved-plan tamper line: a reviewed plan file edited and resealed in every way of
tests/reliability/tamper_trials.py, then applied — tried, refused (must be all), nodes lost (must be 0);
and the foreign-world line: a file the simulators did not make (someone's SQLite database, a text
file, a world of another kind or of a newer schema) where one of their worlds or their clock goes,
under every command that opens it (tests/support/foreign_world_trials.py) — tried, refused (must
be all), files changed (must be 0);
and a line per saved-plan premise class of tests/support/premise_trials.py, attacked through the
CLI on a simulated world: saved-plan replay, stale premise, resealed sections — tried, refused (must
be all), nodes lost (must be 0).
Exits 1 when a must-be-zero figure is not zero.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.reliability.concurrency_trials import all_trials, summary
from tests.reliability.faultloop import check, random_params, run
from tests.reliability import tamper_trials
from tests.support import foreign_world_trials, premise_trials


def fault_loop(scenarios: int, seed: int) -> dict:
    rng = random.Random(seed)
    figures = {
        "scenarios run": 0,
        "faults injected": 0,
        "fault kinds": {},
        "busy retries (Conflict/BatchAdd)": 0,
        "BatchAdd requests / distinct tokens": [0, 0],
        "converged": 0,
        "converged, capacity pending (reported)": 0,
        "unreachable-reported": 0,
        "nodes lost": 0,
        "unplanned deletions": 0,
        "controller deletions": 0,
        "invariant violations": 0,
    }
    violations = []
    for index in range(scenarios):
        params = random_params(rng, seed + index)
        out = run(params)
        figures["scenarios run"] += 1
        figures["faults injected"] += params.faults
        for kind, on in (
            ("throttling", params.throttle_rate),
            ("server errors", params.server_error_rate),
            ("lifecycle failures", params.lifecycle_failure_rate),
            ("capacity shortage", params.capacity is not None),
            ("concurrent update", params.conflict),
        ):
            if on:
                figures["fault kinds"][kind] = figures["fault kinds"].get(kind, 0) + 1
        figures["busy retries (Conflict/BatchAdd)"] += out.retries
        figures["BatchAdd requests / distinct tokens"][0] += out.add_requests
        figures["BatchAdd requests / distinct tokens"][1] += out.add_tokens
        if out.converged and not out.capacity_pending:
            figures["converged"] += 1
        elif out.converged:
            figures["converged, capacity pending (reported)"] += 1
        elif out.reported:
            figures["unreachable-reported"] += 1
        figures["nodes lost"] += len(out.lost)
        figures["unplanned deletions"] += max(len(out.unplanned) - out.rechosen, 0)
        figures["controller deletions"] += len(set(out.deleted) & out.controller_ids)
        try:
            check(out)
        except AssertionError as error:
            figures["invariant violations"] += 1
            violations.append(str(error)[:300])
    return {"figures": figures, "violations": violations}


def bad_inputs() -> tuple[int, int]:
    from click.testing import CliRunner

    from pulumi_hyperpod.cli import main
    from pulumi_hyperpod.sim.aws import Simulator

    corpus = ROOT / "tests" / "badinput"
    expected = json.loads((corpus / "expected.json").read_text())
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "fake.sqlite"
        sim = Simulator(state)
        rejected = 0
        for name, (path, rule) in sorted(expected.items()):
            result = CliRunner().invoke(
                main, ["--backend", "fake", "plan", "-f", str(corpus / "corpus" / name)], env={"HYPERPOD_FAKE_STATE": str(state)}
            )
            text = result.output
            named = any(path in line and rule.lower() in line.lower() for line in text.splitlines())
            if result.exit_code == 1 and named and "Traceback" not in text:
                rejected += 1
        assert sim.calls == [], "a bad input reached the simulator"
    return rejected, len(expected)


def other_inputs() -> tuple[int, int]:
    """Price files, lifecycle parameters and saved plans of tests/badinput/corpus-*: one line naming the
    file and the rule, exit 1, no API call."""
    import os

    from click.testing import CliRunner

    from pulumi_hyperpod.cli import main as cli
    from pulumi_hyperpod.aws.cost import prices
    from pulumi_hyperpod.sim.aws import Simulator

    corpus = ROOT / "tests" / "badinput"
    spec, snapshot = ROOT / "examples" / "specs" / "seed004-initial.json", corpus / "base-snapshot.json"
    rejected = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp) / "fake.sqlite"
        sim = Simulator(state)
        for kind in ("prices", "lifecycle", "plan"):
            for name, (path, rule) in sorted(json.loads((corpus / f"expected-{kind}.json").read_text()).items()):
                file = str(corpus / f"corpus-{kind}" / name)
                env = {"HYPERPOD_FAKE_STATE": str(state), "HYPERPOD_PRICES": file if kind == "prices" else ""}
                args = {
                    "prices": ["plan", "-f", str(spec), "--observed", str(snapshot)],
                    "lifecycle": ["plan", "-f", str(spec), "--observed", str(snapshot), "--lifecycle", file],
                    "plan": ["apply", "--plan", file, "--yes"],
                }[kind]
                prices._defaults.cache_clear()
                result = CliRunner().invoke(cli, ["--backend", "fake", *args], env={**os.environ, **env})
                errors = [line for line in result.output.splitlines() if line.startswith("error:")]
                total += 1
                if (
                    result.exit_code == 1
                    and len(errors) == 1
                    and file in errors[0]
                    and path in errors[0]
                    and rule.lower() in errors[0].lower()
                ):
                    rejected += 1
        assert sim.calls == [], "a bad input reached the simulator"
    return rejected, total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scenarios", type=int, default=200)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    started = time.monotonic()
    loop = fault_loop(args.scenarios, args.seed)
    rejected, total = bad_inputs()
    other_rejected, other_total = other_inputs()
    concurrency = summary(all_trials(args.seed))
    tamper = tamper_trials.summary(tamper_trials.all_trials())
    foreign = foreign_world_trials.summary(foreign_world_trials.all_trials())
    premises = premise_trials.summary(premise_trials.all_trials())
    f = loop["figures"]
    width = 46
    print(f"reliability report (seed {args.seed}, {time.monotonic() - started:.1f}s)")
    for key, value in f.items():
        if key == "fault kinds":
            value = ", ".join(f"{k} {v}" for k, v in sorted(value.items()))
        elif isinstance(value, list):
            value = " / ".join(map(str, value))
        print(f"  {key:<{width}} {value}")
    print(f"  {'bad inputs rejected / total':<{width}} {rejected} / {total}")
    print(f"  {'bad price, lifecycle, plan files rejected':<{width}} {other_rejected} / {other_total}")
    print(
        f"  {'concurrent applies (4|20 from 2, 8|6 from 10)':<{width}} trials {concurrency['trials']}, "
        f"winners {concurrency['winners']}, clean refusals {concurrency['clean refusals']}, nodes lost {concurrency['nodes lost']}"
    )
    print(
        f"  {'saved-plan tamper (edited, resealed, applied)':<{width}} tried {tamper['tried']}, refused {tamper['refused']}, "
        f"nodes lost {tamper['nodes lost']}"
    )
    print(
        f"  {'foreign world (not made by the simulators)':<{width}} tried {foreign['tried']}, refused {foreign['refused']}, "
        f"files changed {foreign['files changed']}"
    )
    for kind, figures in premises.items():
        print(f"  {kind:<{width}} tried {figures['tried']}, refused {figures['refused']}, nodes lost {figures['nodes lost']}")
    for violation in loop["violations"][:10]:
        print(f"  violation: {violation}")
    bad = f["nodes lost"] or f["unplanned deletions"] or f["controller deletions"] or f["invariant violations"] or rejected != total
    bad = bad or concurrency["nodes lost"] or concurrency["problems"] or concurrency["winners"] != concurrency["trials"]
    bad = bad or tamper["nodes lost"] or tamper["refused"] != tamper["tried"] or other_rejected != other_total
    bad = bad or foreign["files changed"] or foreign["refused"] != foreign["tried"]
    bad = bad or any(figures["nodes lost"] or figures["refused"] != figures["tried"] for figures in premises.values())
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
