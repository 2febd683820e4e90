"""The cyclic garbage collector, paused over a short, bounded piece of work.

Reading a large cluster builds hundreds of thousands of small objects (botocore's parse of every
ListClusterNodes page, the node states), and the collector then walks everything alive, the service
model and every imported module included, again and again: about 15 % of a 5,000-node plan. Work
that ends in a second or two (a plan, a preview's check and diff) runs with it paused; what it left
behind is collected as usual afterwards. Never around a wait: an apply polls for minutes.

Paused by a count, so overlapping users (a provider's calls run on the server's threads; the
collector is the process's) resume it only when the last one is done, and only if it was running.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_lock = threading.Lock()
_paused = 0
_resume = False


@contextlib.contextmanager
def paused() -> Iterator[None]:
    global _paused, _resume
    with _lock:
        _paused += 1
        if _paused == 1:
            _resume = gc.isenabled()
            gc.disable()
    try:
        yield
    finally:
        with _lock:
            _paused -= 1
            if _paused == 0 and _resume:
                gc.enable()
