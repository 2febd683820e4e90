"""The apply process the crash harness kills: plan + apply through the public API on the persistent
world ($HYPERPOD_FAKE_STATE). Between steps (and between wait polls) it announces itself on stdout
and pauses, so the harness can SIGKILL it at an exact point; the pause changes no decision.

    python -m tests.reliability.crash_driver SPEC CALL_PAUSE [WAIT_PAUSE]
"""

from __future__ import annotations

import sys
import time

from pulumi_hyperpod import ClusterSpec, Policy, apply, connect, observe
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.apply import ApplyError


def main(spec_file: str, pause: float, wait_pause: float) -> None:
    spec = ClusterSpec.from_file(spec_file)
    client = connect(backend="fake")
    the_plan = plan(spec, observe(client, spec.name), Policy())

    def progress(event) -> None:
        print(f"{event.phase}: {event.message}", flush=True)
        time.sleep(wait_pause if event.phase == "wait" else pause)

    try:
        result = apply(client, the_plan, wait="Target", timeout=120, poll_seconds=0.05, progress=progress)
    except ApplyError as error:
        print(f"error: {error}; re-run", flush=True)
        sys.exit(1)
    print(f"outcome {result.outcome} failures {result.failures}", flush=True)
    sys.exit(0 if result.ok else 1)


if __name__ == "__main__":
    main(sys.argv[1], float(sys.argv[2]), float(sys.argv[3] if len(sys.argv) > 3 else sys.argv[2]))
