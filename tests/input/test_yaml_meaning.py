"""Issue 12, item 4: YAML is read as YAML 1.2 (core schema) — specs, policies and snapshots alike —
and a number form YAML 1.1 tools read differently is never a silently different value."""

from __future__ import annotations

import json
import re

import pytest
import yaml

from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError, parse_document
from tests.support.input_cli import SPECS, run


@pytest.mark.parametrize(
    "text, value",
    [
        ("1:20", "1:20"),  # YAML 1.1: 80 (base 60)
        ("0b11", "0b11"),  # YAML 1.1: 3
        ("1_000", "1_000"),  # YAML 1.1: 1000
        ("yes", "yes"),
        ("no", "no"),
        ("on", "on"),
        ("off", "off"),
        ("y", "y"),
        ("n", "n"),  # YAML 1.1: booleans
        ("2026-01-01", "2026-01-01"),  # YAML 1.1: a date
        ("0x10", 16),
        ("0o17", 15),
        ("+5", 5),
        ("-0", 0),
        ("10", 10),
        ("0", 0),
        ("1e3", 1000.0),
        ("3.5", 3.5),
        (".5", 0.5),
        ("true", True),
        ("False", False),
        ("TRUE", True),
        ("null", None),
        ("~", None),
        ("", None),
    ],
)
def test_yaml_1_2_core_schema(text, value):
    assert parse_document(f"a: {text}\n", ".yaml") == {"a": value}


@pytest.mark.parametrize("text", ["010", "0777", "09", "-010", "+007"])
def test_a_leading_zero_is_refused(text):
    with pytest.raises(SpecError, match=re.escape("ambiguous: YAML 1.1 reads it as")):
        parse_document(f"a: {text}\n", ".yaml")


def test_quoted_values_are_text():
    assert parse_document("a: '010'\nb: \"yes\"\n", ".yaml") == {"a": "010", "b": "yes"}


def _spec_with_count(raw: str) -> str:
    data = json.loads((SPECS / "seed004-scale-out.json").read_text())
    data["InstanceGroups"][1]["InstanceCount"] = "__COUNT__"
    return yaml.safe_dump(data, sort_keys=False).replace("__COUNT__", raw)


@pytest.mark.parametrize(
    "raw, words",
    [
        ("010", "the number 010 is ambiguous: YAML 1.1 reads it as the octal number 8, YAML 1.2 as 10"),
        ("1:20", "InstanceGroups[1].InstanceCount: must be a whole number, got str"),
        ("0b11", "InstanceGroups[1].InstanceCount: must be a whole number, got str"),
        ("1_000", "InstanceGroups[1].InstanceCount: must be a whole number, got str"),
        (".inf", "InstanceGroups[1].InstanceCount: must be a whole number, got inf"),
        ("yes", "InstanceGroups[1].InstanceCount: must be a whole number, got str"),
    ],
)
def test_instance_count_in_yaml_1_1_forms(world, tmp_path, raw, words):
    (tmp_path / "spec.yaml").write_text(_spec_with_count(raw))
    result = run("plan", "-f", str(tmp_path / "spec.yaml"))
    assert result.code == 1 and words in result.output, result.output


def test_hex_and_octal_in_yaml_1_2_spelling_mean_what_they_say(tmp_path):
    (tmp_path / "spec.yaml").write_text(_spec_with_count("0x3"))
    assert ClusterSpec.from_file(tmp_path / "spec.yaml").group("leo-stg-compute-ig").instance_count == 3
    (tmp_path / "spec.yaml").write_text(_spec_with_count("0o3"))
    assert ClusterSpec.from_file(tmp_path / "spec.yaml").group("leo-stg-compute-ig").instance_count == 3


@pytest.mark.parametrize(
    "line, words",
    [
        ("allow_replacement: yes", "allow_replacement: input should be a valid boolean; got 'yes'"),
        ("allow_replacement: on", "allow_replacement: input should be a valid boolean; got 'on'"),
        ("max_nodes_per_delete_call: 010", "the number 010 is ambiguous"),
        ("max_nodes_per_delete_call: 1_0", "max_nodes_per_delete_call: input should be a valid integer; got '1_0'"),
        ("max_scale_in_fraction: .nan", "max_scale_in_fraction: must be a finite number"),
        ("max_scale_in_fraction: '0.5'", "max_scale_in_fraction: input should be a valid number; got '0.5'"),
    ],
)
def test_policy_files_read_the_same_way(world, tmp_path, line, words):
    (tmp_path / "policy.yaml").write_text(line + "\n")
    result = run("plan", "-f", str(SPECS / "seed004-initial.json"), "--policy", str(tmp_path / "policy.yaml"))
    assert result.code == 1 and words in result.output and "policy.yaml" in result.output, result.output


def test_yaml_booleans_in_a_policy_that_mean_true(world, tmp_path):
    (tmp_path / "policy.yaml").write_text("allow_replacement: true\nmax_scale_in_fraction: 0.5\n")
    assert run("plan", "-f", str(SPECS / "seed004-initial.json"), "--policy", str(tmp_path / "policy.yaml")).code == 0
