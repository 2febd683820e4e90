"""Which HyperPod node an orchestrator's node is: the instance id behind a Slurm or Kubernetes name.

- Slurm: HyperPod registers each node under its EC2 private DNS host name (`ip-10-1-17-2`), the first
  label of ListClusterNodes' `PrivateDnsHostname` (`ip-10-1-17-2.us-west-2.compute.internal`); the
  ai-on-sagemaker-hyperpod guide maps `ip-…` names to instance ids through list-cluster-nodes the same way.
- EKS: HyperPod registers each instance as the Kubernetes node `hyperpod-<instance id>`
  (`hyperpod-i-048cd15160ee28917`), labelled `sagemaker.amazonaws.com/cluster-name` and carrying
  HyperPod's health label `sagemaker.amazonaws.com/node-health-status` (Schedulable,
  UnschedulablePendingReplacement, UnschedulablePendingReboot, Unschedulable). Sources:
  opentelemetry-collector-contrib `receiver/awsekshyperpodreceiver` (instance_id is the node name less
  its `hyperpod-` prefix), the sagemaker-hyperpod-cli constants (the two labels), and the SageMaker
  developer guide page `sagemaker-hyperpod-eks-resiliency-node-labels`.
"""

from __future__ import annotations

import re
from pulumi_hyperpod.aws.observe import ClusterState

EKS_NODE_PREFIX = "hyperpod-"
CLUSTER_LABEL = "sagemaker.amazonaws.com/cluster-name"
HEALTH_LABEL = "sagemaker.amazonaws.com/node-health-status"
_INSTANCE_ID = re.compile(r"i-[a-f0-9]{8}(?:[a-f0-9]{9})?")


def slurm_names(state: ClusterState) -> dict[str, str]:
    """Slurm node name (the private DNS host name's first label) → instance id, for launched nodes."""
    names: dict[str, str] = {}
    for summary in state.node_summaries:
        host, instance = summary.get("PrivateDnsHostname") or "", summary.get("InstanceId") or ""
        if host and instance:
            names[host.split(".", 1)[0]] = instance
    return names


def eks_instance_id(node_name: str) -> str | None:
    """The instance id of a HyperPod Kubernetes node (None: not a HyperPod node)."""
    if node_name.startswith(EKS_NODE_PREFIX):
        candidate = node_name[len(EKS_NODE_PREFIX) :]
        if _INSTANCE_ID.fullmatch(candidate):
            return candidate
    return None


def eks_node_name(instance_id: str) -> str:
    return f"{EKS_NODE_PREFIX}{instance_id}"
