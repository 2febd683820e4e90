"""The native Pulumi provider `hyperpod` (resource `hyperpod:index:Cluster`), for every Pulumi language.

A thin adapter over the dynamic provider (`pulumi_hyperpod.provider`), reached only through
`core`: the same checks, plans, guards and waits; see docs/native-provider.md. Nothing heavy is
imported here (the plugin starts `server.main`).
"""

PACKAGE = "hyperpod"
CLUSTER_TYPE = "hyperpod:index:Cluster"
