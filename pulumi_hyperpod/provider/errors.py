"""What the user reads when a provider call fails: the one-line message of an error they can act
on (a refused plan, an existing cluster, a bad spec, no region, an AWS error); a bug keeps its
traceback. One rule for both providers: the native server formats with `user_message`, and the
dynamic provider's host is taught the same rule by `install`.

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


class ProviderError(Exception):
    """A failure the user can act on; the message says what to do."""


def is_user_error(error: BaseException) -> bool:
    from botocore.exceptions import (  # loaded by then: every call builds a client
        BotoCoreError,
        ClientError,
    )

    from pulumi_hyperpod.core.errors import InputError  # a bad HyperPod or Google Cloud spec

    return isinstance(error, (ProviderError, InputError, ValueError, ClientError, BotoCoreError, *_gcp_errors()))


def _gcp_errors() -> tuple[type, ...]:
    """The Google Cloud side's own errors, from the modules already loaded (a HyperPod provider
    process never loads them, and need not import them to say so)."""
    found: list[type] = []
    for module, names in (
        ("pulumi_hyperpod.core.contract", ("ApplyError", "PlanInvalid", "PlanRefused", "PlanStale")),
        ("pulumi_hyperpod.gcp.client", ("GcpApiError", "OperationTimeout", "CredentialsMissing")),
    ):
        loaded = sys.modules.get(module)
        found += [getattr(loaded, name) for name in names if loaded is not None and hasattr(loaded, name)]
    return tuple(found)


def user_message(error: BaseException) -> str:
    """The message of an error the user can act on; the whole traceback of anything else (a bug)."""
    if is_user_error(error):
        return str(error) or type(error).__name__
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
        return self._real.format_exc(limit, chain)


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
