"""botocore's model files, kept parsed between processes.

Every `pulumi preview` starts a new provider process and every `hyperpod` command is one, and each
parsed the 2.6 MB sagemaker model and endpoints.json again (about 70 ms: botocore reads its JSON into
OrderedDicts) and listed every service directory of botocore's data to check a service name (about
12 ms for each kind of file). `CachingLoader` is botocore's own `Loader` (and `JSONFileLoader`) with
those two results kept on disk, through their public methods only (`load_file`,
`list_available_services`, the `file_loader` argument; the loader is given to each session with
`register_component("data_loader", ...)`): botocore still decides what is loaded and from where; the
cache only saves the parsing and the listing.

- A parsed file is stored as `marshal` data (plain dicts keep the order the OrderedDicts had; loading
  marshal data runs no code), keyed by the file's path, size and modification time. An entry
  replaces the older entries of the same path (a reinstalled botocore, a file edited in
  ~/.aws/models), so the cache holds one parse per model file, not one per version of it; so
  does a service list.
- A service list is keyed by the search paths (botocore's own data by botocore's version; the
  entries of any other path, such as ~/.aws/models, with their modification times).
- Entries are written whole (a temporary file, then renamed). Any trouble with the cache (unwritable,
  corrupt, another Python) falls back to botocore's own loading.

Where: `$PULUMI_HYPERPOD_CACHE` (default `~/.cache/pulumi-hyperpod`, as for the engine build), under
`botocore-<version>/`. `PULUMI_HYPERPOD_MODEL_CACHE=0` turns it off.
"""

from __future__ import annotations

import hashlib
import marshal
import os
import stat
import sys
from collections import OrderedDict
from pathlib import Path
from typing import Any

import botocore
from botocore.loaders import JSONFileLoader, Loader

from pulumi_hyperpod.core.files import read_bounded, write_whole

# Smaller files parse faster than a cache entry is found: only the large models are kept.
MIN_BYTES = 64 * 1024
MAX_ENTRY_BYTES = 256 * 1024 * 1024  # the largest parsed model is a few MB
_MISSING = object()


def cache_dir() -> Path | None:
    if os.environ.get("PULUMI_HYPERPOD_MODEL_CACHE", "1") == "0":
        return None
    root = os.environ.get("PULUMI_HYPERPOD_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "pulumi-hyperpod")
    return Path(root) / f"botocore-{botocore.__version__}"


def _key(*parts: Any) -> str:
    text = "\0".join(str(part) for part in (sys.version_info[:2], *parts))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _read(directory: Path | None, key: str) -> Any:
    if directory is None:
        return _MISSING
    try:
        # a regular file of bounded size, like every input (files.read_bounded): a FIFO or a link to
        # /dev/zero in the cache is a miss, not a hang or an endless read
        data = read_bounded(directory / key, MAX_ENTRY_BYTES)
        return marshal.loads(data) if len(data) <= MAX_ENTRY_BYTES else _MISSING
    except (OSError, EOFError, ValueError, TypeError):
        return _MISSING


def _write(directory: Path | None, key: str, value: Any, replaces: str | None = None) -> None:
    """`replaces`: a key prefix; the other entries starting with it are removed once this one is in."""
    if directory is None:
        return
    try:
        data = marshal.dumps(value)
        directory.mkdir(parents=True, exist_ok=True)
        write_whole(directory / key, data, mode=0o600)
        if replaces:
            for stale in directory.glob(replaces + "*"):
                if stale.name != key:
                    stale.unlink(missing_ok=True)  # another process may have removed it first
            for legacy in directory.glob("?" * 32):  # the entries named before "<path>-<version>"
                legacy.unlink(missing_ok=True)
    except (OSError, ValueError):
        pass  # the cache is a shortcut: botocore has the data anyway


def _plain(value: Any) -> Any:
    """OrderedDicts as dicts (marshal knows only the built-in types; dicts keep their order)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


class CachingFileLoader(JSONFileLoader):
    """botocore's JSON file loader (its public `load_file`); large files come from the cache once parsed."""

    def __init__(self, directory: Path | None) -> None:
        self.directory = directory

    def load_file(self, file_path: str) -> Any:
        found = _model_file(file_path)
        if found is None:
            return super().load_file(file_path)
        path, status = found
        if status.st_size < MIN_BYTES:
            return super().load_file(file_path)
        # "<path>-<version of the file>": a new version of a file replaces the entries of the old one
        place = _key("file", os.path.abspath(path))[:16] + "-"
        key = place + _key(status.st_size, status.st_mtime_ns)[:16]
        cached = _read(self.directory, key)
        if cached is not _MISSING:
            return cached
        data = super().load_file(file_path)
        if isinstance(data, OrderedDict):
            data = _plain(data)
            _write(self.directory, key, data, replaces=place)
        return data


# The files `JSONFileLoader.load_file(path)` tries, in its order: path + ".json", then ".json.gz".
MODEL_SUFFIXES = (".json", ".json.gz")


def _model_file(file_path: str) -> tuple[str, os.stat_result] | None:
    """The file botocore's `load_file` reads for `file_path`, with its status; None when there is none."""
    for suffix in MODEL_SUFFIXES:
        try:
            status = os.stat(file_path + suffix)
        except OSError:
            continue
        if stat.S_ISREG(status.st_mode):
            return file_path + suffix, status
    return None


class CachingLoader(Loader):
    """botocore's Loader (given the caching file loader through its public `file_loader`), with its
    service lists cached."""

    def __init__(self, extra_search_paths=None, directory: Path | None = _MISSING) -> None:  # type: ignore[assignment]
        self.directory = cache_dir() if directory is _MISSING else directory
        self.service_lists: dict[str, list[str]] = {}
        super().__init__(extra_search_paths=extra_search_paths, file_loader=CachingFileLoader(self.directory))

    def list_available_services(self, type_name):
        if type_name in self.service_lists:
            return self.service_lists[type_name]
        place = _key("services", type_name, self.search_paths)[:16] + "-"
        key = place + _key([_location(path) for path in self.search_paths])[:16]
        cached = _read(self.directory, key)
        if isinstance(cached, list):
            self.service_lists[type_name] = cached
            return cached
        services = super().list_available_services(type_name)
        _write(self.directory, key, list(services), replaces=place)
        self.service_lists[type_name] = services
        return services


def _location(path: str) -> tuple[Any, ...]:
    """What a service list depends on in one search path. botocore's own data is fixed for its
    version (part of the cache directory's name); another path (~/.aws/models) is looked into."""
    if os.path.abspath(path) == os.path.abspath(Loader.BUILTIN_DATA_PATH):
        return (path,)
    try:
        return (path, sorted((entry.name, entry.stat().st_mtime_ns) for entry in os.scandir(path)))
    except OSError:
        return (path, None)


def caching_loader(search_path_string: str | None) -> Loader:
    """What botocore's `create_loader` makes for the session's `data_path`, with the cache."""
    if search_path_string is None:
        return CachingLoader()
    paths = [os.path.expanduser(os.path.expandvars(path)) for path in search_path_string.split(os.pathsep)]
    return CachingLoader(extra_search_paths=paths)
