"""hyperpod-plan: a CrossGuard policy pack over the plans of `hyperpod:index:Cluster` resources.

The native provider returns, in a preview, the plan the update would run as the resource's `plan`
output (JSON, `hyperpod plan --json`'s form). Stack policies see every resource's outputs as the
preview left them, so each policy here reads that plan and asks the Rego rules of policies/rego
(through the real opa: plan_rules.py) about it. A resource the preview does not change has no
`plan` output and nothing to check. Parameters: policies/params.json, overridden per policy by the
pack's config (`pulumi preview --policy-pack DIR --policy-pack-config FILE`). See policies/README.md.
"""

from __future__ import annotations

import json
from typing import Any

from pulumi_policy import EnforcementLevel, PolicyConfigSchema, PolicyPack, StackValidationPolicy

import plan_rules

CLUSTER_TYPE = "hyperpod:index:Cluster"

# (policy name, description, the Rego violation codes it reports, its config: the Rego parameters it sets)
RULES: list[tuple[str, str, frozenset[str], dict[str, dict[str, Any]]]] = [
    (
        "hyperpod-scale-in-share",
        "No group loses more than a share of its nodes in one plan.",
        frozenset({"scale-in-share"}),
        {"max_scale_in_fraction": {"type": "number", "minimum": 0, "maximum": 1}},
    ),
    ("hyperpod-no-replacement", "No plan deletes and re-creates a cluster.", frozenset({"replacement"}), {}),
    (
        "hyperpod-cost-ceiling",
        "No plan raises a cluster's hourly cost above a ceiling, or adds capacity at an unknown price.",
        frozenset({"cost-increase", "cost-unknown"}),
        {"max_hourly_cost_increase": {"type": ["number", "null"], "minimum": 0}},
    ),
    (
        "hyperpod-protected-nodes",
        "No plan takes a protected node down: removes, replaces, reboots, rolls or drains it, or lets the service choose to remove it.",
        frozenset({"protected-node"}),
        {"protected_node_ids": {"type": "array", "items": {"type": "string"}}},
    ),
    ("hyperpod-tool-refusal", "No plan the tool's own guards refused.", frozenset({"tool-refusal"}), {}),
    (
        "hyperpod-plan-known",
        "A cluster that changes has a plan, judged with valid parameters: neither an unknown plan "
        "nor a mistaken parameter is taken as compliant.",
        frozenset({"not-a-plan", "bad-parameter"}),
        {},
    ),
]


def plan_of(resource: Any) -> str | None:
    """The plan JSON a preview returned for a cluster resource (None: the preview does not change it)."""
    value = resource.props.get("plan")
    value = getattr(value, "value", value)  # a secret output may come wrapped
    return value if isinstance(value, str) and value else None


def make_validate(codes: frozenset[str], keys: tuple[str, ...]):
    def validate(args, report_violation) -> None:
        config = args.get_config() or {}
        params = {**plan_rules.default_params(), **{k: config[k] for k in keys if k in config}}
        for resource in args.resources:
            if resource.resource_type != CLUSTER_TYPE:
                continue
            text = plan_of(resource)
            if text is None:
                continue
            name = _cluster_name(text) or resource.name
            for violation in plan_rules.violations(text, params):
                if violation["code"] in codes:
                    report_violation(f"cluster {name}: {violation['message']} [{violation['code']}]", resource.urn)

    return validate


def _cluster_name(text: str) -> str | None:
    try:
        return json.loads(text).get("cluster_name")
    except ValueError:
        return None


PolicyPack(
    name="hyperpod-plan",
    enforcement_level=EnforcementLevel.MANDATORY,
    policies=[
        StackValidationPolicy(
            name=name,
            description=description,
            validate=make_validate(codes, tuple(config)),
            config_schema=PolicyConfigSchema(properties=config) if config else None,
        )
        for name, description, codes, config in RULES
    ],
)
