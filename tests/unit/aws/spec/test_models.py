"""The ClusterSpec dataclasses (issue 30) build exactly what the pydantic models built: for any spec,
valid or not, in either spelling and any key order, the same request (members, values, key order,
lists), the same attributes and views, the same equality, and the same SpecError. The oracle is the
pydantic models as they were (tests/support/pydantic_clusterspec.py); values come from botocore's
shapes (tests/support/model_values.py) on top of the example specs."""

from __future__ import annotations

import copy
import datetime as dt
import json
import pickle
import re
from dataclasses import FrozenInstanceError, is_dataclass
from typing import Any, Literal, get_args, get_origin, get_type_hints

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.spec import SpecError, parse_document
from pulumi_hyperpod.aws.spec import models
from pulumi_hyperpod.aws.spec.models import ClusterSpec, InstanceGroupSpec, LifeCycleConfig
from pulumi_hyperpod.aws.spec.request import api_request, checked_request
from tests.support import pydantic_clusterspec as oracle
from tests.support.model_values import values
from tests.support.paths import REPO

ROOT = REPO
SPECS = {path.name: json.loads(path.read_text()) for path in sorted((ROOT / "examples" / "specs").glob("*.json"))}
CORPUS = ROOT / "tests" / "badinput" / "corpus"
GROUP_SHAPE = servicemodel.shape("ClusterInstanceGroupSpecification")
REQUEST_SHAPE = servicemodel.input_shape("CreateCluster")
# members drawn from their shapes; the rest (names, counts, types, roles) stay the example's
GROUP_DRAWN = [name for name in GROUP_SHAPE.members if name not in ("InstanceGroupName", "InstanceCount", "InstanceType", "ExecutionRole")]
TOP_DRAWN = [name for name in REQUEST_SHAPE.members if name not in ("ClusterName", "InstanceGroups", "RestrictedInstanceGroups")]


def snake(key: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", key).lower()


def spelled(value: Any, spell) -> Any:
    if isinstance(value, dict):
        return {spell(k): spelled(v, spell) for k, v in value.items()}
    if isinstance(value, list):
        return [spelled(v, spell) for v in value]
    return value


@st.composite
def reordered(draw, value: Any) -> Any:
    """`value` with the keys of every object in a drawn order."""
    if isinstance(value, dict):
        keys = draw(st.permutations(list(value)))
        return {key: draw(reordered(value[key])) for key in keys}
    if isinstance(value, list):
        return [draw(reordered(item)) for item in value]
    return value


@st.composite
def specs(draw) -> Any:
    """An example spec with members of its groups and of the request drawn from botocore's shapes,
    optional ones taken away, timestamps as datetimes, keys reordered and maybe snake_case."""
    spec = copy.deepcopy(SPECS[draw(st.sampled_from(sorted(SPECS)))])
    for group in spec.get("InstanceGroups") or []:
        for name in draw(st.lists(st.sampled_from(GROUP_DRAWN), max_size=3, unique=True)):
            group[name] = draw(values(GROUP_SHAPE.members[name]), label=name)
        for name in draw(st.lists(st.sampled_from(sorted(group)), max_size=2, unique=True)):
            if name not in GROUP_SHAPE.required_members:
                del group[name]
        patch = group.get("AutoPatchConfig")
        if isinstance(patch, dict) and "NextPatchDate" in (patch.get("PatchSchedule") or {}) and draw(st.booleans()):
            patch["PatchSchedule"]["NextPatchDate"] = dt.datetime.fromisoformat(patch["PatchSchedule"]["NextPatchDate"])
    for name in draw(st.lists(st.sampled_from(TOP_DRAWN), max_size=2, unique=True)):
        spec[name] = draw(values(REQUEST_SHAPE.members[name]), label=name)
    for name in draw(st.lists(st.sampled_from(sorted(spec)), max_size=1, unique=True)):
        del spec[name]
    spec = draw(reordered(spec))
    return spelled(spec, snake) if draw(st.booleans()) else spec


def built(cls, data: Any):
    """The spec, or the text of the SpecError refusing it."""
    try:
        return cls.from_dict(data, source="spec.yaml")
    except SpecError as error:
        return f"SpecError: {error}"


def same(new: Any, old: Any, path: str = "spec") -> None:
    """Field by field: a pydantic model's fields and extras, a tuple item by item, a value as is."""
    if isinstance(old, BaseModel):
        assert type(new).__name__ == type(old).__name__ and is_dataclass(new), path
        for name in type(old).model_fields:
            same(getattr(new, name), getattr(old, name), f"{path}.{name}")
        assert new.model_extra == old.model_extra, path
        assert list(new.model_extra) == list(old.model_extra or {}), path
    elif isinstance(old, tuple):
        assert isinstance(new, tuple) and len(new) == len(old), path
        for i, (a, b) in enumerate(zip(new, old, strict=True)):
            same(a, b, f"{path}[{i}]")
    else:
        assert repr(new) == repr(old), path


def same_views(new: ClusterSpec, old: oracle.ClusterSpec) -> None:
    for operation in ("CreateCluster", "UpdateCluster"):
        assert repr(new.to_api(operation)) == repr(old.to_api(operation)), operation  # members, order, lists
    assert (new.name, new.continuous, new.orchestrator_kind) == (old.name, old.continuous, old.orchestrator_kind)
    for group, was in zip(new.instance_groups, old.instance_groups, strict=True):
        assert (group.name, group.node_type, group.instance_types) == (was.name, was.node_type, was.instance_types)
        assert [group.effective_min_count(c) for c in (True, False)] == [was.effective_min_count(c) for c in (True, False)]
        assert repr(group.build_config()) == repr(was.build_config()) and repr(group.to_api()) == repr(was.to_api())
        assert new.group(group.name) is group
    assert new.group("no-such-group") is None


def is_json(data: Any) -> bool:
    try:
        json.dumps(data)
    except TypeError:
        return False
    return True


def hash_of(value: Any) -> Any:
    try:
        return hash(value) is not None
    except TypeError:
        return "unhashable"


@settings(max_examples=200, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=specs())
def test_a_spec_builds_what_the_pydantic_models_built(data):
    new, old = built(ClusterSpec, data), built(oracle.ClusterSpec, data)
    event("refused" if isinstance(old, str) else "valid")
    event("a datetime" if not is_json(data) else "JSON data")
    if isinstance(old, str):
        assert new == old  # the same problems, paths and rules, in the same order
        return
    request, problems = checked_request(data)
    assert problems == []
    if is_json(data):  # what a provider's check stores (a property bag holds no datetime)
        assert new.to_api() == api_request(request)
    same(new, old)
    same_views(new, old)
    assert ClusterSpec(**data) == new
    again = ClusterSpec.from_dict(json.loads(json.dumps(new.to_api(), default=str)))
    assert (again == new) == (oracle.ClusterSpec.from_dict(json.loads(json.dumps(old.to_api(), default=str))) == old)
    assert hash_of(new) == hash_of(old)
    if hash_of(new) is True:
        assert hash(again) == hash(new) or again != new


@pytest.mark.parametrize("name", sorted(SPECS))
def test_an_example_spec_in_either_spelling_is_one_spec(name):
    pascal = ClusterSpec.from_dict(SPECS[name])
    assert ClusterSpec.from_dict(spelled(SPECS[name], snake)) == pascal == ClusterSpec(**SPECS[name])
    assert ClusterSpec.from_dict(pascal) is pascal
    assert pickle.loads(pickle.dumps(pascal)) == pascal == copy.deepcopy(pascal)
    assert repr(pascal.to_api()) == repr(oracle.ClusterSpec.from_dict(SPECS[name]).to_api())


def test_every_bad_input_file_is_refused_with_the_same_error():
    documents = []
    for path in sorted(CORPUS.iterdir()):
        try:
            documents.append((path.name, parse_document(path.read_bytes().decode("utf-8"), path.suffix)))
        except (SpecError, UnicodeDecodeError):
            continue  # not a document: nothing reaches the models
    assert len(documents) > 1000
    differ = [name for name, data in documents if built(ClusterSpec, data) != built(oracle.ClusterSpec, data)]
    assert differ == []


@pytest.mark.parametrize("data", [[], "spec", 3, None])
def test_a_spec_that_is_not_an_object_is_refused_as_before(data):
    assert (
        built(ClusterSpec, data)
        == built(oracle.ClusterSpec, data)
        == f"SpecError: spec.yaml: a cluster spec is an object; got {type(data).__name__}"
    )


def test_a_member_the_classes_do_not_declare_passes_through_after_the_declared_ones():
    spec = copy.deepcopy(SPECS["seed001-eks-continuous.json"])
    group = spec["InstanceGroups"][0]
    spec["InstanceGroups"][0] = {"ImageReleaseVersion": "2025.1.0", **group}
    built_ = ClusterSpec.from_dict(spec).instance_groups[0]
    assert built_.ImageReleaseVersion == "2025.1.0" and built_.model_extra == {"ImageReleaseVersion": "2025.1.0"}
    assert list(built_.to_api())[-1] == "ImageReleaseVersion"
    with pytest.raises(AttributeError, match="no attribute 'AutoPatchConfig'"):
        built_.AutoPatchConfig  # noqa: B018 - the lookup is the test


@pytest.mark.parametrize("offset", [0, 1])
def test_a_timestamp_given_as_a_datetime_is_sent_as_pydantic_wrote_it(offset):
    spec = copy.deepcopy(SPECS["seed001-eks-continuous.json"])
    when = dt.datetime(2027, 1, 1, 5, 30, 0, 250000, tzinfo=dt.timezone(dt.timedelta(hours=offset)))
    spec["InstanceGroups"][0]["AutoPatchConfig"] = {"PatchingStrategy": "WhenIdle", "PatchSchedule": {"NextPatchDate": when}}
    sent = ClusterSpec.from_dict(spec).to_api()["InstanceGroups"][0]["AutoPatchConfig"]["PatchSchedule"]["NextPatchDate"]
    assert sent == oracle.ClusterSpec.from_dict(spec).to_api()["InstanceGroups"][0]["AutoPatchConfig"]["PatchSchedule"]["NextPatchDate"]
    assert sent == ("2027-01-01T05:30:00.250000Z" if offset == 0 else "2027-01-01T05:30:00.250000+01:00")


def test_a_spec_is_frozen():
    spec = ClusterSpec.from_dict(SPECS["seed004-initial.json"])
    with pytest.raises(FrozenInstanceError):
        spec.cluster_name = "other"  # type: ignore[misc]
    with pytest.raises(FrozenInstanceError):
        del spec.instance_groups[0].instance_count


def test_a_class_is_built_by_keyword_in_either_spelling_and_names_a_member_left_out():
    uri = "s3://bucket/lifecycle/"
    assert LifeCycleConfig(SourceS3Uri=uri, OnCreate="on_create.sh") == LifeCycleConfig(source_s3_uri=uri, on_create="on_create.sh")
    assert LifeCycleConfig(SourceS3Uri=uri).to_api() == {"SourceS3Uri": uri}
    group = InstanceGroupSpec(InstanceGroupName="g", InstanceCount=2, ExecutionRole="r", life_cycle_config={"SourceS3Uri": uri})
    assert group.life_cycle_config == LifeCycleConfig(SourceS3Uri=uri)
    with pytest.raises(TypeError, match="InstanceGroupSpec needs ExecutionRole"):
        InstanceGroupSpec(InstanceGroupName="g", InstanceCount=2)
    with pytest.raises(SpecError, match="ClusterName: is required"):
        ClusterSpec(InstanceGroups=[])


# members of ClusterSpec that are no member of CreateCluster: the spec's Extensions, each one
# CreateClusterExtension's input without what the plan sets (aws/spec/extensions.py)
NOT_CREATE_CLUSTER = {"Extensions": servicemodel.input_shape("CreateClusterExtension")}
SET_BY_PLAN = {"ClusterArn", "ClientToken"}


def _classes(cls: type, shape, path: str):
    """Every class under `cls` with the botocore shape it stands for."""
    yield cls, shape, path
    for attribute, nested in cls._NESTED.items():
        if cls is ClusterSpec and models.api_name(attribute) in NOT_CREATE_CLUSTER:
            yield from _classes(nested, NOT_CREATE_CLUSTER[models.api_name(attribute)], f"{path}.{attribute}")
            continue
        member = shape.members[models.api_name(attribute)]
        yield from _classes(nested, member.member if member.type_name == "list" else member, f"{path}.{attribute}")


@pytest.mark.parametrize(
    "cls,shape,path", list(_classes(ClusterSpec, REQUEST_SHAPE, "ClusterSpec")), ids=lambda v: v if isinstance(v, str) else ""
)
def test_every_attribute_names_a_member_of_its_shape_as_the_pydantic_alias_did(cls, shape, path):
    old = getattr(oracle, cls.__name__, None)  # None: a class made after the oracle (RestrictedInstanceGroupSpec)
    own = [(a, name) for a, name in models._declared(cls) if not (cls is ClusterSpec and name in NOT_CREATE_CLUSTER)]
    if old is not None:
        assert [models.api_name(a) for a, _ in own] == [f.alias for f in old.model_fields.values()]
    else:  # then it declares its shape's members, each once, in the shape's order (an extension: but the plan's)
        declared = [name for _, name in own]
        expected = set(shape.members) - (SET_BY_PLAN if cls is models.ExtensionSpec else set())
        assert declared == [name for name in shape.members if name in declared] and set(declared) == expected, path
    assert all(name in shape.members for _, name in own), path
    for attribute, hint in get_type_hints(cls).items():  # a Literal is the service model's enum, as the check has it
        literals = [arg for arg in get_args(hint) if get_origin(arg) is Literal] or ([hint] if get_origin(hint) is Literal else [])
        if literals:
            assert set(get_args(literals[0])) == set(shape.members[models.api_name(attribute)].enum), f"{path}.{attribute}"


def test_to_api_is_worked_out_once_and_handed_out_new_each_call():
    """The request form is kept on the record after the first call (the planner asks a group for
    it several times per plan), but a caller that changes what it got changes nothing else."""
    from pulumi_hyperpod.aws.spec.models import ClusterSpec

    spec = ClusterSpec.from_dict(
        {
            "ClusterName": "kept",
            "InstanceGroups": [
                {
                    "InstanceGroupName": "workers",
                    "InstanceType": "ml.g5.xlarge",
                    "InstanceCount": 2,
                    "ExecutionRole": "arn:aws:iam::111122223333:role/r",
                    "LifeCycleConfig": {"SourceS3Uri": "s3://b/p", "OnCreate": "on_create.sh"},
                }
            ],
        }
    )
    first = spec.to_api()
    first["InstanceGroups"][0]["LifeCycleConfig"]["OnCreate"] = "changed.sh"
    first["InstanceGroups"].append({"InstanceGroupName": "extra"})
    group = spec.instance_groups[0]
    group_api = group.to_api()
    group_api["InstanceCount"] = 99
    assert spec.to_api() == {**first, "InstanceGroups": [dict(group.to_api())]}
    assert spec.to_api()["InstanceGroups"][0]["LifeCycleConfig"]["OnCreate"] == "on_create.sh"
    assert group.to_api()["InstanceCount"] == 2
    assert spec.to_api() is not spec.to_api()
    assert group.build_config()["LifeCycleConfig"] == {"SourceS3Uri": "s3://b/p", "OnCreate": "on_create.sh"}
