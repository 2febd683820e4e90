import * as pulumi from "@pulumi/pulumi";
/**
 * The hyperpod provider: where clusters live unless a Cluster says otherwise.
 */
export declare class Provider extends pulumi.ProviderResource {
    /**
     * Returns true if the given object is an instance of Provider.  This is designed to work even
     * when multiple copies of the Pulumi SDK have been loaded into the same process.
     */
    static isInstance(obj: any): obj is Provider;
    /**
     * Create a Provider resource with the given unique name, arguments, and options.
     *
     * @param name The _unique_ name of the resource.
     * @param args The arguments to use to populate this resource's properties.
     * @param opts A bag of options that control this resource's behavior.
     */
    constructor(name: string, args?: ProviderArgs, opts?: pulumi.ResourceOptions);
}
/**
 * The set of arguments for constructing a Provider resource.
 */
export interface ProviderArgs {
    /**
     * Where the cluster lives: "aws" (default) or "fake", the simulator (its persistent world: $HYPERPOD_FAKE_STATE, default .hyperpod/fake.sqlite in the project directory). Default: the provider config hyperpod:backend.
     */
    backend?: pulumi.Input<string | undefined>;
    /**
     * The AWS profile (a name; credentials are read by boto3 at call time, never stored). Default: the provider config hyperpod:profile.
     */
    profile?: pulumi.Input<string | undefined>;
    /**
     * The AWS region. Default: the provider config hyperpod:region, then AWS_REGION / the profile's region.
     */
    region?: pulumi.Input<string | undefined>;
}
//# sourceMappingURL=provider.d.ts.map