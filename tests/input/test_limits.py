"""Issue 12, item 2: over-long values fail on the length rule at once (never a pattern run over
them), and files over the documented size are refused before they are parsed; YAML aliases and
nesting cannot blow the parser up."""

from __future__ import annotations

import json
import time

import pytest

from pulumi_hyperpod.aws import servicemodel, servicerules
from pulumi_hyperpod.aws.spec import MAX_BYTES, ClusterSpec, SpecError, parse_document
from tests.support.input_cli import SPECS, run

MiB = 1024 * 1024


def _seed() -> dict:
    return json.loads((SPECS / "seed004-initial.json").read_text())


@pytest.mark.parametrize("value", ["c" * 10_000_000, "!" * 10_000_000, "-" + "a-" * 5_000_000])
def test_a_10_mb_cluster_name_fails_on_its_length_at_once(value):
    started = time.perf_counter()
    with pytest.raises(SpecError) as raised:
        ClusterSpec.from_dict({**_seed(), "ClusterName": value})
    assert time.perf_counter() - started < 1.0
    assert [str(v) for v in raised.value.violations] == [f"ClusterName: must have at most 63 characters; has {len(value)}"]


def test_each_field_stops_at_its_first_broken_rule():
    """Type, then min, then max, then enum, then pattern: one problem per field."""
    assert servicemodel.violations("CreateCluster", {"ClusterName": ""}, check_required=False) == [
        servicemodel.Violation("ClusterName", "must have at least 1 characters; has 0")
    ]
    problems = servicemodel.violations("CreateCluster", {"ClusterName": "x" * 64 + "!", "NodeRecovery": "Sometimes"}, check_required=False)
    assert [str(p) for p in problems] == [
        "ClusterName: must have at most 63 characters; has 65",
        "NodeRecovery: must be one of Automatic, None; got 'Sometimes'",
    ]


def test_the_validator_is_botocore_s_param_validator():
    from botocore.validate import ParamValidator

    assert issubclass(servicerules._ServiceRules, ParamValidator)
    # a tagged union, checked by botocore's own code
    problems = servicemodel.violations("ClusterInstanceStorageConfig", {"EbsVolumeConfig": {"VolumeSizeInGB": 10}, "FsxLustreConfig": {}})
    assert any("give exactly one of EbsVolumeConfig" in p.rule for p in problems)


@pytest.mark.parametrize("kind, option", [("cluster spec", "-f"), ("policy", "--policy"), ("snapshot", "--observed")])
def test_files_over_the_limit_are_refused_before_parsing(world, tmp_path, kind, option):
    big = tmp_path / "big.yaml" if kind != "snapshot" else tmp_path / "big.json"
    limit = MAX_BYTES[kind]
    with big.open("w") as handle:  # valid YAML/JSON all the way: a parser would take its time
        handle.write("[" + "1," * (limit // 2) + "1]")
    spec = str(SPECS / "seed004-initial.json")
    args = ["plan", "-f", str(big)] if option == "-f" else ["plan", "-f", spec, option, str(big)]
    started = time.perf_counter()
    result = run(*args)
    assert time.perf_counter() - started < 3.0
    assert result.code == 1
    assert f"{big}: the file is larger than {limit // MiB} MiB, the most a {kind} file may be" in result.output


def test_the_documented_limits():
    assert MAX_BYTES == {
        "cluster spec": 5 * MiB,
        "policy": 5 * MiB,
        "snapshot": 64 * MiB,
        "lifecycle parameters": 1 * MiB,
        "saved plan": 64 * MiB,
    }


def test_an_alias_bomb_is_refused_at_once():
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 12):
        lines.append(f"{chr(97 + level)}: &{chr(97 + level)} [{', '.join([f'*{chr(96 + level)}'] * 10)}]")
    started = time.perf_counter()
    with pytest.raises(SpecError, match="aliases expand the document"):
        parse_document("\n".join(lines), ".yaml")
    assert time.perf_counter() - started < 1.0


def test_aliases_a_person_writes_are_fine():
    text = "defaults: &role {ExecutionRole: 'arn:aws:iam::111122223333:role/r'}\ngroups:\n" + "".join(
        f"  - {{<<: *role, InstanceGroupName: g{i}}}\n" for i in range(50)
    )
    assert len(parse_document(text, ".yaml")["groups"]) == 50


@pytest.mark.parametrize(
    "text, suffix",
    [
        ("a: &a [*a]", ".yaml"),
        ("[" * 70 + "]" * 70, ".yaml"),
        ("[" * 70 + "]" * 70, ".json"),
        ("[" * 100_000 + "]" * 100_000, ".json"),
        ("[" * 100_000, ".yaml"),
    ],
)
def test_self_reference_and_deep_nesting(text, suffix):
    with pytest.raises(SpecError):
        parse_document(text, suffix)


def test_a_list_over_its_limit_is_one_problem_not_one_per_item():
    groups = [{"InstanceGroupName": "g", "InstanceCount": "x"}] * 100_000
    started = time.perf_counter()
    problems = servicemodel.violations("CreateCluster", {"ClusterName": "c", "InstanceGroups": groups})
    assert time.perf_counter() - started < 1.0
    assert [str(p) for p in problems] == ["InstanceGroups: must have at most 100 items; has 100000"]


def test_thousands_of_problems_print_fifty_lines_and_a_count(world, tmp_path):
    data = _seed()
    data.update({f"Unknown{i}": i for i in range(5000)})
    (tmp_path / "spec.json").write_text(json.dumps(data))
    result = run("plan", "-f", str(tmp_path / "spec.json"))
    assert result.code == 1
    assert len(result.lines()) == 51 and result.lines()[-1].endswith("4950 more problems not shown")


def test_a_field_the_model_refuses_gets_no_second_rule():
    data = json.loads((SPECS / "seed000-create-cluster.json").read_text())
    data["InstanceGroups"][0]["InstanceCount"] = 7000  # the controller: over the model's max, and not 1
    with pytest.raises(SpecError) as raised:
        ClusterSpec.from_dict(data)
    assert [str(v) for v in raised.value.violations] == ["InstanceGroups[0].InstanceCount: must be at most 6758; got 7000"]
