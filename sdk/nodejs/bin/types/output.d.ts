/**
 * An instance group as DescribeCluster reports it.
 */
export interface GroupStatus {
    currentCount: number;
    instanceTypes: string[];
    minCount: number;
    nodeType: string;
    status: string;
    targetCount: number;
}
/**
 * Where a cluster lives.
 */
export interface Location {
    backend: string;
    profile?: string;
    region: string;
}
/**
 * What a plan may do to a running cluster.
 */
export interface Policy {
    /**
     * Allow a software rollout to take a Slurm Controller down (Slurm schedules nothing until it is back).
     */
    allowControllerDisruption?: boolean;
    /**
     * Allow shrinking or deleting a Slurm Controller group.
     */
    allowControllerScaleIn?: boolean;
    /**
     * Allow a rollout, reboot or replacement to take Slurm Login nodes down.
     */
    allowLoginDisruption?: boolean;
    /**
     * Allow removing Login nodes or the Login group.
     */
    allowLoginScaleIn?: boolean;
    /**
     * Allow a change that deletes and re-creates the cluster.
     */
    allowReplacement?: boolean;
    /**
     * Canary scale-out: a group growing by more than this adds this many nodes first, then the rest once they pass.
     */
    canaryNodes?: number;
    /**
     * Before deleting nodes: none, cordon or drain (docs/workloads.md).
     */
    drain?: string;
    /**
     * At drainTimeout: stop (the nodes left drained and named) or delete them anyway.
     */
    drainDeadline?: string;
    /**
     * Seconds a drain waits for the work on its nodes to end.
     */
    drainTimeout?: number;
    /**
     * Nodes in Failure: delete (scale-in victims first, the default), replace, or leave.
     */
    failedNodes?: string;
    /**
     * Refuse a plan that raises the hourly cost by more than this (USD).
     */
    maxHourlyCostIncrease?: number;
    /**
     * Nodes named in one BatchDeleteClusterNodes call (at most 99).
     */
    maxNodesPerDeleteCall?: number;
    /**
     * Largest share of a group's nodes one plan may remove (1.0 = no limit).
     */
    maxScaleInFraction?: number;
    /**
     * Largest share of a group's nodes a rollout, reboot or replacement may take down at once (1.0 = no limit).
     */
    maxUnavailableFraction?: number;
    /**
     * Instance or logical ids a scale-in must never remove.
     */
    protectedNodeIds?: string[];
    /**
     * Warn when a plan would use more than this share of a service quota.
     */
    quotaWarningMargin?: number;
    /**
     * Nodes to reboot with BatchRebootClusterNodes; acts once per new id (like triggers).
     */
    rebootNodeIds?: string[];
    /**
     * Instance or logical ids a scale-in names before any other.
     */
    removeFirst?: string[];
    /**
     * Nodes to replace with BatchReplaceClusterNodes; acts once per new id (like triggers).
     */
    replaceNodeIds?: string[];
    /**
     * Which nodes a scale-in names first: workload, state, oldest or newest (docs/workloads.md).
     */
    scaleInOrder?: string;
    /**
     * UpdateClusterSoftware DeploymentConfig for rollouts the plan makes (the AWS form: RollingUpdatePolicy, WaitIntervalInSeconds, AutoRollbackConfiguration). Default: the group's ScheduledUpdateConfig.DeploymentConfig.
     */
    softwareDeployment?: {
        [key: string]: any;
    };
}
//# sourceMappingURL=output.d.ts.map