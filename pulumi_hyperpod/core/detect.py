"""Which cloud a spec document is for, from its shape alone (no I/O)."""

from __future__ import annotations

from typing import Any, Literal

_GCP_KEYS = frozenset({"node_pools", "nodePools", "orchestrator_spec", "orchestratorSpec"})
_HYPERPOD_KEYS = frozenset({"ClusterName", "InstanceGroups", "cluster_name", "instance_groups"})
# HyperPod task governance: CreateComputeQuota's and CreateClusterSchedulerConfig's inputs (docs/capacity.md)
_GOVERNANCE_KEYS = {
    "ComputeQuota": frozenset({"ComputeQuotaConfig", "ComputeQuotaTarget"}),
    "ClusterSchedulerConfig": frozenset({"SchedulerConfig"}),
}


def detect_cloud(document: Any) -> Literal["hyperpod", "gcp"]:
    """ "gcp" for a modelDevelopmentClusters body (node_pools / orchestrator_spec, or a
    projects/…/modelDevelopmentClusters/… name), else "hyperpod" (whose loader gives the errors)."""
    if not isinstance(document, dict):
        return "hyperpod"
    if document.keys() & _HYPERPOD_KEYS:
        return "hyperpod"
    name = document.get("name")
    if document.keys() & _GCP_KEYS or (isinstance(name, str) and "/modelDevelopmentClusters/" in name):
        return "gcp"
    return "hyperpod"


def governance_resource(document: Any) -> Literal["ComputeQuota", "ClusterSchedulerConfig"] | None:
    """The task governance resource a document declares (a compute quota: ComputeQuotaConfig or
    ComputeQuotaTarget; a scheduler configuration: SchedulerConfig), or None for a cluster spec."""
    if not isinstance(document, dict) or document.keys() & _HYPERPOD_KEYS:
        return None
    if document.keys() & _GOVERNANCE_KEYS["ComputeQuota"]:
        return "ComputeQuota"
    if document.keys() & _GOVERNANCE_KEYS["ClusterSchedulerConfig"]:
        return "ClusterSchedulerConfig"
    return None
