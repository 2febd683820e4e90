"""`python -m pulumi_hyperpod.native ENGINE_ADDRESS`: the provider plugin (what the
`pulumi-resource-hyperpod` launcher runs)."""

from pulumi_hyperpod.native.server import main

main()
