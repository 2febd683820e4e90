"""The part of botocore's sagemaker model that a preview reads, kept on disk.

A provider's `check` (the dynamic provider's, the native plugin's) validates one CreateCluster
request: it reads the shapes reachable from CreateCluster and UpdateCluster (114 of the model's
3,260 with botocore 1.44) and never makes a client; on the simulator, the requests and answers of
a preview's reads are checked on the same cut (`READ_OPERATIONS`). The whole model comes through botocore's
session (whose client, waiter and docs modules cost tens of ms to import) and is 2.6 MB (about
10 ms to load even from `modelcache`). So those shapes, as the model's own JSON,
unchanged, are cut from it once and kept in one small marshal file, and a botocore `ServiceModel`
is built on them: shapes and operation models that are botocore's own, all ParamValidator needs.

An entry is only used when it was cut from the model the session would load now:
- its name is keyed by Python's, botocore's (the cache directory) and this package's versions, the
  operations and shapes it holds (`ROOTS`), and where botocore looks for a newer sagemaker model
  first: `AWS_DATA_PATH`, the AWS config file (its `data_path`), ~/.aws/models/sagemaker;
- it records the model file it was cut from (path, size, modification time), which is looked at on
  every read.
Anything else — no entry, a corrupt one, another model file, `PULUMI_HYPERPOD_MODEL_CACHE=0` — cuts
the shapes again from the whole model (or, with the cache off, uses the whole model).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any
from collections.abc import Iterator

from botocore.model import ServiceModel

import pulumi_hyperpod  # its version, read at call time: part of the entry key
from pulumi_hyperpod.aws.sessions import botocore_session

# the same cache as the parsed model files: its directory, key hashing and whole-file reads and writes
from pulumi_hyperpod.aws.modelcache import _MISSING, _key, _read, _write, cache_dir

SERVICE = "sagemaker"
TYPE = "service-2"
# What a spec check asks of the model: the requests a spec becomes, and the policy's rollout shape.
SPEC_OPERATIONS = ("CreateCluster", "UpdateCluster")
# What a preview's observe calls (aws/observe, aws/preflight, aws/cost): on the simulator, its request
# and answer checks (servicemodel.violations) then run on the cut too, without a second session and
# the whole model's ServiceModel. An operation left out is still checked, on the whole model.
READ_OPERATIONS = (
    "DescribeCluster",
    "ListClusterNodes",
    "ListTags",
    "ListClusters",
    "ListClusterEvents",
    "DescribeClusterNode",
    "DescribeTrainingPlan",
)
OPERATIONS = (*SPEC_OPERATIONS, *READ_OPERATIONS)
SHAPES = ("DeploymentConfiguration", "BatchAddClusterNodesRequest", "BatchDeleteClusterNodesRequest")
ROOTS = (*OPERATIONS, *SHAPES)
PREFIX = "spec-shapes-"


@dataclass(frozen=True)
class SpecShapes:
    """botocore's `ServiceModel` over the spec's shapes, with the names it holds."""

    model: Any
    description: dict[str, Any]  # the cut model's JSON, as botocore's loader would hand it out
    operations: frozenset[str]
    shapes: frozenset[str]
    all_operations: frozenset[str]  # every operation of the whole model: a name is an operation or a shape


def load(directory: Any = _MISSING) -> SpecShapes | None:
    """The spec's shapes, from the cache or cut from the whole model (then kept); None when the
    cache is turned off (the whole model serves every lookup then)."""
    directory = cache_dir() if directory is _MISSING else directory
    if directory is None:
        return None
    key = entry_key()
    entry = _read(directory, key)
    description = _valid(entry)
    if description is None:
        source, whole = _whole_model()
        description = cut(whole)
        _write(directory, key, {"source": source, "model": description}, replaces=_family())
    return _spec_shapes(description)


def entry_key() -> str:
    """The entry's file name: what its content depends on, short of reading the model."""
    data_path = os.environ.get("AWS_DATA_PATH") or ""
    config = os.environ.get("AWS_CONFIG_FILE") or os.path.join("~", ".aws", "config")
    places = [os.path.join("~", ".aws", "models"), *data_path.split(os.pathsep)]
    return _family() + _key(
        "spec-shapes",
        pulumi_hyperpod.__version__,
        ROOTS,
        data_path,
        os.environ.get("AWS_PROFILE") or "",
        _stat(os.path.expanduser(config)),
        [_tree(os.path.join(os.path.expanduser(place), SERVICE)) for place in places if place],
    )


def _family() -> str:
    """The names of entries holding these roots: a new entry replaces the older ones of its family
    only, so checkouts that cut other roots (another version of this package) sharing the cache do
    not evict each other's entry on every run."""
    return f"{PREFIX}{_key(ROOTS)[:8]}-"


def cut(description: dict[str, Any]) -> dict[str, Any]:
    """The model's JSON with only `ROOTS` and every shape they reach (members, list items, map keys
    and values; an operation's input, output and errors)."""
    operations = {name: description["operations"][name] for name in OPERATIONS}
    shapes = description["shapes"]
    wanted = [*SHAPES]
    for operation in operations.values():
        wanted += [ref["shape"] for ref in (operation.get("input"), operation.get("output")) if ref]
        wanted += [ref["shape"] for ref in operation.get("errors") or ()]
    kept: dict[str, Any] = {}
    while wanted:
        name = wanted.pop()
        if name in kept:
            continue
        kept[name] = shapes[name]
        wanted += _references(shapes[name])
    return {
        "version": description.get("version"),
        "metadata": description["metadata"],
        "operations": operations,
        "shapes": {name: kept[name] for name in shapes if name in kept},  # the model's own order
        "operationNames": list(description["operations"]),
    }


def _references(shape: dict[str, Any]) -> Iterator[str]:
    for member in (shape.get("members") or {}).values():
        yield member["shape"]
    for part in ("member", "key", "value"):
        if isinstance(shape.get(part), dict):
            yield shape[part]["shape"]


def _valid(entry: Any) -> dict[str, Any] | None:
    """The entry's model when it is whole and its model file is the one it was cut from."""
    if not isinstance(entry, dict) or not isinstance(entry.get("model"), dict):
        return None
    source = entry.get("source")
    if not isinstance(source, list) or len(source) != 3 or not isinstance(source[0], str):
        return None
    if _stat(source[0]) != source[1:]:
        return None
    model = entry["model"]
    if not all(isinstance(model.get(part), dict) for part in ("metadata", "operations", "shapes")):
        return None
    if not isinstance(model.get("operationNames"), list):
        return None
    if set(model["operations"]) != set(OPERATIONS) or not set(SHAPES) <= set(model["shapes"]):
        return None
    return model


def _whole_model() -> tuple[list[Any], dict[str, Any]]:
    """The model's JSON as the session loads it (extras applied) and the file it came from."""
    loader = botocore_session().get_component("data_loader")
    version = loader.determine_latest_version(SERVICE, TYPE)
    _, path = loader.load_data_with_path(os.path.join(SERVICE, version, TYPE))
    found = next((path + suffix for suffix in (".json", ".json.gz") if os.path.isfile(path + suffix)), path)
    return [found, *_stat(found)], loader.load_service_model(SERVICE, TYPE)


def _spec_shapes(description: dict[str, Any]) -> SpecShapes:
    return SpecShapes(
        ServiceModel(description, service_name=SERVICE),
        description,
        frozenset(description["operations"]),
        frozenset(description["shapes"]),
        frozenset(description["operationNames"]),
    )


def _stat(path: str) -> list[Any]:
    try:
        status = os.stat(path)
    except OSError:
        return [None, None]
    return [status.st_size, status.st_mtime_ns]


def _tree(path: str) -> list[Any]:
    """A directory botocore may read a newer model from: its entries with their modification times."""
    try:
        return sorted([entry.name, entry.stat().st_mtime_ns] for entry in os.scandir(path))
    except OSError:
        return []
