"""The provider host process: its exit, at once when the engine closes an idle provider; the
cyclic garbage collector, paused while a preview's check or diff runs; and which resource each
call is about, for the text it shows.

When a preview or an update ends, the engine interrupts each provider process (SIGINT) and waits for
it to exit. Python then tears down every module the provider loaded (botocore, the service model,
pydantic, grpc…): 0.2–0.3 s that every `pulumi preview` paid after its work was done. A provider
with no call in flight has nothing left to do or to save, so once the host's own shutdown reaches
`atexit` it leaves with `os._exit(0)`, output flushed. A call still running (an apply the engine
is cancelling) gets the normal, complete shutdown, as does a process leaving on an error, and a
process in which a call failed (a check refused, a diff or an apply raised): then the engine is
stopping the deployment while the program may still be waiting on it, and the program's own
shutdown, racing a provider gone at once, printed a gRPC traceback under the engine's error.

`check` and `diff` load most of what the provider imports and, at 5,000 nodes, build hundreds of
thousands of objects; the collector then walks every object alive (the service model included) again
and again, about 15 % of a preview's provider time. They are short and bounded, so the collector is
paused while any of them runs and resumed after (create, update and delete, which wait for minutes,
keep it running).

Which resource: the engine sends each call's URN in its request, and the SDK's dynamic host keeps
it to itself (it calls `provider.check(olds, news)` and the like; checked on pulumi 3.272). The
request is the `request` argument of the host servicer's method (a `ResourceProviderServicer`,
the gRPC service's generated base class) that made the call, a few frames up the same thread; so
`attributed` reads its URN there and sets `console.CURRENT_URN` while the call runs, and the text the
call shows is attached to that resource (provider/console.py). Found no such frame (a test, a
program, a future host that calls otherwise), the URN stays unknown and the text goes to the
stack, as before.

The exit is installed only in the dynamic provider's host process (`python -m pulumi.dynamic`, which leaves only
by that interrupt or by an unhandled error), never in a process that merely imports the provider (a
test run, a program, the native plugin).
"""

from __future__ import annotations

import atexit
import functools
import inspect
import logging
import os
import sys
import threading
from types import ModuleType
from typing import Any, TypeVar
from collections.abc import Callable

from pulumi.runtime.proto.provider_pb2_grpc import ResourceProviderServicer  # loaded with pulumi.dynamic already

from pulumi_hyperpod.core import collector
from pulumi_hyperpod.provider.console import about

HOSTS = frozenset({"pulumi.dynamic.__main__"})  # the SDK's dynamic provider host, `python -m pulumi.dynamic`

_lock = threading.Lock()
_in_flight = 0
_failed = False
_installed = False

Call = TypeVar("Call", bound=Callable[..., Any])


def is_provider_host() -> bool:
    return host_module() is not None


def host_module() -> ModuleType | None:
    """The dynamic provider host's module, when this process is that host."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    return main if getattr(spec, "name", None) in HOSTS else None


def install() -> None:
    """Exit at once at the end of an idle provider host process; a no-op anywhere else, and the
    second time."""
    global _installed
    with _lock:
        if _installed or not is_provider_host():
            return
        _installed = True
    # Registered after the host's own handlers (grpc's, logging's), so it runs before them.
    atexit.register(_exit_if_idle)


def in_flight(call: Call) -> Call:
    """Counts a provider call as in flight while it runs."""

    @functools.wraps(call)
    def counted(*args: Any, **kwargs: Any) -> Any:
        global _in_flight
        with _lock:
            _in_flight += 1
        try:
            return call(*args, **kwargs)
        except BaseException:
            failed()
            raise
        finally:
            with _lock:
                _in_flight -= 1

    return counted  # type: ignore[return-value]


def attributed(call: Call) -> Call:
    """The text a provider call shows is about the resource its request names (`request_urn`)."""

    @functools.wraps(call)
    def about_its_resource(*args: Any, **kwargs: Any) -> Any:
        with about(request_urn()):
            return call(*args, **kwargs)

    return about_its_resource  # type: ignore[return-value]


def request_urn(depth: int = 8) -> str:
    """The URN in the request of the host servicer's call running in this thread, or ""."""
    here = inspect.currentframe()
    frame = here.f_back if here is not None else None
    for _ in range(depth):
        if frame is None:
            break
        local = frame.f_locals
        if isinstance(local.get("self"), ResourceProviderServicer):
            urn = getattr(local.get("request"), "urn", None)
            return urn if isinstance(urn, str) else ""
        frame = frame.f_back
    return ""


def gc_paused(call: Call) -> Call:
    """In the host, the cyclic garbage collector paused while the call runs (`collector.paused`)."""

    @functools.wraps(call)
    def paused(*args: Any, **kwargs: Any) -> Any:
        if not _installed:
            return call(*args, **kwargs)
        with collector.paused():
            return call(*args, **kwargs)

    return paused  # type: ignore[return-value]


def failed() -> None:
    """A call failed (or answered with failures): this process leaves by the normal shutdown."""
    global _failed
    with _lock:
        _failed = True


def idle() -> bool:
    """No call in flight and none failed: nothing is left to do or to report."""
    with _lock:
        return _in_flight == 0 and not _failed


def _exit_if_idle() -> None:
    # An exception that ended the main module (sys.last_exc / last_type set by the interpreter) keeps
    # its exit status and the normal shutdown.
    if not idle() or hasattr(sys, "last_type") or hasattr(sys, "last_exc"):
        return
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    os._exit(0)
