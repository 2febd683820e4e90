"""Each stack's `pulumi preview` or `pulumi up`, run through Pulumi's Automation API, and the plans it showed.

The stacks run concurrently, at most `parallel` at once, in a thread pool: the work is waiting on
the engine and the cloud, not computing. Each stack runs in its own workspace with its own
environment (`stack_env`), so each acts as its own account and region; its provider writes every
plan it shows to a directory of its own ($HYPERPOD_PLAN_DIR, provider/cloud_provider.py), read back
here as plain `hyperpod-plan/3` dicts. `fleet plan` previews; `fleet apply` (apply.py) runs `up`
through the same per-stack function and the same pool.
"""

from __future__ import annotations

import concurrent.futures
import json
import tempfile
import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

from pulumi_hyperpod.fleet.locks import LockPolicy, StackLocked, until_unlocked
from pulumi_hyperpod.fleet.spec import FleetStack
from pulumi_hyperpod.fleet.summary import StackPlans

BACKEND_URL_ENV = "PULUMI_BACKEND_URL"  # the engine's own variable: the stack's `state`
PLAN_DIR_ENV = "HYPERPOD_PLAN_DIR"  # provider/cloud_provider.py's PLAN_DIR_ENV (not imported: the provider is no fleet's library)
# the simulator's endpoint reads only the key id; the secret is never checked, but botocore signs with one
SIMULATOR_SECRET = "fleet-simulator-secret-not-checked"
# how often the thread waiting on a pool looks up: a Ctrl-C is seen within this long, whichever thread the signal reached
_WAKE_SECONDS = 0.2

# the resource types whose state holds a HyperPod cluster's name (the dynamic provider's, the native one's)
CLUSTER_TYPES = frozenset({"pulumi-python:dynamic/hyperpod:Cluster", "hyperpod:index:Cluster"})

Operation = Literal["preview", "up"]
T = TypeVar("T")


@dataclass(frozen=True)
class EngineResult:
    changes: Mapping[str, int]  # the engine's count per operation, without the resources left as they were
    clusters: tuple[str, ...] = ()  # after an up: the clusters in the stack's state


Run = Callable[[FleetStack, Path, Mapping[str, str]], EngineResult]


def stack_env(stack: FleetStack, plan_dir: Path | None = None) -> dict[str, str]:
    """The environment of one stack's engine, program and provider: its region; its state backend
    (`state`, as PULUMI_BACKEND_URL); on the simulator
    (`backend: fake`) its account's 12 digits as the access key id, which `hyperpod fake serve`
    reads as that account; the plan directory (when given); then the stack's own `env`, which wins."""
    env = {"AWS_REGION": stack.region, "AWS_DEFAULT_REGION": stack.region}
    if stack.state is not None:  # the engine's backend; its credentials are the URL's profile=, not the keys below
        env[BACKEND_URL_ENV] = stack.state
    if plan_dir is not None:
        env[PLAN_DIR_ENV] = str(plan_dir)
    if stack.backend == "fake" and stack.account is not None:
        env |= {"AWS_ACCESS_KEY_ID": stack.account, "AWS_SECRET_ACCESS_KEY": SIMULATOR_SECRET}
    return env | dict(stack.env)


def stack_access_key(env: dict[str, str]) -> tuple[str, str] | None:
    """The (key id, secret) a stack's environment gives its clients, or None: the runner's own chain."""
    key_id = env.get("AWS_ACCESS_KEY_ID")
    return (key_id, env.get("AWS_SECRET_ACCESS_KEY", "")) if key_id else None


def run_stack(stack: FleetStack, base: Path, operation: Operation = "preview", run: Run | None = None) -> StackPlans:
    """One stack's preview or up and the plans its provider wrote; an engine error is kept, not raised."""
    with tempfile.TemporaryDirectory(prefix="hyperpod-fleet-plans-") as directory:
        plan_dir = Path(directory)
        error: str | None = None
        done = EngineResult({})
        try:
            done = (run or ENGINE[operation])(stack, base, stack_env(stack, plan_dir))
        except Exception as problem:  # the engine's error is this stack's result, shown with the others
            error = _last_lines(str(problem), operation)
        plans = tuple(json.loads(path.read_text(encoding="utf-8")) for path in sorted(plan_dir.glob("*.json")))
    return StackPlans(
        stack=stack.name,
        account=stack.account,
        region=stack.region,
        plans=plans,
        error=error,
        changes=dict(done.changes),
        clusters=done.clusters,
    )


def run_stacks(
    stacks: Sequence[FleetStack], parallel: int, one: Callable[[FleetStack], T], stop: threading.Event | None = None
) -> list[T | None]:
    """`one` of every stack, at most `parallel` at once; the results in the stacks' order. Once `stop`
    is set (here on Ctrl-C, then the KeyboardInterrupt goes on) no stack is started: its result is
    None; the stacks already running are waited for."""
    stop = stop or threading.Event()
    running = [0]  # stacks inside `one`; checked against `stop` under one lock, so none starts once it is set
    state = threading.Condition()

    def guarded(stack: FleetStack) -> T | None:
        with state:
            if stop.is_set():
                return None
            running[0] += 1
        try:
            return one(stack)
        finally:
            with state:
                running[0] -= 1
                state.notify_all()

    with ThreadPoolExecutor(max_workers=max(1, parallel), thread_name_prefix="fleet-stack") as pool:
        try:
            futures = [pool.submit(guarded, stack) for stack in stacks]
            pending = set(futures)
            while pending:
                _, pending = concurrent.futures.wait(pending, timeout=_WAKE_SECONDS)
        except KeyboardInterrupt:  # (it may come while a thread is being started: the futures are not all known)
            with state:
                stop.set()
                state.wait_for(lambda: running[0] == 0)
            raise
        return [future.result() for future in futures]


def preview_fleet(stacks: Sequence[FleetStack], base: Path, parallel: int, run: Run | None = None) -> list[StackPlans]:
    """Every stack's preview, at most `parallel` at once; the results in the fleet file's order."""
    results = run_stacks(stacks, parallel, lambda stack: run_stack(stack, base, "preview", run))
    return [result for result in results if result is not None]


def _workspace_stack(stack: FleetStack, base: Path, env: Mapping[str, str]) -> Any:
    from pulumi import automation  # noqa: PLC0415 - the Automation API: only a fleet command loads it (tests/cli_startup)

    options = automation.LocalWorkspaceOptions(env_vars=dict(env), secrets_provider=stack.secrets_provider)
    work_dir = str(base / stack.project)
    try:
        workspace_stack = automation.create_or_select_stack(stack.stack, work_dir=work_dir, opts=options)
    except automation.StackAlreadyExistsError:  # another runner created it between this one's select and create
        workspace_stack = automation.select_stack(stack.stack, work_dir=work_dir, opts=options)
    if stack.config:
        workspace_stack.set_all_config({key: automation.ConfigValue(value) for key, value in stack.config.items()})
    return workspace_stack


def _preview(stack: FleetStack, base: Path, env: Mapping[str, str]) -> EngineResult:
    result = _workspace_stack(stack, base, env).preview(color="never", suppress_progress=True)
    return EngineResult(_changes(result.change_summary))


def _up(stack: FleetStack, base: Path, env: Mapping[str, str]) -> EngineResult:
    """`pulumi up` on a stack that is not locked (fleet apply without a lock policy: a lock is an error)."""
    return _up_of(_workspace_stack(stack, base, env))


def up_with(policy: LockPolicy, say: Callable[[FleetStack, str], None], stop: threading.Event | None = None) -> Run:
    """`pulumi up` of a stack that may be locked by another runner: waited for, skipped or (stale)
    broken as `policy` says (locks.py); each lock met is one `say` line; `stop` ends a wait."""

    def run(stack: FleetStack, base: Path, env: Mapping[str, str]) -> EngineResult:
        workspace_stack = _workspace_stack(stack, base, env)
        return until_unlocked(lambda: _up_of(workspace_stack), policy, workspace_stack.cancel, lambda line: say(stack, line), stop=stop)

    return run


def _up_of(workspace_stack: Any) -> EngineResult:
    """`pulumi up`, and the clusters in the stack's state after it; the engine's output is kept (its
    last lines) only to say why it failed. Meeting the stack's lock is StackLocked (the engine's text:
    it names the holder)."""
    from pulumi.automation import ConcurrentUpdateError  # noqa: PLC0415 - the Automation API: only a fleet command loads it

    output: deque[str] = deque(maxlen=20)
    try:
        result = workspace_stack.up(color="never", suppress_progress=True, on_output=output.append)
    except ConcurrentUpdateError as locked:
        raise StackLocked(str(locked)) from None
    except Exception as problem:
        raise RuntimeError(f"{problem}\n" + "\n".join(output)) from problem
    resources = workspace_stack.export_stack().deployment.get("resources") or ()
    return EngineResult(_changes(result.summary.resource_changes or {}), clusters_in_state(resources))


def clusters_in_state(resources: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The names of the HyperPod clusters among a stack's resources (its exported deployment)."""
    names = ((r.get("outputs") or {}).get("cluster_name") for r in resources if r.get("type") in CLUSTER_TYPES)
    return tuple(name for name in names if isinstance(name, str) and name)


ENGINE: dict[Operation, Run] = {"preview": _preview, "up": _up}


def _changes(summary: Mapping[Any, int]) -> dict[str, int]:
    """The engine's count per operation, without the resources it left as they were."""
    return {str(getattr(op, "value", op)): count for op, count in summary.items() if str(getattr(op, "value", op)) != "same" and count}


def _last_lines(text: str, operation: Operation, count: int = 6) -> str:
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return " | ".join(lines[-count:]) if lines else f"the {operation} failed"
