"""The simulators, one package: every backend a plan can be tried on offline, reached from each
cloud's `connect(backend="fake")` (alias "sim") through core/backends.py's registry.

- `aws`: the SageMaker HyperPod service behind a real botocore client (and its S3, Service Quotas).
- `gcp`: the Google Cloud training-cluster REST API.
- `workload`: the Kubernetes API and the Slurm jobs on simulated nodes, on `aws`'s public names only.
- `clock`: the one virtual clock both clouds' worlds read; `worldfile`: their on-disk files and
  markers; `store`: how those files are opened and written (one timeout, WAL, one transaction per change);
  `server` (with `serveio`): the HTTP endpoint `hyperpod fake serve` runs for other tools.
"""
