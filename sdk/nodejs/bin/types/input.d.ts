import * as pulumi from "@pulumi/pulumi";
/**
 * What a plan may do to a running cluster.
 */
export interface PolicyArgs {
    /**
     * Allow a software rollout to take a Slurm Controller down (Slurm schedules nothing until it is back).
     */
    allowControllerDisruption?: pulumi.Input<boolean | undefined>;
    /**
     * Allow shrinking or deleting a Slurm Controller group (its nodes are still never named).
     */
    allowControllerScaleIn?: pulumi.Input<boolean | undefined>;
    /**
     * Allow a rollout, reboot or replacement to take Slurm Login nodes down.
     */
    allowLoginDisruption?: pulumi.Input<boolean | undefined>;
    /**
     * Allow removing Login nodes or the Login group.
     */
    allowLoginScaleIn?: pulumi.Input<boolean | undefined>;
    /**
     * A group lowered while another of the same instance type is raised (EKS, Continuous): move the nodes with MoveClusterNodes instead of deleting and adding them (False: delete and add).
     */
    allowNodeMoves?: pulumi.Input<boolean | undefined>;
    /**
     * Allow a plan that deletes and re-creates the cluster for a change the service cannot make in place.
     */
    allowReplacement?: pulumi.Input<boolean | undefined>;
    /**
     * Canary scale-out: a group growing by more than this adds this many nodes first, waits until their lifecycle scripts and deep health checks pass, then adds the rest; a canary failure stops the apply.
     */
    canaryNodes?: pulumi.Input<number | undefined>;
    /**
     * Before deleting nodes: none; cordon (no new work lands; Slurm DRAIN, Kubernetes cordon), then delete; drain (cordon, evict pods through the Eviction API, wait for the work to end), then delete.
     */
    drain?: pulumi.Input<string | undefined>;
    /**
     * At drain_timeout: stop (exit 1, the nodes left drained and named) or delete them anyway.
     */
    drainDeadline?: pulumi.Input<string | undefined>;
    /**
     * Seconds a drain waits for the work to end.
     */
    drainTimeout?: pulumi.Input<number | undefined>;
    /**
     * Nodes in Failure: removed first on scale-in (delete), replaced with BatchReplaceClusterNodes (replace), or left where they are and named (leave).
     */
    failedNodes?: pulumi.Input<string | undefined>;
    /**
     * Refuse a plan that raises the cluster's hourly cost by more than this (USD).
     */
    maxHourlyCostIncrease?: pulumi.Input<number | undefined>;
    /**
     * Nodes named in one BatchDeleteClusterNodes call (the API reference allows 99).
     */
    maxNodesPerDeleteCall?: pulumi.Input<number | undefined>;
    /**
     * Largest share of a group's nodes one plan may remove (1.0 = no limit).
     */
    maxScaleInFraction?: pulumi.Input<number | undefined>;
    /**
     * Largest share of a group's nodes a rollout, reboot or replacement may take down at once (1.0 = no limit).
     */
    maxUnavailableFraction?: pulumi.Input<number | undefined>;
    /**
     * Instance or logical ids a scale-in must never remove.
     */
    protectedNodeIds?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Warn when a plan would use more than this share of a service quota.
     */
    quotaWarningMargin?: pulumi.Input<number | undefined>;
    /**
     * Nodes (instance or logical ids) this plan reboots with BatchRebootClusterNodes (--reboot).
     */
    rebootNodeIds?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Instance or logical ids a scale-in names before any other (Cluster API's delete-machine annotation); never a protected one.
     */
    removeFirst?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Nodes (instance or logical ids) this plan replaces with BatchReplaceClusterNodes (--replace).
     */
    replaceNodeIds?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Which removable nodes a scale-in names first: workload (idle, then the work that ends soonest; by state where no workload was read), state (unhealthy, never launched, newest), oldest, newest.
     */
    scaleInOrder?: pulumi.Input<string | undefined>;
    /**
     * UpdateClusterSoftware DeploymentConfig for rollouts the plan makes (the model's DeploymentConfiguration: RollingUpdatePolicy, WaitIntervalInSeconds, AutoRollbackConfiguration); default: the group's ScheduledUpdateConfig.DeploymentConfig.
     */
    softwareDeployment?: pulumi.Input<{
        [key: string]: any;
    } | undefined>;
}
//# sourceMappingURL=input.d.ts.map