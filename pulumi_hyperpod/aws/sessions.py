"""botocore sessions for this process's clients (AWS and simulator alike).

Each client needs its own session (profile, region, credentials), but all of them read service
models through the process's one loader (`data_loader`, below), so the large sagemaker
model is parsed once per process instead of once per session. Epoch timestamps in responses are
parsed with the standard library instead of dateutil's `tzlocal` (same instant, same local offset;
a 5,000-node ListClusterNodes carries 5,000 of them, and dateutil spent most of `hyperpod plan`).
"""

from __future__ import annotations

import datetime as dt
import threading
from functools import lru_cache
from typing import Any


def parse_timestamp(value: Any) -> dt.datetime:
    """botocore's timestamp parser, with a fast path for the JSON protocol's epoch seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dt.datetime.fromtimestamp(value, dt.timezone.utc).astimezone()
    from botocore.utils import parse_timestamp as parse_slowly  # noqa: PLC0415 - dateutil: only a timestamp that is not epoch seconds

    return parse_slowly(value)


def new_botocore_session() -> Any:
    """A fresh botocore session sharing the process's model loader and parsing timestamps quickly."""
    import botocore.session  # noqa: PLC0415 - botocore only once a client is made (tests/unit/provider/test_program_lean.py)

    session = botocore.session.Session()
    session.register_component("data_loader", data_loader(session))
    session.get_component("response_parser_factory").set_parser_defaults(timestamp_parser=parse_timestamp)
    return session


@lru_cache(maxsize=1)
def botocore_session():
    """The process's botocore session; clients share its loader, so each model file is read once."""
    import botocore.session  # noqa: PLC0415 - loaded with the first model lookup: importing servicemodel costs nothing

    session = botocore.session.get_session()
    session.register_component("data_loader", data_loader(session))
    return session


_loader_lock = threading.Lock()
_loader: list[Any] = []


def data_loader(session: Any) -> Any:
    """The process's one model loader: botocore's loader for the data path, with parsed models kept
    between processes (modelcache.py). Made with the first session that asks for it (a client's
    session has the same data path as `botocore_session()`'s), so a process whose only session is a
    client's makes no second one."""
    with _loader_lock:
        if not _loader:
            from pulumi_hyperpod.aws.modelcache import caching_loader  # noqa: PLC0415 - botocore's loaders: with the first session

            _loader.append(caching_loader(session.get_config_variable("data_path")))
        return _loader[0]
