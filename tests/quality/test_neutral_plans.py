"""The Plan model (plans/) is neutral in what it holds, not only in what it imports (docs/DESIGN.md,
"Layers"): no cloud's operation names, no cloud's fields on Plan and Step (a cloud's own section is
its `details`), Policy's neutral members only (each cloud adds its section), no cloud imported even
lazily or for the type checker."""

from __future__ import annotations

import ast
import dataclasses

from tests.support.imports import PACKAGE, imports_of
from tests.support.paths import TESTS

PLANS = PACKAGE / "plans"


def test_the_plan_model_imports_no_cloud_and_no_cloud_section():
    found = sorted(
        f"plans/{path.name} imports {target}"
        for path in PLANS.glob("*.py")
        for target in imports_of(path)
        if target.split(".")[0] in ("aws", "gcp")
    )
    assert found == []


def test_the_plan_model_names_no_hyperpod_operation():
    """HyperPod's operations (what each plan action is made of, each one's step kind) are AWS's data."""
    from pulumi_hyperpod.aws.servicemodel import service_model

    operations = set(service_model().operation_names)
    named = sorted(
        f"plans/{path.name}:{node.lineno} {node.value}"
        for path in PLANS.glob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in operations
    )
    assert named == []


def test_plan_and_step_hold_no_hyperpod_field():
    from pulumi_hyperpod.plans.model import Plan, Step

    assert {"slurm"} & {f.name for f in dataclasses.fields(Plan)} == set()
    assert {"canary"} & {f.name for f in dataclasses.fields(Step)} == set()
    assert "details" in {f.name for f in dataclasses.fields(Plan)} and "details" in {f.name for f in dataclasses.fields(Step)}


GCP_PLAN = """
import json, sys
from pulumi_hyperpod.plans import Plan, plan_text
plan = Plan.from_dict(json.load(open(sys.argv[1])))
plan_text(plan), plan.to_json()
print(json.dumps(sorted(m for m in sys.modules if m == "botocore" or m.startswith(("botocore.", "pulumi_hyperpod.aws")))))
"""


def test_a_google_cloud_plan_is_read_rendered_and_written_without_aws():
    """At run time too: the model reaches a cloud's section only through the reader it is given."""
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-c", GCP_PLAN, str(TESTS / "unit" / "plans" / "data" / "plan-gcp-create.json")],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    assert done.stdout.strip().splitlines()[-1] == "[]"


# ---- the Policy: neutral members, each cloud's own section -----------------------------------------


def _sections() -> dict[str, type]:
    from pulumi_hyperpod.core.policy_members import SECTIONS, section

    return {cloud: section(cloud) for cloud in SECTIONS}


def test_every_policy_member_is_neutral_or_in_exactly_one_clouds_section():
    """One flat surface (keywords, files, dumps, the schema), each member in one place: the Policy's
    neutral members, or the one cloud's section that reads it, declared with the Policy's type."""
    import typing

    from pulumi_hyperpod.plans.policy import NEUTRAL, Policy

    hints = typing.get_type_hints(Policy)
    owners: dict[str, list[str]] = {name: ["neutral"] for name in NEUTRAL}
    for cloud, section in _sections().items():
        section_hints = typing.get_type_hints(section)
        for member in dataclasses.fields(section):
            owners.setdefault(member.name, []).append(cloud)
            assert section_hints[member.name] == hints[member.name], (cloud, member.name)
    assert sorted(owners) == sorted(Policy.model_fields)
    assert {name: where for name, where in owners.items() if len(where) != 1} == {}


def test_every_clouds_section_lives_in_its_own_folder():
    from pulumi_hyperpod.core.cloud import REGISTRY
    from pulumi_hyperpod.core.policy_members import SECTIONS

    assert set(SECTIONS) <= set(REGISTRY)
    for cloud, where in SECTIONS.items():
        assert where.startswith(f"pulumi_hyperpod.{cloud}."), where


def test_a_clouds_section_holds_the_policys_values():
    from pulumi_hyperpod.aws.planner.policy import aws_policy
    from pulumi_hyperpod.plans.policy import Policy

    policy = Policy(drain="cordon", canary_nodes=2, reboot_node_ids=["i-0123456789abcdef0"], max_scale_in_fraction=0.5)
    section = aws_policy(policy)
    assert (section.drain, section.canary_nodes, section.reboot_node_ids) == ("cordon", 2, frozenset({"i-0123456789abcdef0"}))
    assert aws_policy(Policy()).max_nodes_per_delete_call == 99


def _policy_reads(folder: str, members: set[str], *, any_base: bool = False) -> list[str]:
    """Attribute reads of `members` under pulumi_hyperpod/<folder>: off a name ending in `policy`
    (`policy.drain`, `self.policy.drain`, `(policy or Policy()).drain`), or off anything with `any_base`."""
    found = []
    for path in sorted((PACKAGE / folder).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not (isinstance(node, ast.Attribute) and node.attr in members):
                continue
            bases = node.value.values if isinstance(node.value, ast.BoolOp) else [node.value]
            names = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else "" for b in bases]
            if any_base or any(name.endswith("policy") for name in names):
                found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} .{node.attr}")
    return found


def test_google_cloud_reads_no_member_of_another_clouds_section():
    """Google Cloud's planner, preflight and apply honour the neutral members only: reading HyperPod's
    (drain, canary_nodes, ...) would make a GCP plan depend on what GCP never does."""
    others = {m.name for cloud, section in _sections().items() if cloud != "gcp" for m in dataclasses.fields(section)}
    assert _policy_reads("gcp", others, any_base=True) == []


def test_the_check_of_what_a_cloud_reads_sees_every_way_it_reads():
    from pulumi_hyperpod.plans.policy import NEUTRAL

    reads = _policy_reads("gcp", set(NEUTRAL))
    assert {read.rpartition(" .")[2] for read in reads} == set(NEUTRAL)  # quota_warning_margin: `(policy or Policy()).`


def test_hyperpod_reads_its_members_from_its_section():
    """HyperPod's code reads its members through `aws_policy(policy)`, not off the neutral Policy."""
    from pulumi_hyperpod.aws.planner.policy import MEMBERS

    assert _policy_reads("aws", set(MEMBERS)) == []
