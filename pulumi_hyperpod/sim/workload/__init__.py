"""Simulators for the workload layer: a Kubernetes API (kube.py) and the HyperPod simulator's jobs
and pods on its clock (hyperpod.py)."""
