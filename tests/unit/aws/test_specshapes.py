"""The spec's shapes kept on disk (aws/specshapes.py): botocore's own shapes, cut again whenever the
entry could be stale (another key, a corrupt file, another model file), and never trusted blindly."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from pathlib import Path

import pytest

from pulumi_hyperpod.aws import servicemodel, specshapes
from pulumi_hyperpod.aws.modelcache import CachingLoader
from tests.support.paths import REPO

SPECS = sorted((REPO / "examples" / "specs").glob("*.json"))


def whole() -> dict:
    return servicemodel.botocore_session().get_component("data_loader").load_service_model("sagemaker", "service-2")


def entries(directory: Path) -> list[Path]:
    return sorted(directory.glob(specshapes.PREFIX + "*"))


@pytest.fixture
def cuts(monkeypatch):
    """How many times the shapes were cut from the whole model."""
    count = [0]
    real = specshapes._whole_model

    def counted():
        count[0] += 1
        return real()

    monkeypatch.setattr(specshapes, "_whole_model", counted)
    return count


def test_the_shapes_are_the_whole_models_own_and_close_under_references():
    description = whole()
    cut = specshapes.cut(description)
    assert set(cut["operations"]) == set(specshapes.OPERATIONS)
    assert all(cut["shapes"][name] == description["shapes"][name] for name in cut["shapes"])
    for shape in cut["shapes"].values():  # every reference resolves inside the cut
        assert all(ref in cut["shapes"] for ref in specshapes._references(shape))
    assert cut["operationNames"] == list(description["operations"])
    assert len(cut["shapes"]) < len(description["shapes"]) / 4  # a few of them, not the model


@pytest.mark.parametrize("path", SPECS, ids=lambda p: p.name)
def test_a_spec_is_judged_the_same_on_the_cut_and_on_the_whole_model(path, tmp_path):
    small = specshapes.load(tmp_path)
    spec = json.loads(path.read_text())
    broken = {
        **spec,
        "ClusterName": "bad name!",
        "Bogus": 1,
        "InstanceGroups": [{**g, "InstanceCount": -1} for g in spec["InstanceGroups"]],
    }
    for value in (spec, broken):
        for operation in specshapes.OPERATIONS:
            on_cut = servicemodel.violations(small.model.operation_model(operation).input_shape, value)
            on_whole = servicemodel.violations(servicemodel.service_model().operation_model(operation).input_shape, value)
            assert on_cut == on_whole
    assert servicemodel.violations(servicemodel.input_shape("CreateCluster"), broken)  # the broken one is broken


def test_one_cut_then_read_from_disk(tmp_path, cuts):
    first = specshapes.load(tmp_path)
    second = specshapes.load(tmp_path)
    assert cuts[0] == 1 and len(entries(tmp_path)) == 1
    assert first.shapes == second.shapes and first.operations == second.operations
    assert second.all_operations == frozenset(whole()["operations"])


def test_another_key_cuts_again_and_replaces_the_entry(tmp_path, cuts, monkeypatch):
    specshapes.load(tmp_path)
    before = entries(tmp_path)
    # a newer sagemaker model where botocore looks first (AWS_DATA_PATH) changes the key
    monkeypatch.setenv("AWS_DATA_PATH", str(tmp_path / "models"))
    specshapes.load(tmp_path)
    assert cuts[0] == 2
    after = entries(tmp_path)
    assert len(after) == 1 and after != before


def test_an_entry_of_other_roots_is_left_alone(tmp_path, cuts, monkeypatch):
    """Another checkout (other roots) sharing the cache keeps its entry: the two do not evict each other."""
    with monkeypatch.context() as patched:
        patched.setattr(specshapes, "ROOTS", ("CreateCluster",))
        specshapes.load(tmp_path)
        other = entries(tmp_path)
    specshapes.load(tmp_path)
    assert cuts[0] == 2 and len(entries(tmp_path)) == 2 and set(other) < set(entries(tmp_path))
    specshapes.load(tmp_path)
    assert cuts[0] == 2  # each read from its own entry


def test_the_package_version_is_part_of_the_key(monkeypatch):
    import pulumi_hyperpod

    before = specshapes.entry_key()
    monkeypatch.setattr(pulumi_hyperpod, "__version__", pulumi_hyperpod.__version__ + ".post1")
    assert specshapes.entry_key() != before


@pytest.mark.parametrize(
    "damage",
    [
        lambda data: data[: len(data) // 2],  # truncated
        lambda data: b"\x00garbage" * 10,  # not marshal data
        lambda data: marshal.dumps(["not", "an", "entry"]),
        lambda data: marshal.dumps({"source": ["/nowhere", 1, 2], "model": {}}),
    ],
    ids=["truncated", "garbage", "wrong-type", "empty-model"],
)
def test_a_damaged_entry_is_ignored_and_cut_again(tmp_path, cuts, damage):
    specshapes.load(tmp_path)
    (entry,) = entries(tmp_path)
    entry.write_bytes(damage(entry.read_bytes()))
    shapes = specshapes.load(tmp_path)
    assert cuts[0] == 2
    assert "CreateClusterRequest" in shapes.shapes
    assert specshapes._valid(marshal.loads(entry.read_bytes())) is not None  # written whole again


def test_an_entry_cut_from_another_model_file_is_cut_again(tmp_path, cuts):
    specshapes.load(tmp_path)
    (entry,) = entries(tmp_path)
    data = marshal.loads(entry.read_bytes())
    data["source"][1] += 1  # the model file has another size now (botocore's data replaced in place)
    entry.write_bytes(marshal.dumps(data))
    specshapes.load(tmp_path)
    assert cuts[0] == 2


def test_the_source_recorded_is_the_file_the_session_loads(tmp_path):
    specshapes.load(tmp_path)
    (entry,) = entries(tmp_path)
    path, size, _ = marshal.loads(entry.read_bytes())["source"]
    assert Path(path).name.startswith("service-2.json") and Path(path).parent.parent.name == "sagemaker"
    assert Path(path).stat().st_size == size
    # and it is the file botocore's own loader reads the model from
    loader = CachingLoader(directory=None)
    version = loader.determine_latest_version("sagemaker", "service-2")
    assert Path(path).parent.name == version


def test_with_the_cache_off_there_is_no_cut():
    assert specshapes.load(None) is None


LOOKUPS = """
import sys
from pulumi_hyperpod.aws import servicemodel as s
small = s.input_shape("CreateCluster")
assert s.has_operation("CreateCluster") and not s.has_operation("DeploymentConfiguration")
assert s.shape("DeploymentConfiguration").name == "DeploymentConfiguration"
assert not s.service_model.cache_info().currsize and "botocore.session" not in sys.modules
s.input_shape("DescribeEndpoint")  # outside the cut: the whole model loads, and answers every lookup from then on
assert s.service_model.cache_info().currsize
whole = s.input_shape("CreateCluster")
assert whole is s.service_model().operation_model("CreateCluster").input_shape and whole is not small
assert list(whole.members) == list(small.members)
"""


def test_lookups_use_the_cut_until_the_whole_model_is_loaded_then_the_whole_model():
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, (str(REPO), os.environ.get("PYTHONPATH"))))}
    # the cut is cut and kept by the first process that needs it (another checkout's may have replaced it): keep it first
    warm = "from pulumi_hyperpod.aws import servicemodel as s; s.input_shape('CreateCluster')"
    subprocess.run([sys.executable, "-c", warm], check=True, env=env, cwd=REPO, timeout=120)
    proc = subprocess.run([sys.executable, "-c", LOOKUPS], capture_output=True, text=True, env=env, cwd=REPO, timeout=120)
    assert proc.returncode == 0, proc.stderr
