"""Issue 12, item 5: a bad policy file is one line naming the policy file and the field, exit 1 —
not "problem in the cluster spec", not a pydantic dump with a URL, not exit 2."""

from __future__ import annotations

import pytest

from tests.support.input_cli import SPECS, run

SPEC = str(SPECS / "seed004-initial.json")


@pytest.mark.parametrize(
    "name, content, line",
    [
        (
            "unknown.yaml",
            "max_scale_in_fractoin: 0.5\n",
            "unknown.yaml: max_scale_in_fractoin: is not a known field (allowed: protected_node_ids",
        ),
        ("range.yaml", "max_scale_in_fraction: 2\n", "range.yaml: max_scale_in_fraction: input should be less than or equal to 1; got 2"),
        (
            "negative.json",
            '{"max_hourly_cost_increase": -1}',
            "negative.json: max_hourly_cost_increase: input should be greater than or equal to 0; got -1",
        ),
        (
            "type.yaml",
            "max_nodes_per_delete_call: many\n",
            "type.yaml: max_nodes_per_delete_call: input should be a valid integer; got 'many'",
        ),
        ("ids.yaml", "protected_node_ids: i-123\n", "ids.yaml: protected_node_ids: input should be a valid array"),
        (
            "ids-items.yaml",
            "protected_node_ids: [i-1, 2]\n",
            "ids-items.yaml: protected_node_ids[1]: input should be a valid string; got 2",
        ),
        ("syntax.yaml", "max_scale_in_fraction: [0.5\n", "syntax.yaml: not valid YAML or JSON at line 2"),
        ("syntax.json", '{"max_scale_in_fraction": }', "syntax.json: not valid JSON"),
        ("list.yaml", "- a\n- b\n", "list.yaml: a policy file is an object with the keys protected_node_ids"),
        ("empty.yaml", "", "empty.yaml: the file is empty"),
        ("twice.yaml", "allow_replacement: true\nallow_replacement: false\n", "appears twice"),
        ("policy.txt", "allow_replacement: true\n", "policy.txt: a policy file is JSON or YAML"),
    ],
)
def test_one_line_naming_the_file_and_the_field(world, tmp_path, name, content, line):
    (tmp_path / name).write_text(content)
    result = run("plan", "-f", SPEC, "--policy", str(tmp_path / name))
    assert result.code == 1, result.output
    assert line in result.output, result.output
    assert len(result.lines()) == 1, result.output
    assert "cluster spec" not in result.output and "pydantic" not in result.output and "http" not in result.output


def test_apply_reports_it_the_same_way(world, tmp_path):
    (tmp_path / "policy.yaml").write_text("max_scale_in_fraction: 2\n")
    result = run("apply", "-f", SPEC, "--yes", "--policy", str(tmp_path / "policy.yaml"))
    assert result.code == 1 and "policy.yaml: max_scale_in_fraction: input should be less than or equal to 1" in result.output


def test_several_problems_one_line_each(world, tmp_path):
    (tmp_path / "policy.yaml").write_text("max_scale_in_fraction: 2\nbogus: 1\n")
    result = run("plan", "-f", SPEC, "--policy", str(tmp_path / "policy.yaml"))
    assert result.code == 1 and len(result.lines()) == 2
    assert all(line.startswith(f"error: {tmp_path / 'policy.yaml'}: ") for line in result.lines())


def test_protect_merges_with_the_file(world, tmp_path):
    from pulumi_hyperpod.cli.common import load_policy

    one, two = "i-0123456789abcdef0", "4f1c2d3e-aaaa-bbbb-cccc-0123456789ab"  # an instance id, a logical id
    (tmp_path / "policy.yaml").write_text(f"protected_node_ids: [{one}]\n")
    assert load_policy(str(tmp_path / "policy.yaml"), (two,)).protected_node_ids == {one, two}
    assert load_policy(None, (two,)).protected_node_ids == {two}


def test_a_mistyped_protected_id_is_refused_not_ignored(world):
    """A protected id one digit short would protect nothing, and the node it meant to keep could go."""
    result = run("plan", "-f", str(SPECS / "seed004-initial.json"), "--protect", "i-08557716aa7502a8")
    assert result.code == 1
    assert result.output.strip().splitlines() == [
        "error: --protect: protected_node_ids: 'i-08557716aa7502a8' is not an instance id (i- and 8 or 17 lower-case hex digits)"
    ]


def test_spec_errors_are_one_line_each_too(world, tmp_path):
    (tmp_path / "spec.yaml").write_text("ClusterName: 'bad name'\nInstanceGroups: []\n")
    result = run("plan", "-f", str(tmp_path / "spec.yaml"))
    assert result.code == 1
    assert result.lines() == [
        f"error: {tmp_path / 'spec.yaml'}: ClusterName: 'bad name' does not match the pattern [a-zA-Z0-9](-*[a-zA-Z0-9])*",
        f"error: {tmp_path / 'spec.yaml'}: InstanceGroups: must have at least 1 items; has 0",
    ]
