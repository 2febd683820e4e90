"""Each stack's `pulumi preview`, run through Pulumi's Automation API, and the plans it showed.

The stacks run concurrently, at most `parallel` at once, in a thread pool: the work is waiting on
the engine and the cloud, not computing. Each stack runs in its own workspace with its own
environment (`stack_env`), so each acts as its own account and region; its provider writes every
plan it shows to a directory of its own ($HYPERPOD_PLAN_DIR, provider/cloud_provider.py), read back
here as plain `hyperpod-plan/3` dicts.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from pulumi_hyperpod.fleet.spec import FleetStack
from pulumi_hyperpod.fleet.summary import StackPlans

PLAN_DIR_ENV = "HYPERPOD_PLAN_DIR"  # provider/cloud_provider.py's PLAN_DIR_ENV (not imported: the provider is no fleet's library)
# the simulator's endpoint reads only the key id; the secret is never checked, but botocore signs with one
SIMULATOR_SECRET = "fleet-simulator-secret-not-checked"


def stack_env(stack: FleetStack, plan_dir: Path) -> dict[str, str]:
    """The environment of one stack's engine, program and provider: its region; on the simulator
    (`backend: fake`) its account's 12 digits as the access key id, which `hyperpod fake serve`
    reads as that account; the plan directory; then the stack's own `env`, which wins."""
    env = {"AWS_REGION": stack.region, "AWS_DEFAULT_REGION": stack.region, PLAN_DIR_ENV: str(plan_dir)}
    if stack.backend == "fake" and stack.account is not None:
        env |= {"AWS_ACCESS_KEY_ID": stack.account, "AWS_SECRET_ACCESS_KEY": SIMULATOR_SECRET}
    return env | dict(stack.env)


def preview_stack(stack: FleetStack, base: Path, run: Callable[..., Any] | None = None) -> StackPlans:
    """One stack's preview and the plans its provider wrote; an engine error is kept, not raised."""
    with tempfile.TemporaryDirectory(prefix="hyperpod-fleet-plans-") as directory:
        plan_dir = Path(directory)
        error: str | None = None
        changes: dict[str, int] = {}
        try:
            changes = (run or _preview)(stack, base, stack_env(stack, plan_dir))
        except Exception as problem:  # the engine's error is this stack's result, shown with the others
            error = _last_lines(str(problem))
        plans = tuple(json.loads(path.read_text(encoding="utf-8")) for path in sorted(plan_dir.glob("*.json")))
    return StackPlans(stack=stack.name, account=stack.account, region=stack.region, plans=plans, error=error, changes=changes)


def preview_fleet(stacks: Sequence[FleetStack], base: Path, parallel: int, run: Callable[..., Any] | None = None) -> list[StackPlans]:
    """Every stack's preview, at most `parallel` at once; the results in the fleet file's order."""
    with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="fleet-preview") as pool:
        return list(pool.map(lambda stack: preview_stack(stack, base, run), stacks))


def _preview(stack: FleetStack, base: Path, env: Mapping[str, str]) -> dict[str, int]:
    from pulumi import automation  # noqa: PLC0415 - the Automation API: only a fleet command loads it (tests/cli_startup)

    options = automation.LocalWorkspaceOptions(env_vars=dict(env))
    workspace_stack = automation.create_or_select_stack(stack.stack, work_dir=str(base / stack.project), opts=options)
    if stack.config:
        workspace_stack.set_all_config({key: automation.ConfigValue(value) for key, value in stack.config.items()})
    result = workspace_stack.preview(color="never", suppress_progress=True)
    return {
        str(getattr(op, "value", op)): count
        for op, count in result.change_summary.items()
        if str(getattr(op, "value", op)) != "same" and count
    }


def _last_lines(text: str, count: int = 6) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(lines[-count:]) if lines else "the preview failed"
