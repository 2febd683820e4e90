"""The `hyperpod` provider plugin as a Python plugin directory (PulumiPlugin.yaml): the same
server the `pulumi-resource-hyperpod` launcher starts."""

from pulumi_hyperpod.native.server import main

main()
