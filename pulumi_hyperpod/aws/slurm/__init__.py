"""HyperPod's side of Slurm: the neutral Slurm spec (pulumi_hyperpod.slurm) rendered as HyperPod's
SlurmConfig and lifecycle bundle (`render`, `bundle_files`, `upload`, `hook`), the running
cluster's Slurm read back (`observed`, `roles`), and the plan's Slurm section (`section`, `changes`,
`migration`, `hyperpod`)."""
