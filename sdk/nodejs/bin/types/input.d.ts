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
     * Allow shrinking or deleting a Slurm Controller group.
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
     * Allow a change that deletes and re-creates the cluster.
     */
    allowReplacement?: pulumi.Input<boolean | undefined>;
    /**
     * Canary scale-out: a group growing by more than this adds this many nodes first, then the rest once they pass.
     */
    canaryNodes?: pulumi.Input<number | undefined>;
    /**
     * Before deleting nodes: none, cordon or drain (docs/workloads.md).
     */
    drain?: pulumi.Input<string | undefined>;
    /**
     * At drainTimeout: stop (the nodes left drained and named) or delete them anyway.
     */
    drainDeadline?: pulumi.Input<string | undefined>;
    /**
     * Seconds a drain waits for the work on its nodes to end.
     */
    drainTimeout?: pulumi.Input<number | undefined>;
    /**
     * Nodes in Failure: delete (scale-in victims first, the default), replace, or leave.
     */
    failedNodes?: pulumi.Input<string | undefined>;
    /**
     * Refuse a plan that raises the hourly cost by more than this (USD).
     */
    maxHourlyCostIncrease?: pulumi.Input<number | undefined>;
    /**
     * Nodes named in one BatchDeleteClusterNodes call (at most 99).
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
     * Nodes to reboot with BatchRebootClusterNodes; acts once per new id (like triggers).
     */
    rebootNodeIds?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Instance or logical ids a scale-in names before any other.
     */
    removeFirst?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Nodes to replace with BatchReplaceClusterNodes; acts once per new id (like triggers).
     */
    replaceNodeIds?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Which nodes a scale-in names first: workload, state, oldest or newest (docs/workloads.md).
     */
    scaleInOrder?: pulumi.Input<string | undefined>;
    /**
     * UpdateClusterSoftware DeploymentConfig for rollouts the plan makes (the AWS form: RollingUpdatePolicy, WaitIntervalInSeconds, AutoRollbackConfiguration). Default: the group's ScheduledUpdateConfig.DeploymentConfig.
     */
    softwareDeployment?: pulumi.Input<{
        [key: string]: any;
    } | undefined>;
}
//# sourceMappingURL=input.d.ts.map