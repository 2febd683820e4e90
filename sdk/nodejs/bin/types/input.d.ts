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
}
//# sourceMappingURL=input.d.ts.map