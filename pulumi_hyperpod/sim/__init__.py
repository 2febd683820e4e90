"""The simulators, one package: every backend a plan can be tried on offline.

- `aws`: the SageMaker HyperPod service behind a real botocore client (and its S3, Service Quotas).
- `gcp`: the Google Cloud training-cluster REST API.
- `workload`: the Kubernetes API and the Slurm jobs on simulated nodes.
- `clock`: the one virtual clock both clouds' worlds read; `worldfile`: their on-disk files;
  `server` (with `serveio`): the HTTP endpoint `hyperpod fake serve` runs for other tools.
"""
