"""Reason codes are enums (aws/planner/codes.py, gcp/planner/codes.py), one per idea, whose values are
the words plans have always carried: no planner, guard or preflight writes a code as a bare string,
and the plan's JSON and rendering show the word, never the enum."""

from __future__ import annotations

import ast
import json

from pulumi_hyperpod.aws.planner import codes as aws_codes
from pulumi_hyperpod.gcp.planner import codes as gcp_codes
from pulumi_hyperpod.plans import Plan, Refusal, Step, Victim, plan_text
from tests.support.paths import PACKAGE

CLOUDS = [PACKAGE / "aws", PACKAGE / "gcp"]


def _module_strings(tree: ast.Module) -> dict[str, str]:
    """Module-level NAME = "word" constants (a rule named once at the top of a module)."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            found.update({t.id: node.value.value for t in node.targets if isinstance(t, ast.Name)})
    return found


def bare_codes() -> list[str]:
    found = []
    for path in sorted(p for cloud in CLOUDS for p in cloud.rglob("*.py")):
        tree = ast.parse(path.read_text())
        strings = _module_strings(tree)
        where = path.relative_to(PACKAGE)

        def bare(node: ast.AST | None, strings: dict[str, str] = strings) -> bool:
            return (
                (isinstance(node, ast.Constant) and isinstance(node.value, str))
                or isinstance(node, ast.JoinedStr)
                or (isinstance(node, ast.Name) and node.id in strings)
            )

        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "Refusal":
                rule = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "rule"), None)
                if bare(rule):
                    found.append(f"{where}:{node.lineno} Refusal rule {ast.unparse(rule)}")
            if (
                isinstance(node, ast.keyword)
                and node.arg in ("codes", "code")
                and isinstance(node.value, (ast.Tuple, ast.Constant, ast.JoinedStr))
            ):
                for element in node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]:
                    if bare(element):
                        found.append(f"{where}:{node.lineno} {node.arg} {ast.unparse(element)}")
    return found


def test_no_code_is_written_as_a_bare_string():
    assert bare_codes() == []


def test_the_codes_are_the_words_plans_carried():
    """Their values are the wire's: the Rego rules, the CrossGuard pack and users' tools match on them."""
    assert {c.value for c in aws_codes.StepReason} == {
        "absent", "not-desired", "cannot-update-in-place", "grow", "shrink", "scale-in", "canary", "after-canary",
        "tags-differ", "image-differs", "failed-node", "reboot-requested", "replace-requested", "move", "extension-differs", "fleet-move",
    }  # fmt: skip
    assert {c.value for c in aws_codes.VictimReason} == {
        "unhealthy", "never-launched", "health-checks", "newest", "oldest", "remove-first", "drained-already",
        "marked-for-replacement", "idle", "work-ends-soonest", "work-without-end", "workload-unknown", "disruption-budget",
    }  # fmt: skip
    assert {"protected-node", "apply-guard", "slurm-change", "service-quota", "max-hourly-cost-increase"} <= {
        c.value for c in aws_codes.RefusalRule
    }
    assert {"protected_nodes", "apply-guard", "max_scale_in_fraction", "gcp-quota"} <= {c.value for c in gcp_codes.RefusalRule}
    assert gcp_codes.StepReason.changed("node_pools") == "changed:node_pools"


def test_a_code_is_its_word_in_the_json_and_the_rendering():
    step = Step(
        "BatchDeleteClusterNodes",
        {"ClusterName": "c", "NodeIds": ["i-0123456789abcdef0"]},
        ("shrink",),
        (Victim("g", "i-0123456789abcdef0", False, "Running", "the newest", aws_codes.VictimReason.NEWEST),),
        kind="remove-nodes",
        codes=(aws_codes.StepReason.SHRINK,),
    )
    refused = Plan(cluster_name="c", action="update", steps=(step,)).refuse(Refusal(aws_codes.RefusalRule.PROTECTED_NODE, "no"))
    text = Plan(cluster_name="c", action="update", steps=(step,)).to_json() + refused.to_json() + plan_text(refused)
    assert "Reason" not in text and "RefusalRule" not in text
    assert '"newest"' in text and '"shrink"' in text and "REFUSED [protected-node]" in text
    assert json.loads(refused.to_json())["refusals"][0]["rule"] == "protected-node"
