"""What the user reads when something fails: the one place where errors become messages.

- `contract_message(error, cluster)`: the apply contract's errors (core/contract.py: PlanRefused,
  PlanStale, ApplyError and its kinds) as the one line a front end shows, naming the cluster and
  what to do next (`again`: the command that plans again, `pulumi up` by default);
- `user_message(error)`: the one-line message of an error the user can act on (a contract error, a
  refused plan, an existing cluster, a bad spec, no region, an AWS or Google Cloud error); a bug
  keeps its whole traceback;
- `is_user_error(error)`: which errors those are;
- `install(host)`: the dynamic provider's host taught to report by `user_message`.

Every front end words errors through here: the CloudProvider (provider/cloud_provider.py) behind
both Pulumi transports, the native server (native/server.py), the CLI. The module imports no
pulumi, botocore or Google library at load (botocore's errors are imported at the first check,
when a client was built; Google Cloud's are looked up among the modules already loaded), so any
front end can import it.

Why `install`: the SDK's dynamic provider host (`python -m pulumi.dynamic`,
pulumi/dynamic/__main__.py) aborts every failed call with `traceback.format_exc()` as the gRPC
status' details, and the engine prints them under the resource: ~15 lines of the provider's frames
above the line that says what to do. The host offers no exception type or hook for a message
without a traceback (checked on pulumi 3.272), and its failure path reads the `traceback` name from
its module namespace at each failure. So, in that process only, that name becomes a stand-in
whose `format_exc` answers `user_message` for the error being handled; everything else, and every
other error, goes to the real module. Nothing changes in any other process (a program, a test,
the native plugin), nor when a future host no longer uses `traceback` that way.
"""

from __future__ import annotations

import sys
import threading
import traceback
from types import ModuleType
from typing import Any

from pulumi_hyperpod.core.messages import render


class ProviderError(Exception):
    """A failure the user can act on; the message says what to do."""


def contract_message(error: BaseException, cluster: str, again: str = "run `pulumi up` again") -> str:
    """The apply contract's error as the one line the user reads: a guard's refusal names the
    cluster and the rules; a stale plan says to plan again; a failed call lists the calls already
    made (the service carries those out) and how to continue."""
    from pulumi_hyperpod.core.contract import ApplyError, PlanRefused, PlanStale  # noqa: PLC0415 - core.contract: unpickling the provider loads this module and must not load it (test_program_lean)

    if isinstance(error, PlanRefused):
        return f"cluster {cluster}: {error}"
    if isinstance(error, PlanStale):
        return f"{error}: {again}"
    if isinstance(error, ApplyError):
        return f"cluster {cluster}: {error} (calls made: {', '.join(error.done) or 'none'}); {again} to continue"
    return user_message(error)


def is_user_error(error: BaseException) -> bool:
    """Whether `error` is one the user can act on, by the one renderer the CLI uses too
    (core/messages.py); a KeyError or IndexError raised in a provider is a bug, shown with its traceback."""
    return render(error) is not None and not isinstance(error, LookupError)


def user_message(error: BaseException) -> str:
    """The message of an error the user can act on (core/messages.py's wording); the whole traceback
    of anything else (a bug)."""
    rendered = render(error)
    if rendered is not None and is_user_error(error):
        return rendered.message or type(error).__name__
    return "".join(traceback.format_exception(type(error), error, error.__traceback__)).rstrip()


class _HostTraceback:
    """The `traceback` module as the dynamic provider host sees it after `install`."""

    def __init__(self, real: ModuleType) -> None:
        self._real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self._real, name)

    def format_exc(self, limit: int | None = None, chain: bool = True) -> str:
        error = sys.exc_info()[1]
        if error is not None and is_user_error(error):
            return user_message(error)
        return str(self._real.format_exc(limit, chain))


_lock = threading.Lock()


def install(host: ModuleType | None) -> bool:
    """Teach the dynamic provider host module `host` (None: not in the host) to report errors the
    user can act on by their message. True when `host` reports that way now; the second call
    changes nothing."""
    if host is None:
        return False
    with _lock:
        current = getattr(host, "traceback", None)
        if isinstance(current, _HostTraceback):
            return True
        if current is not traceback:  # a host that formats its errors some other way: leave it be
            return False
        host.traceback = _HostTraceback(traceback)  # type: ignore[attr-defined]
        return True
