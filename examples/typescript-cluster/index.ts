// Seed 004: the scale-out / scale-in walkthrough, as a TypeScript program with the native provider.
//
// The seed edits InstanceCount in update_cluster.json and runs `aws sagemaker update-cluster`; here
// the count is stack config (`computeCount`), and `pulumi preview` says what the update will do
// before it runs: 1 → 3 is one UpdateCluster; 3 → 1 names the two nodes BatchDeleteClusterNodes
// removes, and why those two (unhealthy first, then never-launched, then the newest).
import * as pulumi from "@pulumi/pulumi";
import * as hyperpod from "@pulumi-hyperpod/hyperpod";

const config = new pulumi.Config();
const computeCount = config.getNumber("computeCount") ?? 1;

const lifecycle = {
    SourceS3Uri: "s3://leo-stg-hyperpod-lifecycle-778c45ef/lifecycle-script-directory/src",
    OnCreate: "on_create.sh",
};
const role = "arn:aws:iam::640168457519:role/leo-stg-SagemakerHyperpod-Role";

// One instance group in the API form (ClusterInstanceGroupSpecification, PascalCase).
function group(name: string, instanceType: string, count: number) {
    return {
        InstanceGroupName: name,
        InstanceType: instanceType,
        InstanceCount: count,
        LifeCycleConfig: lifecycle,
        ExecutionRole: role,
        ThreadsPerCore: 2,
        InstanceStorageConfigs: [{ EbsVolumeConfig: { VolumeSizeInGB: 30 } }],
    };
}

const cluster = new hyperpod.Cluster("leo-stg", {
    clusterName: "scale-walkthrough-ts",
    instanceGroups: [
        group("leo-stg-head-ig", "ml.m5.large", 1),
        group("leo-stg-compute-ig", "ml.g5.xlarge", computeCount),
    ],
    // scale-in guard: at most three quarters of a group's nodes per plan
    policy: { maxScaleInFraction: 0.75 },
});

export const arn = cluster.arn;
export const status = cluster.status;
export const nodeCount = cluster.nodeCount;
export const compute = cluster.groups.apply((groups) => groups?.["leo-stg-compute-ig"]);
