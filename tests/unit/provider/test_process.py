"""The provider host's exit (provider/process.py): at once when idle, the normal shutdown otherwise.

Each case is a fresh interpreter standing in for the host (HOSTS widened to `python -c`): a handler
registered before `install()` runs after ours, so it shows whether the rest of the shutdown ran.
"""

from __future__ import annotations

import os
import subprocess
import sys
from tests.support.paths import REPO


HOST = """
import atexit, sys, threading, time
from pulumi_hyperpod.provider import process
atexit.register(lambda: print("normal shutdown", flush=True))
process.HOSTS = frozenset({None})  # `python -c` has no __main__ spec: stand in for the host
process.install()
process.install()  # a second configure installs nothing more
print("work done")  # not flushed yet: the exit must flush it
"""


def host(body: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-c", HOST + body], capture_output=True, text=True, env=env, timeout=60)


def printed(done: subprocess.CompletedProcess, *lines: str) -> None:
    """The stand-in host exited 0 having printed exactly `lines`."""
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == list(lines)


def test_an_idle_host_exits_at_once_with_its_output_flushed():
    done = host("")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["work done"]  # the rest of the shutdown was skipped


def test_a_call_in_flight_gets_the_normal_shutdown():
    done = host(
        "started = threading.Event()\n"
        "@process.in_flight\n"
        "def apply():\n"
        "    started.set(); time.sleep(3600)\n"
        "threading.Thread(target=apply, daemon=True).start()\n"
        "started.wait()\n"
    )
    printed(done, "work done", "normal shutdown")


def test_an_unhandled_error_keeps_its_status_and_the_normal_shutdown():
    done = host("raise RuntimeError('boom')\n")
    assert done.returncode == 1 and "boom" in done.stderr
    assert done.stdout.splitlines() == ["work done", "normal shutdown"]


def test_a_calls_count_is_released_when_it_fails(monkeypatch):
    from pulumi_hyperpod.provider import process

    monkeypatch.setattr(process, "_failed", False)

    @process.in_flight
    def fails():
        raise ValueError("no")

    try:
        fails()
    except ValueError:
        pass
    assert process._in_flight == 0 and process._failed


def test_nothing_is_installed_outside_the_host():
    from pulumi_hyperpod.provider import process

    assert not process.is_provider_host()  # pytest's __main__ is not the dynamic provider host
    process.install()
    assert not process._installed


def test_a_failed_call_gets_the_normal_shutdown():
    done = host("@process.in_flight\ndef diff():\n    raise ValueError('refused')\ntry:\n    diff()\nexcept ValueError:\n    pass\n")
    printed(done, "work done", "normal shutdown")


def test_a_check_with_failures_marks_the_process(monkeypatch):
    from pulumi_hyperpod.provider import ClusterProvider, process

    monkeypatch.setattr(process, "_failed", False)
    ClusterProvider().check({}, {"spec": {"ClusterName": ""}, "backend": "fake"})
    assert not process.idle()


def test_the_collector_pauses_during_check_and_diff_in_the_host_only():
    done = host(
        "import gc\n"
        "seen = []\n"
        "@process.gc_paused\n"
        "def diff(inner=None):\n"
        "    seen.append(gc.isenabled())\n"
        "    if inner: inner()\n"
        "    seen.append(gc.isenabled())\n"
        "diff(lambda: diff())  # nested (as two threads would overlap): resumed only after the last\n"
        "try:\n"
        "    diff(lambda: 1 / 0)\n"
        "except ZeroDivisionError:\n"
        "    pass\n"
        "print(seen, gc.isenabled())\n"
    )
    printed(done, "work done", "[False, False, False, False, False] True")


def test_outside_the_host_the_collector_is_left_alone():
    import gc

    from pulumi_hyperpod.provider import process

    seen = []
    process.gc_paused(lambda: seen.append(gc.isenabled()))()
    assert seen == [True] and gc.isenabled()


def test_the_collector_resumes_only_if_it_was_running():
    import gc

    from pulumi_hyperpod.core import collector

    gc.disable()
    try:
        with collector.paused():
            pass
        assert not gc.isenabled()  # someone else had it off: left off
    finally:
        gc.enable()
    with collector.paused():
        with collector.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()  # the outer user is still working
    assert gc.isenabled()
