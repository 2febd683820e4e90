"""HyperPod's members of the neutral Policy, checked here against botocore's model (core/policy_members.py
names each check; the Policy calls it when the member is set, so a bad value fails before any call).

- `software_deployment`: the UpdateClusterSoftware DeploymentConfig of the rollouts the plan makes
  (aws/planner/software.py), a DeploymentConfiguration.
"""

from __future__ import annotations

from typing import Any
from pulumi_hyperpod.aws import servicemodel  # the service model loads only when a Policy sets this member


def software_deployment(config: dict[str, Any]) -> dict[str, Any]:
    """Checked against botocore's DeploymentConfiguration shape; every problem in one line."""
    problems = servicemodel.violations("DeploymentConfiguration", config)
    if problems:
        raise ValueError("; ".join(str(p) for p in problems))
    return config
