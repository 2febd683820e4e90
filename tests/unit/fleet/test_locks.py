"""Pulumi's stack lock as fleet apply meets it (pulumi_hyperpod/fleet/locks.py): the holder read
from the engine's text, a stale lock told from a live one, and wait / skip / break as the policy says.
The clock and the waits are injected: nothing sleeps."""

from __future__ import annotations

import itertools
import os
import threading

import pytest

from pulumi_hyperpod.fleet.locks import SKIPPED, Holder, LockPolicy, StackLocked, holder_of, is_stale, until_unlocked

# the engine's words (pulumi v3.274.1, a self-managed S3 backend), as ConcurrentUpdateError carries them
DIY = (
    "code: 255\n stdout: \n stderr: error: the stack is currently locked by 1 lock(s). Either wait for the other process(es) "
    "to end or delete the lock file with `pulumi cancel`.\n"
    "  s3://fleet-state/.pulumi/locks/organization/q/s1/afbb8f73.json?endpoint=http%3A%2F%2F127.0.0.1%3A45123&region=us-east-1: "
    "created by root@vm (pid 27286) at 2026-12-06T01:26:54Z\n"
)
CLOUD = "code: 255\n stderr: error: [409] Conflict: Another update is currently in progress.\n"


def test_the_holder_is_read_from_the_engines_text():
    assert holder_of(DIY) == Holder("root", "vm", 27286, "2026-12-06T01:26:54Z")
    assert StackLocked(DIY).describe() == "held by root@vm (pid 27286) since 2026-12-06T01:26:54Z"
    assert holder_of(CLOUD) is None
    assert StackLocked(CLOUD).describe() == "held by another update (the backend names no holder)"


def test_a_lock_is_stale_only_when_its_holder_is_a_process_of_this_host_that_is_gone():
    holder = Holder("root", "vm", 27286, "t")
    assert is_stale(holder, host="vm", alive=lambda pid: False)
    assert not is_stale(holder, host="vm", alive=lambda pid: True)
    assert not is_stale(holder, host="other-machine", alive=lambda pid: False), "another host's process cannot be seen"
    assert not is_stale(None, host="vm", alive=lambda pid: False)


def test_this_process_is_alive():
    assert is_stale(Holder("u", "h", os.getpid(), "t"), host="h") is False


class Engine:
    """An `up` that meets the lock `locked` times (the engine's text `text`), then succeeds."""

    def __init__(self, locked: int, text: str = DIY) -> None:
        self.locked, self.text, self.tries, self.cancels = locked, text, 0, 0

    def up(self) -> str:
        self.tries += 1
        if self.tries <= self.locked:
            raise StackLocked(self.text)
        return "updated"

    def cancel(self) -> None:
        self.cancels += 1


class Clock:
    """A stop event whose wait moves a clock instead of sleeping."""

    def __init__(self) -> None:
        self.now, self.waits = 0.0, []

    def __call__(self) -> float:
        return self.now

    def event(self) -> threading.Event:
        clock = self

        class Moving(threading.Event):
            def wait(self, timeout=None):
                clock.waits.append(timeout)
                clock.now += timeout or 0
                return False

        return Moving()


def run(engine, policy, stale=False):
    clock, lines = Clock(), []
    result = until_unlocked(engine.up, policy, engine.cancel, lines.append, stale=lambda holder: stale, stop=clock.event(), clock=clock)
    return result, clock, lines


def test_wait_retries_with_a_doubling_bounded_backoff_and_says_each_wait():
    engine = Engine(locked=6)
    result, clock, lines = run(engine, LockPolicy(on_locked="wait", timeout=600))
    assert result == "updated" and engine.tries == 7
    assert clock.waits == [2, 4, 8, 16, 30, 30]
    assert lines[0] == (
        "the stack is locked, held by root@vm (pid 27286) since 2026-12-06T01:26:54Z; waiting 2s (--on-locked wait, up to 600s)"
    )
    assert len(lines) == 6


def test_wait_gives_up_at_the_timeout_and_the_stack_is_skipped():
    with pytest.raises(StackLocked) as caught:
        run(Engine(locked=100), LockPolicy(on_locked="wait", timeout=20))
    message = str(caught.value)
    assert message.startswith(SKIPPED) and "still locked after 14s, held by root@vm (pid 27286)" in message and "--lock-timeout" in message


def test_skip_does_not_wait():
    engine = Engine(locked=1)
    with pytest.raises(StackLocked) as caught:
        run(engine, LockPolicy(on_locked="skip"))
    assert engine.tries == 1
    assert str(caught.value) == (
        "skipped: the stack is locked, held by root@vm (pid 27286) since 2026-12-06T01:26:54Z; left to that update (--on-locked skip)"
    )


def test_a_stale_lock_is_reported_at_once_and_broken_only_when_asked():
    engine = Engine(locked=1)
    with pytest.raises(StackLocked) as caught:
        run(engine, LockPolicy(on_locked="wait", timeout=600), stale=True)
    assert engine.tries == 1 and engine.cancels == 0, "a dead holder is never waited for, nor its lock broken unasked"
    assert "a stale lock: held by root@vm (pid 27286)" in str(caught.value) and "--break-stale-locks" in str(caught.value)

    engine = Engine(locked=1)
    result, clock, lines = run(engine, LockPolicy(break_stale=True), stale=True)
    assert result == "updated" and engine.cancels == 1 and clock.waits == []
    assert lines == [
        "the lock is stale: held by root@vm (pid 27286) since 2026-12-06T01:26:54Z, a process no longer running on this host; "
        "breaking it (pulumi cancel)"
    ]


def test_a_stale_lock_that_comes_back_is_broken_once_only():
    engine = Engine(locked=5)
    with pytest.raises(StackLocked, match="a stale lock"):
        run(engine, LockPolicy(break_stale=True), stale=True)
    assert engine.cancels == 1 and engine.tries == 2


def test_a_stop_ends_the_wait():
    engine = Engine(locked=100)
    stop = threading.Event()
    stop.set()
    with pytest.raises(StackLocked, match=r"^skipped: interrupted while waiting"):
        until_unlocked(
            engine.up, LockPolicy(), engine.cancel, lambda line: None, stale=lambda h: False, stop=stop, clock=itertools.count().__next__
        )
    assert engine.tries == 1
