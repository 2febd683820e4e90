import * as pulumi from "@pulumi/pulumi";
import * as inputs from "./types/input";
import * as outputs from "./types/output";
/**
 * A SageMaker HyperPod cluster, planned and applied by pulumi-hyperpod. Import: `pulumi import hyperpod:index:Cluster NAME <cluster name or ARN>`.
 */
export declare class Cluster extends pulumi.CustomResource {
    /**
     * Get an existing Cluster resource's state with the given name, ID, and optional extra
     * properties used to qualify the lookup.
     *
     * @param name The _unique_ name of the resulting resource.
     * @param id The _unique_ provider ID of the resource to lookup.
     * @param opts Optional settings to control the behavior of the CustomResource.
     */
    static get(name: string, id: pulumi.Input<pulumi.ID>, opts?: pulumi.CustomResourceOptions): Cluster;
    /**
     * Check whether an existing Cluster resource with the given ID exists.
     *
     * @param id The _unique_ provider ID of the resource to check.
     * @param opts Optional settings to control the behavior of the CustomResource.
     */
    static exists(id: pulumi.Input<string>, opts?: pulumi.CustomResourceOptions): pulumi.Output<boolean>;
    /**
     * Returns true if the given object is an instance of Cluster.  This is designed to work even
     * when multiple copies of the Pulumi SDK have been loaded into the same process.
     */
    static isInstance(obj: any): obj is Cluster;
    /**
     * Take over an existing cluster of that name instead of failing on create.
     */
    readonly adopt: pulumi.Output<boolean>;
    /**
     * The cluster's ARN (also the resource id).
     */
    readonly arn: pulumi.Output<string>;
    /**
     * Where the cluster lives: "aws" (default) or "fake", the simulator (its persistent world: $HYPERPOD_FAKE_STATE, default .hyperpod/fake.sqlite in the project directory). Default: the provider config hyperpod:backend.
     */
    readonly backend: pulumi.Output<string | undefined>;
    /**
     * The cluster's name.
     */
    readonly clusterName: pulumi.Output<string>;
    /**
     * Whether NodeProvisioningMode is Continuous.
     */
    readonly continuous: pulumi.Output<boolean>;
    /**
     * FailureMessage from DescribeCluster, when there is one.
     */
    readonly failureMessage: pulumi.Output<string | undefined>;
    /**
     * Per instance group (by name): counts and status.
     */
    readonly groups: pulumi.Output<{
        [key: string]: outputs.GroupStatus;
    }>;
    /**
     * Where the cluster lives, as resolved at create: read and delete reach it there.
     */
    readonly location: pulumi.Output<outputs.Location>;
    /**
     * Nodes there now (sum of CurrentCount).
     */
    readonly nodeCount: pulumi.Output<number>;
    /**
     * Slurm or Eks.
     */
    readonly orchestrator: pulumi.Output<string>;
    /**
     * Nodes asked for and not there yet.
     */
    readonly pendingCount: pulumi.Output<number>;
    /**
     * In a preview: the plan JSON (`hyperpod plan --json`, format hyperpod-plan/2) the create or update would run now, or, when no plan can be made, a document of format hyperpod-plan-unknown/1 saying why. For policy packs (policies/README.md); not set after an update.
     */
    readonly plan: pulumi.Output<string | undefined>;
    /**
     * What a plan may do to the running cluster; guards refuse the rest with the reason.
     */
    readonly policy: pulumi.Output<outputs.Policy>;
    /**
     * The AWS profile (a name; credentials are read by boto3 at call time, never stored). Default: the provider config hyperpod:profile.
     */
    readonly profile: pulumi.Output<string | undefined>;
    /**
     * The AWS region. Default: the provider config hyperpod:region, then AWS_REGION / the profile's region.
     */
    readonly region: pulumi.Output<string | undefined>;
    /**
     * Slurm role by instance group name (Controller, Login or Compute) for groups whose spec does not state SlurmConfig.NodeType — the roles a legacy cluster's lifecycle provisioning_parameters.json gives. Unknown roles on a Slurm cluster: scaling a group to 0 or deleting one is refused.
     */
    readonly roles: pulumi.Output<{
        [key: string]: string;
    } | undefined>;
    /**
     * The spec in its canonical API form (PascalCase), exactly the CreateCluster request, and its Extensions.
     */
    readonly spec: pulumi.Output<any>;
    /**
     * ClusterStatus from DescribeCluster.
     */
    readonly status: pulumi.Output<string>;
    /**
     * Nodes asked for (sum of TargetCount).
     */
    readonly targetCount: pulumi.Output<number>;
    /**
     * Seconds each call may take, observation, API calls and wait included (default 1200, at most 1680).
     */
    readonly timeout: pulumi.Output<number>;
    /**
     * What create and update wait for: "none", "InService" (default), "MinCount" or "Target".
     */
    readonly wait: pulumi.Output<string>;
    /**
     * Create a Cluster resource with the given unique name, arguments, and options.
     *
     * @param name The _unique_ name of the resource.
     * @param args The arguments to use to populate this resource's properties.
     * @param opts A bag of options that control this resource's behavior.
     */
    constructor(name: string, args?: ClusterArgs, opts?: pulumi.CustomResourceOptions);
}
/**
 * The set of arguments for constructing a Cluster resource.
 */
export interface ClusterArgs {
    /**
     * Take over an existing cluster of that name instead of failing on create.
     */
    adopt?: pulumi.Input<boolean | undefined>;
    /**
     * AutoScaling in the API form.
     */
    autoScaling?: any | undefined;
    /**
     * Where the cluster lives: "aws" (default) or "fake", the simulator (its persistent world: $HYPERPOD_FAKE_STATE, default .hyperpod/fake.sqlite in the project directory). Default: the provider config hyperpod:backend.
     */
    backend?: pulumi.Input<string | undefined>;
    /**
     * ClusterName (merged over spec/specFile, per top-level field; later wins).
     */
    clusterName?: pulumi.Input<string | undefined>;
    /**
     * ClusterRole (an IAM role ARN).
     */
    clusterRole?: pulumi.Input<string | undefined>;
    /**
     * InstanceGroups, each in the API form (ClusterInstanceGroupSpecification).
     */
    instanceGroups?: pulumi.Input<any[] | undefined>;
    /**
     * NodeProvisioningMode: Continuous, or left out.
     */
    nodeProvisioningMode?: pulumi.Input<string | undefined>;
    /**
     * NodeRecovery: Automatic or None.
     */
    nodeRecovery?: pulumi.Input<string | undefined>;
    /**
     * Orchestrator: {"Slurm": {…}} or {"Eks": {"ClusterArn": …}}.
     */
    orchestrator?: any | undefined;
    /**
     * What a plan may do to the running cluster; guards refuse the rest with the reason.
     */
    policy?: pulumi.Input<inputs.PolicyArgs | undefined>;
    /**
     * The AWS profile (a name; credentials are read by boto3 at call time, never stored). Default: the provider config hyperpod:profile.
     */
    profile?: pulumi.Input<string | undefined>;
    /**
     * The AWS region. Default: the provider config hyperpod:region, then AWS_REGION / the profile's region.
     */
    region?: pulumi.Input<string | undefined>;
    /**
     * RestrictedInstanceGroups in the API form.
     */
    restrictedInstanceGroups?: pulumi.Input<any[] | undefined>;
    /**
     * Slurm role by instance group name (Controller, Login or Compute) for groups whose spec does not state SlurmConfig.NodeType — the roles a legacy cluster's lifecycle provisioning_parameters.json gives. Unknown roles on a Slurm cluster: scaling a group to 0 or deleting one is refused.
     */
    roles?: pulumi.Input<{
        [key: string]: pulumi.Input<string>;
    } | undefined>;
    /**
     * The CreateCluster request: an object in the AWS CLI --cli-input-json form (PascalCase) or snake_case; optionally with Extensions, the cluster extensions wanted (docs/specs.md).
     */
    spec?: any | undefined;
    /**
     * A JSON or YAML file in that form (relative to the project directory), read at every check: editing the file is a change.
     */
    specFile?: pulumi.Input<string | undefined>;
    /**
     * Tags: [{"Key": …, "Value": …}] or a {key: value} object.
     */
    tags?: any | undefined;
    /**
     * TieredStorageConfig in the API form.
     */
    tieredStorageConfig?: any | undefined;
    /**
     * Seconds each call may take, observation, API calls and wait included (default 1200, at most 1680).
     */
    timeout?: pulumi.Input<number | undefined>;
    /**
     * VpcConfig: {SecurityGroupIds, Subnets}.
     */
    vpcConfig?: any | undefined;
    /**
     * What create and update wait for: "none", "InService" (default), "MinCount" or "Target".
     */
    wait?: pulumi.Input<string | undefined>;
}
//# sourceMappingURL=cluster.d.ts.map