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
     * Allow shrinking or deleting a Slurm Controller group (its nodes are still never named).
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
     * A group lowered while another of the same instance type is raised (EKS, Continuous): move the nodes with MoveClusterNodes instead of deleting and adding them (False: delete and add).
     */
    allowNodeMoves?: boolean;
    /**
     * Allow a plan that deletes and re-creates the cluster for a change the service cannot make in place.
     */
    allowReplacement?: boolean;
    /**
     * Canary scale-out: a group growing by more than this adds this many nodes first, waits until their lifecycle scripts and deep health checks pass, then adds the rest; a canary failure stops the apply.
     */
    canaryNodes?: number;
    /**
     * Before deleting nodes: none; cordon (no new work lands; Slurm DRAIN, Kubernetes cordon), then delete; drain (cordon, evict pods through the Eviction API, wait for the work to end), then delete.
     */
    drain?: string;
    /**
     * At drain_timeout: stop (exit 1, the nodes left drained and named) or delete them anyway.
     */
    drainDeadline?: string;
    /**
     * Seconds a drain waits for the work to end.
     */
    drainTimeout?: number;
    /**
     * Nodes in Failure: removed first on scale-in (delete), replaced with BatchReplaceClusterNodes (replace), or left where they are and named (leave).
     */
    failedNodes?: string;
    /**
     * Refuse a plan that raises the cluster's hourly cost by more than this (USD).
     */
    maxHourlyCostIncrease?: number;
    /**
     * Nodes named in one BatchDeleteClusterNodes call (the API reference allows 99).
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
     * Nodes (instance or logical ids) this plan reboots with BatchRebootClusterNodes (--reboot).
     */
    rebootNodeIds?: string[];
    /**
     * Instance or logical ids a scale-in names before any other (Cluster API's delete-machine annotation); never a protected one.
     */
    removeFirst?: string[];
    /**
     * Nodes (instance or logical ids) this plan replaces with BatchReplaceClusterNodes (--replace).
     */
    replaceNodeIds?: string[];
    /**
     * Which removable nodes a scale-in names first: workload (idle, then the work that ends soonest; by state where no workload was read), state (unhealthy, never launched, newest), oldest, newest.
     */
    scaleInOrder?: string;
    /**
     * UpdateClusterSoftware DeploymentConfig for rollouts the plan makes (the model's DeploymentConfiguration: RollingUpdatePolicy, WaitIntervalInSeconds, AutoRollbackConfiguration); default: the group's ScheduledUpdateConfig.DeploymentConfig.
     */
    softwareDeployment?: {
        [key: string]: any;
    };
}
//# sourceMappingURL=output.d.ts.map