import * as pulumi from "@pulumi/pulumi";
import * as outputs from "./types/output";
/**
 * A HyperPod cluster's task governance policy (CreateClusterSchedulerConfig): its priority classes and fair share, planned and applied by pulumi-hyperpod.
 */
export declare class ClusterSchedulerConfig extends pulumi.CustomResource {
    /**
     * Get an existing ClusterSchedulerConfig resource's state with the given name, ID, and optional extra
     * properties used to qualify the lookup.
     *
     * @param name The _unique_ name of the resulting resource.
     * @param id The _unique_ provider ID of the resource to lookup.
     * @param opts Optional settings to control the behavior of the CustomResource.
     */
    static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): ClusterSchedulerConfig;
    /**
     * Check whether an existing ClusterSchedulerConfig resource with the given ID exists.
     *
     * @param id The _unique_ provider ID of the resource to check.
     * @param opts Optional settings to control the behavior of the CustomResource.
     */
    static exists(id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): pulumi.Output<boolean>;
    /**
     * Returns true if the given object is an instance of ClusterSchedulerConfig.  This is designed to work even
     * when multiple copies of the Pulumi SDK have been loaded into the same process.
     */
    static isInstance(obj: any): obj is ClusterSchedulerConfig;
    /**
     * The resource's ARN (ComputeQuotaArn, ClusterSchedulerConfigArn).
     */
    readonly arn: pulumi.Output<string>;
    /**
     * The backend given.
     */
    readonly backend: pulumi.Output<string | undefined>;
    /**
     * The cluster's ARN (the spec may name the cluster by its name).
     */
    readonly clusterArn: pulumi.Output<string>;
    /**
     * Where the resource lives.
     */
    readonly location: pulumi.Output<outputs.Location>;
    /**
     * The profile given.
     */
    readonly profile: pulumi.Output<string | undefined>;
    /**
     * The region given.
     */
    readonly region: pulumi.Output<string | undefined>;
    /**
     * The resource's id (ComputeQuotaId, ClusterSchedulerConfigId).
     */
    readonly resourceId: pulumi.Output<string>;
    /**
     * The spec, as checked.
     */
    readonly spec: pulumi.Output<any>;
    /**
     * The spec file, when one was given.
     */
    readonly specFile: pulumi.Output<string | undefined>;
    /**
     * SchedulerResourceStatus: Created, Updated, …
     */
    readonly status: pulumi.Output<string>;
    /**
     * The timeout in seconds.
     */
    readonly timeout: pulumi.Output<number | undefined>;
    /**
     * The version the service reports; each update makes it one higher.
     */
    readonly version: pulumi.Output<number>;
    /**
     * What create and update waited for.
     */
    readonly wait: pulumi.Output<string | undefined>;
    /**
     * Create a ClusterSchedulerConfig resource with the given unique name, arguments, and options.
     *
     * @param name The _unique_ name of the resource.
     * @param args The arguments to use to populate this resource's properties.
     * @param opts A bag of options that control this resource's behavior.
     */
    constructor(name: string, args?: ClusterSchedulerConfigArgs, opts?: pulumi.CustomResourceOptions);
}
/**
 * The set of arguments for constructing a ClusterSchedulerConfig resource.
 */
export interface ClusterSchedulerConfigArgs {
    /**
     * "aws" (default) or "fake", the simulator. Default: the provider config hyperpod:backend.
     */
    backend?: pulumi.Input<string | undefined>;
    /**
     * The AWS profile (a name). Default: the provider config hyperpod:profile.
     */
    profile?: pulumi.Input<string | undefined>;
    /**
     * The AWS region. Default: the provider config hyperpod:region, then AWS_REGION.
     */
    region?: pulumi.Input<string | undefined>;
    /**
     * The resource as create's --cli-input-json document (CreateComputeQuota's or CreateClusterSchedulerConfig's request); ClusterArn may be the cluster's name.
     */
    spec?: any | undefined;
    /**
     * A JSON or YAML file holding that document (relative to the project directory), read at every check; `spec` is merged over it.
     */
    specFile?: pulumi.Input<string | undefined>;
    /**
     * Seconds a create, update or delete may wait (default 1200).
     */
    timeout?: pulumi.Input<number | undefined>;
    /**
     * "none" (return once the call is accepted) or "InService" (default: until the resource is Created or Updated, or gone).
     */
    wait?: pulumi.Input<string | undefined>;
}
//# sourceMappingURL=clusterSchedulerConfig.d.ts.map