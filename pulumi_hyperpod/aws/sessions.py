"""botocore sessions for this process's clients (AWS and simulator alike).

Each client needs its own session (profile, region, credentials), but all of them read service
models through the process's one loader (`servicemodel.data_loader`), so the large sagemaker
model is parsed once per process instead of once per session. Epoch timestamps in responses are
parsed with the standard library instead of dateutil's `tzlocal` (same instant, same local offset;
a 5,000-node ListClusterNodes carries 5,000 of them, and dateutil spent most of `hyperpod plan`).
"""

from __future__ import annotations

import datetime as dt
from typing import Any


def parse_timestamp(value: Any) -> dt.datetime:
    """botocore's timestamp parser, with a fast path for the JSON protocol's epoch seconds."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return dt.datetime.fromtimestamp(value, dt.timezone.utc).astimezone()
    from botocore.utils import parse_timestamp as parse_slowly

    return parse_slowly(value)


def new_botocore_session() -> Any:
    """A fresh botocore session sharing the process's model loader and parsing timestamps quickly."""
    import botocore.session

    from pulumi_hyperpod.aws import servicemodel

    session = botocore.session.Session()
    session.register_component("data_loader", servicemodel.data_loader(session))
    session.get_component("response_parser_factory").set_parser_defaults(timestamp_parser=parse_timestamp)
    return session
