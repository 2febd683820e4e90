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
     * Allow shrinking or deleting a Slurm Controller group.
     */
    allowControllerScaleIn?: boolean;
    /**
     * Allow removing Login nodes or the Login group.
     */
    allowLoginScaleIn?: boolean;
    /**
     * Allow a change that deletes and re-creates the cluster.
     */
    allowReplacement?: boolean;
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
     * Instance or logical ids a scale-in must never remove.
     */
    protectedNodeIds?: string[];
    /**
     * Warn when a plan would use more than this share of a service quota.
     */
    quotaWarningMargin?: number;
    /**
     * Instance or logical ids a scale-in names before any other.
     */
    removeFirst?: string[];
    /**
     * Which nodes a scale-in names first: workload, state, oldest or newest (docs/workloads.md).
     */
    scaleInOrder?: string;
}
//# sourceMappingURL=output.d.ts.map