import * as pulumi from "@pulumi/pulumi";
import * as inputs from "./types/input";
import * as outputs from "./types/output";
/**
 * A Google Cloud training cluster (modelDevelopmentClusters), planned and applied by pulumi-hyperpod through the same pipeline as Cluster: the preview prints the plan with its cost and preflight (machine types offered in the zone, reservations, regional quotas). Import: `pulumi import hyperpod:index:GcpTrainingCluster NAME projects/P/locations/L/modelDevelopmentClusters/ID`.
 */
export declare class GcpTrainingCluster extends pulumi.CustomResource {
    /**
     * Get an existing GcpTrainingCluster resource's state with the given name, ID, and optional extra
     * properties used to qualify the lookup.
     *
     * @param name The _unique_ name of the resulting resource.
     * @param id The _unique_ provider ID of the resource to lookup.
     * @param opts Optional settings to control the behavior of the CustomResource.
     */
    static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): GcpTrainingCluster;
    /**
     * Check whether an existing GcpTrainingCluster resource with the given ID exists.
     *
     * @param id The _unique_ provider ID of the resource to check.
     * @param opts Optional settings to control the behavior of the CustomResource.
     */
    static exists(id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): pulumi.Output<boolean>;
    /**
     * Returns true if the given object is an instance of GcpTrainingCluster.  This is designed to work even
     * when multiple copies of the Pulumi SDK have been loaded into the same process.
     */
    static isInstance(obj: any): obj is GcpTrainingCluster;
    /**
     * Where the cluster lives: gcp or fake.
     */
    readonly backend: pulumi.Output<string>;
    /**
     * The cluster's full resource name.
     */
    readonly name: pulumi.Output<string>;
    /**
     * The cluster's nodes.
     */
    readonly nodeCount: pulumi.Output<number>;
    /**
     * The policy the plans were made with.
     */
    readonly policy: pulumi.Output<outputs.Policy | undefined>;
    /**
     * Each node pool: machine_type, target, min_node_count, provisioning_model, nodes by state.
     */
    readonly pools: pulumi.Output<any>;
    /**
     * The cluster's spec, as checked.
     */
    readonly spec: pulumi.Output<any>;
    /**
     * The spec file, when one was given.
     */
    readonly specFile: pulumi.Output<string | undefined>;
    /**
     * The cluster's state: PROVISIONING, RUNNING, UPDATING, STOPPING or ERROR.
     */
    readonly state: pulumi.Output<string>;
    /**
     * The timeout in seconds.
     */
    readonly timeout: pulumi.Output<number | undefined>;
    /**
     * What create and update waited for.
     */
    readonly wait: pulumi.Output<any | undefined>;
    /**
     * Create a GcpTrainingCluster resource with the given unique name, arguments, and options.
     *
     * @param name The _unique_ name of the resource.
     * @param args The arguments to use to populate this resource's properties.
     * @param opts A bag of options that control this resource's behavior.
     */
    constructor(name: string, args?: GcpTrainingClusterArgs, opts?: pulumi.CustomResourceOptions);
}
/**
 * The set of arguments for constructing a GcpTrainingCluster resource.
 */
export interface GcpTrainingClusterArgs {
    /**
     * "gcp" (Application Default Credentials) or "fake", the simulator. Default: "fake" when the provider config hyperpod:backend is "fake", else "gcp".
     */
    backend?: pulumi.Input<string | undefined>;
    /**
     * What a plan may do to the running cluster; guards refuse the rest with the reason.
     */
    policy?: pulumi.Input<inputs.PolicyArgs | undefined>;
    /**
     * The cluster: the modelDevelopmentClusters REST body (snake_case or camelCase), with its full `name`.
     */
    spec?: any | undefined;
    /**
     * A JSON or YAML file holding that body (relative to the project directory), read at every check; `spec` is merged over it.
     */
    specFile?: pulumi.Input<string | undefined>;
    /**
     * Seconds a create, update or delete may wait on its operations (default 7200).
     */
    timeout?: pulumi.Input<number | undefined>;
    /**
     * "none" (return once the calls are accepted) or "InService" (default; "MinCount" and "Target" wait alike: the operation ends with the pools at their counts).
     */
    wait?: pulumi.Input<string | undefined>;
}
//# sourceMappingURL=gcpTrainingCluster.d.ts.map