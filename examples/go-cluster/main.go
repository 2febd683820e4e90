// Seed 004: the scale-out / scale-in walkthrough, as a Go program with the native provider.
//
// The seed edits InstanceCount in update_cluster.json and runs `aws sagemaker update-cluster`; here
// the count is stack config (computeCount), and `pulumi preview` says what the update will do
// before it runs: 1 → 3 is one UpdateCluster; 3 → 1 names the two nodes BatchDeleteClusterNodes
// removes, and why those two (unhealthy first, then never-launched, then the newest).
package main

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"

	"github.com/pulumi-hyperpod/pulumi-hyperpod/sdk/go/hyperpod"
)

const role = "arn:aws:iam::640168457519:role/leo-stg-SagemakerHyperpod-Role"

var lifecycle = map[string]any{
	"SourceS3Uri": "s3://leo-stg-hyperpod-lifecycle-778c45ef/lifecycle-script-directory/src",
	"OnCreate":    "on_create.sh",
}

// group is one instance group in the API form (ClusterInstanceGroupSpecification, PascalCase).
func group(name, instanceType string, count int) pulumi.Input {
	return pulumi.Any(map[string]any{
		"InstanceGroupName":      name,
		"InstanceType":           instanceType,
		"InstanceCount":          count,
		"LifeCycleConfig":        lifecycle,
		"ExecutionRole":          role,
		"ThreadsPerCore":         2,
		"InstanceStorageConfigs": []any{map[string]any{"EbsVolumeConfig": map[string]any{"VolumeSizeInGB": 30}}},
	})
}

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		computeCount := 1
		if n, err := config.TryInt(ctx, "computeCount"); err == nil {
			computeCount = n
		}
		cluster, err := hyperpod.NewCluster(ctx, "leo-stg", &hyperpod.ClusterArgs{
			ClusterName: pulumi.String("scale-walkthrough-go"),
			InstanceGroups: pulumi.Array{
				group("leo-stg-head-ig", "ml.m5.large", 1),
				group("leo-stg-compute-ig", "ml.g5.xlarge", computeCount),
			},
			// scale-in guard: at most three quarters of a group's nodes per plan
			Policy: &hyperpod.PolicyArgs{MaxScaleInFraction: pulumi.Float64(0.75)},
		})
		if err != nil {
			return err
		}
		ctx.Export("arn", cluster.Arn)
		ctx.Export("status", cluster.Status)
		ctx.Export("nodeCount", cluster.NodeCount)
		ctx.Export("compute", cluster.Groups.MapIndex(pulumi.String("leo-stg-compute-ig")))
		return nil
	})
}
