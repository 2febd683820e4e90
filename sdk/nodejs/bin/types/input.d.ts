import * as pulumi from "@pulumi/pulumi";
/**
 * What a plan may do to a running cluster.
 */
export interface PolicyArgs {
    /**
     * Allow shrinking or deleting a Slurm Controller group.
     */
    allowControllerScaleIn?: pulumi.Input<boolean | undefined>;
    /**
     * Allow removing Login nodes or the Login group.
     */
    allowLoginScaleIn?: pulumi.Input<boolean | undefined>;
    /**
     * Allow a change that deletes and re-creates the cluster.
     */
    allowReplacement?: pulumi.Input<boolean | undefined>;
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
     * Instance or logical ids a scale-in must never remove.
     */
    protectedNodeIds?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Warn when a plan would use more than this share of a service quota.
     */
    quotaWarningMargin?: pulumi.Input<number | undefined>;
    /**
     * Instance or logical ids a scale-in names before any other.
     */
    removeFirst?: pulumi.Input<pulumi.Input<string>[] | undefined>;
    /**
     * Which nodes a scale-in names first: workload, state, oldest or newest (docs/workloads.md).
     */
    scaleInOrder?: pulumi.Input<string | undefined>;
}
//# sourceMappingURL=input.d.ts.map