"""What runs on each HyperPod node — Slurm jobs, Kubernetes pods — read-only, as data for the planner,
and the cordon/drain apply does before a scale-in deletes nodes (docs/workloads.md).

- `model`: WorkloadView, NodeWorkload, Job, Pod (plain data, JSON form).
- `source`: the one interface (read, cordon, evict) and WorkloadError.
- `slurm`: squeue/sinfo --json here, through a command prefix, or from saved files.
- `eks`: the Kubernetes API through the `kubernetes` client (kubeconfig or an EKS token, eks_auth).
- `match`: Slurm/Kubernetes node names ↔ HyperPod instance ids.
- `fake`: the Kubernetes API simulator and the HyperPod simulator's jobs and pods.

Nothing here is imported by the planner: it reads a WorkloadView as data.
"""
