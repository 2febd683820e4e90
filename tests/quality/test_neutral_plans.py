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
