"""Pulumi's stack lock as `fleet apply` meets it: who holds it, and whether to wait, skip or break it
(docs/fleet.md, "Runners and the state backend").

Two runners on one fleet share its state backend, and Pulumi's own lock keeps them from updating a
stack at once: the second `up` fails at once with the engine's "the stack is currently locked"
(a self-managed backend: the lock file's user, host, pid and time are in that text) or "Another
update is currently in progress" (Pulumi Cloud), which the Automation API raises as
`ConcurrentUpdateError`. The holder is read from that text only: no backend is opened here.

A lock whose holder is on this host and whose process is gone is *stale*: a killed runner's `pulumi`
left it (a self-managed backend keeps it until `pulumi cancel`). Waiting for it would never end, so
it is reported at once, and broken (the Automation API's `cancel`, i.e. `pulumi cancel`) only with
`--break-stale-locks`.
"""

from __future__ import annotations

import os
import re
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, TypeVar

T = TypeVar("T")

SKIPPED = "skipped: "  # how a stack not updated because of a lock starts its error: not done, and not failed
# the engine's line naming a self-managed backend's lock: "...json?…: created by root@vm (pid 27286) at 2026-12-06T01:26:54Z"
_HOLDER = re.compile(r"created by (?P<user>[^\s@]+)@(?P<host>\S+) \(pid (?P<pid>\d+)\) at (?P<since>\S+)")
_FIRST_WAIT, _LONGEST_WAIT = 2.0, 30.0  # seconds between tries: doubling from the first, at most the longest


@dataclass(frozen=True)
class Holder:
    """Who holds a stack's lock, as a self-managed backend's lock file records it."""

    user: str
    host: str
    pid: int
    since: str

    def describe(self) -> str:
        return f"{self.user}@{self.host} (pid {self.pid}) since {self.since}"


class StackLocked(Exception):
    """A stack's `up` met its lock; `holder` when the backend names one (Pulumi Cloud does not)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.holder = holder_of(text)

    def describe(self) -> str:
        return f"held by {self.holder.describe()}" if self.holder else "held by another update (the backend names no holder)"


def holder_of(text: str) -> Holder | None:
    """The lock's holder in the engine's error text (the first lock it lists), or None."""
    found = _HOLDER.search(text)
    if not found:
        return None
    return Holder(found["user"], found["host"], int(found["pid"]), found["since"])


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process is there
    except ProcessLookupError:
        return False
    except PermissionError:  # there, another user's
        return True
    return True


def is_stale(holder: Holder | None, host: str | None = None, alive: Callable[[int], bool] = pid_alive) -> bool:
    """A lock held by a process of this host that is gone. A lock of another host is never called
    stale: its process cannot be seen from here."""
    return holder is not None and holder.host == (host or socket.gethostname()) and not alive(holder.pid)


@dataclass(frozen=True)
class LockPolicy:
    """What a runner does on a locked stack: wait (up to `timeout` seconds) or skip it; a stale lock
    is broken only when `break_stale`."""

    on_locked: Literal["wait", "skip"] = "wait"
    timeout: float = 600.0
    break_stale: bool = False


def until_unlocked(
    attempt: Callable[[], T],
    policy: LockPolicy,
    cancel: Callable[[], None],
    say: Callable[[str], None],
    *,
    stale: Callable[[Holder | None], bool] = is_stale,
    stop: threading.Event | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> T:
    """`attempt()` (a stack's `up`), again while it meets the stack's lock and the policy says to
    wait, sleeping 2, 4, 8 … (at most 30) seconds between tries. Raises StackLocked with a SKIPPED
    message when the stack is left to the lock's holder: `--on-locked skip`, the timeout passed, or a
    stale lock not to be broken, or `stop` set while waiting (Ctrl-C: fleet apply starts nothing
    more). `say` gets one line per lock met (the CLI prints them)."""
    stop = stop or threading.Event()
    started = clock()
    pause = _FIRST_WAIT
    broken = False
    while True:
        try:
            return attempt()
        except StackLocked as locked:
            if stale(locked.holder):
                holder = locked.holder.describe() if locked.holder else "?"
                if not policy.break_stale or broken:
                    raise StackLocked(
                        f"{SKIPPED}a stale lock: held by {holder}, a process no longer running on this host (its update was "
                        "killed); run again with --break-stale-locks to break it (pulumi cancel) and update the stack"
                    ) from None
                say(f"the lock is stale: held by {holder}, a process no longer running on this host; breaking it (pulumi cancel)")
                cancel()
                broken = True
                continue
            if policy.on_locked == "skip":
                raise StackLocked(f"{SKIPPED}the stack is locked, {locked.describe()}; left to that update (--on-locked skip)") from None
            waited = clock() - started
            if waited + pause > policy.timeout:
                raise StackLocked(
                    f"{SKIPPED}the stack is still locked after {waited:.0f}s, {locked.describe()}; left to that update (--lock-timeout)"
                ) from None
            say(f"the stack is locked, {locked.describe()}; waiting {pause:.0f}s (--on-locked wait, up to {policy.timeout:.0f}s)")
            if stop.wait(pause):
                raise StackLocked(f"{SKIPPED}interrupted while waiting for the stack's lock, {locked.describe()}") from None
            pause = min(pause * 2, _LONGEST_WAIT)
