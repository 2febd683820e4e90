"""Limits, patterns and enums of the ModelDevelopmentCluster fields: data, in one place, read by
the spec (spec.py) — and so by the simulator, which validates with the same spec.

Where Google documents a number it is used; where it does not, the limit is conservative and says
so (docs/gcp.md, "Limits"). A limit also keeps the simulator from materialising absurd clusters.
"""

from __future__ import annotations

import re

# Vertex AI AcceleratorType (google.cloud.aiplatform.v1beta1.AcceleratorType), without UNSPECIFIED.
ACCELERATOR_TYPES = (
    "NVIDIA_TESLA_K80",
    "NVIDIA_TESLA_P100",
    "NVIDIA_TESLA_V100",
    "NVIDIA_TESLA_P4",
    "NVIDIA_TESLA_T4",
    "NVIDIA_TESLA_A100",
    "NVIDIA_A100_80GB",
    "NVIDIA_L4",
    "NVIDIA_H100_80GB",
    "NVIDIA_H100_MEGA_80GB",
    "NVIDIA_H200_141GB",
    "NVIDIA_B200",
    "NVIDIA_GB200",
    "NVIDIA_RTX_PRO_6000",
    "TPU_V2",
    "TPU_V3",
    "TPU_V4_POD",
    "TPU_V5_LITEPOD",
)
MAX_ACCELERATORS = 16  # the most GPUs one Compute Engine VM has (a2-megagpu-16g)
# Not documented for training clusters: GKE's per-zone node pool limit, as a conservative bound.
MAX_POOL_NODES = 1000
MAX_NODE_POOLS = 50  # not documented: conservative
MIN_BOOT_DISK_GB, MAX_BOOT_DISK_GB = 10, 65536  # Compute Engine: 10 GB minimum, 64 TB the largest disk
MAX_FLEX_START_SECONDS = 7 * 24 * 3600  # flex-start VMs run at most seven days
MAX_LABELS = 64  # Google Cloud labels: at most 64 per resource
MAX_STARTUP_SCRIPT = 256 * 1024  # Compute Engine: a metadata value is at most 256 KB
MAX_TEXT = 1024  # any other free string (names, images, paths): conservative

LABEL_KEY = re.compile(r"^[a-z][a-z0-9_-]{0,62}$")
LABEL_VALUE = re.compile(r"^[a-z0-9_-]{0,63}$")
RFC1035 = r"[a-z]([-a-z0-9]{0,61}[a-z0-9])?"
POOL_ID = re.compile(rf"^{RFC1035}$")
MACHINE_TYPE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$")
# The machine types a training cluster's node pools take (docs.cloud.google.com/vertex-ai/docs/
# training/training-clusters/compute-resources, read 2026-12-01): four accelerator-optimized types
# and "the n2 CPU family" — N2 standard, highmem and highcpu, 2 to 128 vCPUs (the Cluster Director
# compute page lists the sizes).
SUPPORTED_ACCELERATED = ("a4-highgpu-8g", "a4x-highgpu-4g", "a3-ultragpu-8g", "a3-megagpu-8g")
N2_FAMILY = re.compile(r"^n2-(standard|highmem|highcpu)-(2|4|8|16|32|48|64|80|96|128)$")
SUPPORTED_SOURCE = (
    "the training clusters' Compute resources page lists a4-highgpu-8g, a4x-highgpu-4g, a3-ultragpu-8g, a3-megagpu-8g and the n2 CPU family"
)
ZONE = re.compile(r"^[a-z]+-[a-z]+[0-9]+-[a-z]$")
PROJECT = r"[a-z0-9][a-z0-9.:-]{0,62}"
NETWORK = re.compile(rf"^(projects/{PROJECT}/global/networks/)?{RFC1035}$")
SUBNETWORK = re.compile(rf"^(projects/{PROJECT}/regions/(?P<region>[a-z]+-[a-z]+[0-9]+)/subnetworks/)?{RFC1035}$")
RESERVATION = re.compile(
    rf"^(projects/{PROJECT}/zones/[a-z]+-[a-z]+[0-9]+-[a-z]/reservations/)?{RFC1035}"
    r"(/reservationBlocks/[-a-z0-9]+)?$"
)
RESERVATION_KEY = re.compile(r"^[a-z0-9][a-z0-9./_-]{0,254}$")
STORAGE_INSTANCE = re.compile(rf"^projects/{PROJECT}/locations/[a-z0-9-]+/instances/{RFC1035}$")
IMAGE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,1023}$")
DURATION = re.compile(r"^(?P<seconds>[0-9]{1,12})(\.[0-9]{1,9})?s$")
SERVICE_ACCOUNT = re.compile(r"^[a-z0-9][a-z0-9._+-]*@[a-z0-9][a-z0-9.-]*$")
# C0/C1 controls and DEL; scripts may hold tabs and newlines, other text holds none
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
CONTROL_OR_NEWLINE = re.compile(r"[\x00-\x1f\x7f-\x9f]")
