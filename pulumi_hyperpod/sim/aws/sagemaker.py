"""The simulated `sagemaker` service: operation name → implementation, for the wire layer.

The only module that knows every operation module; they import only layers below them
(`mutations`, `provisioning`, `reconcile`, `world`), never each other.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_hyperpod.sim.aws import (
    cluster_operations,
    extensions,
    governance,
    image_status,
    moves,
    node_operations as nodes,
    repair,
    software,
    tagging,
    training_plans,
)
from pulumi_hyperpod.sim.aws import operations as clusters
from pulumi_hyperpod.sim.aws.world import World

OPERATIONS: dict[str, Callable[[World, str, dict], dict]] = {
    "CreateCluster": clusters.create_cluster,
    "DescribeCluster": training_plans.with_plan_status(image_status.describe_cluster(clusters.describe_cluster)),
    "ListClusters": clusters.list_clusters,
    "UpdateCluster": cluster_operations.recording_scaling(clusters.update_cluster),
    "DeleteCluster": clusters.delete_cluster,
    "ListClusterNodes": image_status.list_cluster_nodes(nodes.list_cluster_nodes),
    "DescribeClusterNode": image_status.describe_cluster_node(nodes.describe_cluster_node),
    "BatchAddClusterNodes": cluster_operations.recording_scaling(nodes.batch_add_cluster_nodes),
    "BatchDeleteClusterNodes": cluster_operations.recording_scaling(nodes.batch_delete_cluster_nodes),
    "ListClusterEvents": nodes.list_cluster_events,
    "DescribeClusterEvent": nodes.describe_cluster_event,
    "UpdateClusterSoftware": software.update_cluster_software,
    "MoveClusterNodes": moves.move_cluster_nodes,
    **tagging.OPERATIONS,  # AddTags, ListTags, DeleteTags on clusters
    "BatchRebootClusterNodes": repair.batch_reboot_cluster_nodes,
    "BatchReplaceClusterNodes": repair.batch_replace_cluster_nodes,
    "StartClusterHealthCheck": cluster_operations.start_cluster_health_check,
    "ListClusterOperations": cluster_operations.list_cluster_operations,
    "DescribeClusterOperation": cluster_operations.describe_cluster_operation,
    "DescribeTrainingPlan": training_plans.describe_training_plan,
    "ListTrainingPlans": training_plans.list_training_plans,
    "SearchTrainingPlanOfferings": training_plans.search_training_plan_offerings,
    **extensions.OPERATIONS,  # Create/Describe/Update/Delete/ListClusterExtensions, ListClusterExtensionVersions
    **governance.OPERATIONS,  # Create/Describe/Update/Delete/List ComputeQuota(s) and ClusterSchedulerConfig(s)
}
