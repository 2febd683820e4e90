"""Google Cloud training clusters (seed 002): REST `modelDevelopmentClusters` v1beta1.

spec (desired) → observe (GET) → plan (pure) → apply (create / PATCH with updateMask / delete and
wait on the long-running operation), through google-auth's AuthorizedSession; the simulator in
`fake/` answers at the `requests` transport. Nothing heavy is imported here: import the module
you need (`pulumi_hyperpod.gcp.spec`, `.client`, `.planner`, …).
"""
