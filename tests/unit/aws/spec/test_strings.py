"""Every string member of CreateCluster's input is held to its model pattern and minimum length, the
empty string included (issue 23: `VpcConfig.Subnets: [""]` passed both the spec and the simulator)."""

from __future__ import annotations

import regex

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError

from tests.support.factories import slurm_spec


def _strings(shape, path: str, seen: frozenset = frozenset()):
    if shape.type_name == "string":
        yield path, shape
    elif shape.type_name == "structure" and shape.name not in seen:
        for name, member in shape.members.items():
            yield from _strings(member, f"{path}.{name}" if path else name, seen | {shape.name})
    elif shape.type_name == "list":
        yield from _strings(shape.member, f"{path}[0]", seen)


def test_the_empty_string_is_refused_wherever_the_model_s_pattern_or_minimum_refuses_it():
    checked = 0
    for path, shape in _strings(servicemodel.input_shape("CreateCluster"), ""):
        pattern, low = shape.metadata.get("pattern"), shape.metadata.get("min", 0)
        should_refuse = low > 0 or bool(shape.enum) or (pattern is not None and not regex.fullmatch(pattern, ""))
        problems = servicemodel.violations(shape, "", path)
        assert bool(problems) == should_refuse, (path, pattern, low, problems)
        checked += 1
    assert checked > 40


def test_an_empty_subnet_is_refused_by_the_spec_naming_its_path():
    api = slurm_spec().to_api()
    api["VpcConfig"]["Subnets"] = [""]
    try:
        ClusterSpec.from_dict(api)
    except SpecError as error:
        assert "VpcConfig.Subnets[0]" in str(error) and "pattern" in str(error)
    else:
        raise AssertionError("an empty subnet id was accepted")
