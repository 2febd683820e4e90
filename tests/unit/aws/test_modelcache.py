"""botocore's models kept parsed between processes (modelcache.py): the same data as botocore's own
loading, every time, whatever state the cache is in."""

from __future__ import annotations

import json
import os
from pathlib import Path

import botocore.loaders
import pytest

from pulumi_hyperpod.aws.modelcache import MIN_BYTES, CachingLoader, cache_dir, caching_loader


def botocore_loader(*extra: str) -> botocore.loaders.Loader:
    return botocore.loaders.Loader(extra_search_paths=list(extra))


def entries(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if not p.name.startswith(".")) if directory.exists() else []


def test_models_and_service_lists_are_botocores_own_cold_and_warm(tmp_path):
    for _ in range(2):  # the first loader fills the cache, the second reads it
        ours = CachingLoader(directory=tmp_path)
        assert ours.load_service_model("sagemaker", "service-2") == botocore_loader().load_service_model("sagemaker", "service-2")
        assert ours.load_data("endpoints") == botocore_loader().load_data("endpoints")
        assert ours.list_available_services("service-2") == botocore_loader().list_available_services("service-2")
    # the two large files and the service list, nothing for the small files
    assert len(entries(tmp_path)) == 3


def test_a_corrupt_or_truncated_entry_is_read_again_from_botocore(tmp_path):
    CachingLoader(directory=tmp_path).load_service_model("sagemaker", "service-2")
    for entry in entries(tmp_path):
        entry.write_bytes(entry.read_bytes()[:100])
    model = CachingLoader(directory=tmp_path).load_service_model("sagemaker", "service-2")
    assert model == botocore_loader().load_service_model("sagemaker", "service-2")


def test_an_unwritable_cache_changes_nothing(tmp_path):
    blocked = tmp_path / "file-not-dir"
    blocked.write_text("")
    ours = CachingLoader(directory=blocked / "cache")
    assert ours.load_service_model("sagemaker", "service-2")["metadata"]["serviceId"] == "SageMaker"


def test_a_changed_file_is_parsed_again(tmp_path):
    models = tmp_path / "models" / "example" / "2020-01-01"
    models.mkdir(parents=True)
    document = {"version": "2.0", "metadata": {"serviceId": "Example"}, "operations": {}, "shapes": {}, "documentation": "x" * MIN_BYTES}
    (models / "service-2.json").write_text(json.dumps(document))
    cache = tmp_path / "cache"
    assert (
        CachingLoader([str(tmp_path / "models")], directory=cache).load_service_model("example", "service-2")["metadata"]["serviceId"]
        == "Example"
    )
    document["metadata"]["serviceId"] = "Changed"
    (models / "service-2.json").write_text(json.dumps(document))
    os.utime(models / "service-2.json", ns=(1, 1))  # another time and size: another entry
    assert (
        CachingLoader([str(tmp_path / "models")], directory=cache).load_service_model("example", "service-2")["metadata"]["serviceId"]
        == "Changed"
    )
    # the new parse replaced the old one: one entry for the file, one for the service list
    assert len(entries(cache)) == 2
    # the entries of another search path are kept beside them
    other = tmp_path / "other" / "example" / "2020-01-01"
    other.mkdir(parents=True)
    (other / "service-2.json").write_text(json.dumps(document))
    assert (
        CachingLoader([str(tmp_path / "other")], directory=cache).load_service_model("example", "service-2")["metadata"]["serviceId"]
        == "Changed"
    )
    assert len(entries(cache)) == 4


def test_entries_named_the_old_way_are_removed_by_the_next_write(tmp_path):
    legacy = tmp_path / ("0123456789abcdef" * 2)
    legacy.write_bytes(b"an entry of the format before")
    CachingLoader(directory=tmp_path).load_service_model("sagemaker", "service-2")
    assert not legacy.exists()
    assert all("-" in entry.name for entry in entries(tmp_path))


def test_a_model_added_to_a_search_path_is_listed(tmp_path):
    models = tmp_path / "models"
    models.mkdir()
    cache = tmp_path / "cache"
    before = CachingLoader([str(models)], directory=cache).list_available_services("service-2")
    (models / "example" / "2020-01-01").mkdir(parents=True)
    (models / "example" / "2020-01-01" / "service-2.json").write_text("{}")
    after = CachingLoader([str(models)], directory=cache).list_available_services("service-2")
    assert "example" not in before and "example" in after
    assert len(entries(cache)) == 1  # the new list replaced the old one


def test_the_switch_and_the_place(tmp_path, monkeypatch):
    monkeypatch.setenv("PULUMI_HYPERPOD_CACHE", str(tmp_path))
    assert cache_dir() == tmp_path / f"botocore-{botocore.__version__}"
    monkeypatch.setenv("PULUMI_HYPERPOD_MODEL_CACHE", "0")
    assert cache_dir() is None
    loader = caching_loader(None)
    assert loader.load_service_model("sagemaker", "service-2")["metadata"]["serviceId"] == "SageMaker"
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize("data_path", [None, "~/extra-models"])
def test_the_session_data_path_is_kept(data_path, monkeypatch):
    assert caching_loader(data_path).search_paths[-1] == botocore.loaders.Loader.BUILTIN_DATA_PATH
    if data_path:
        assert caching_loader(data_path).search_paths[0] == os.path.expanduser(data_path)


def test_an_entry_that_is_a_pipe_or_a_device_is_not_read(tmp_path):
    """A cache entry replaced by a FIFO or a link to /dev/zero is read like any input: a regular
    file of bounded size, else botocore's own copy is used (no hang, no endless read)."""
    import threading

    CachingLoader(directory=tmp_path).load_service_model("sagemaker", "service-2")
    first, *rest = entries(tmp_path)
    first.unlink()
    os.mkfifo(first)
    for entry in rest:
        entry.unlink()
        entry.symlink_to("/dev/zero")
    loaded: list = []
    reader = threading.Thread(
        target=lambda: loaded.append(CachingLoader(directory=tmp_path).load_service_model("sagemaker", "service-2")), daemon=True
    )
    reader.start()
    reader.join(30)
    if reader.is_alive():
        with open(first, "wb"):
            pass
        pytest.fail("reading a cache entry waited on a pipe or read without end")
    assert loaded and loaded[0] == botocore_loader().load_service_model("sagemaker", "service-2")


def test_the_cache_overrides_no_private_name_of_botocore():
    """Only botocore's public loader API is overridden (a private one may change in any release)."""
    from pulumi_hyperpod.aws.modelcache import CachingFileLoader

    for ours, theirs in ((CachingLoader, botocore.loaders.Loader), (CachingFileLoader, botocore.loaders.JSONFileLoader)):
        overridden = {name for name in vars(ours) if name in dir(theirs) and not name.startswith("__")}
        assert overridden and not {name for name in overridden if name.startswith("_")}, overridden
