/**
 * Where the cluster lives: "aws" (default) or "fake", the simulator (its persistent world: $HYPERPOD_FAKE_STATE, default .hyperpod/fake.sqlite in the project directory). Default: the provider config hyperpod:backend.
 */
export declare const backend: string | undefined;
/**
 * The AWS profile (a name; credentials are read by boto3 at call time, never stored). Default: the provider config hyperpod:profile.
 */
export declare const profile: string | undefined;
/**
 * The AWS region. Default: the provider config hyperpod:region, then AWS_REGION / the profile's region.
 */
export declare const region: string | undefined;
//# sourceMappingURL=vars.d.ts.map