module github.com/pulumi-hyperpod/pulumi-hyperpod/sdk/go

go 1.25

require github.com/pulumi/pulumi/sdk/v3 v3.269.0
