"""Resource names: `projects/P/locations/L/modelDevelopmentClusters/ID`, and the cluster id rules."""

from __future__ import annotations

import re
from dataclasses import dataclass

COLLECTION = "modelDevelopmentClusters"
_FULL = re.compile(r"^projects/(?P<project>[^/]+)/locations/(?P<location>[^/]+)/modelDevelopmentClusters/(?P<id>[^/]+)$")
# Documented for modelDevelopmentClusterId (Terraform's ModelDevelopmentCluster.yaml, from the API
# reference): 1-10 characters; with a slurm_spec no hyphens.
CLUSTER_ID = re.compile(r"^[a-z]([a-z0-9-]{0,8}[a-z0-9])?$")
SLURM_CLUSTER_ID = re.compile(r"^[a-z][a-z0-9]{0,9}$")
PROJECT_ID = re.compile(r"^[a-z0-9][a-z0-9.:-]{0,62}$")
LOCATION = re.compile(r"^[a-z]+-[a-z]+[0-9]+$")


@dataclass(frozen=True)
class ClusterName:
    project: str
    location: str
    cluster_id: str

    @property
    def parent(self) -> str:
        return f"projects/{self.project}/locations/{self.location}"

    @property
    def full(self) -> str:
        return f"{self.parent}/{COLLECTION}/{self.cluster_id}"

    def __str__(self) -> str:
        return self.full


def parse_name(name: str, project: str | None = None, location: str | None = None) -> ClusterName:
    """A full resource name, or a bare cluster id completed by `project` and `location`.

    Raises ValueError naming what is missing or contradictory."""
    match = _FULL.match(name)
    if match:
        found = ClusterName(match["project"], match["location"], match["id"])
        if project and project != found.project:
            raise ValueError(f"name: the name says project {found.project!r} but --project is {project!r}")
        if location and location != found.location:
            raise ValueError(f"name: the name says location {found.location!r} but --location is {location!r}")
        return _checked(found)
    if "/" in name:
        raise ValueError(f"name: {name!r} is not projects/PROJECT/locations/REGION/{COLLECTION}/ID nor a bare cluster id")
    missing = [flag for flag, value in (("--project", project), ("--location", location)) if not value]
    if missing:
        raise ValueError(
            f"name: {name!r} is a bare cluster id; give {' and '.join(missing)} "
            f"or the full name projects/PROJECT/locations/REGION/{COLLECTION}/{name}"
        )
    return _checked(ClusterName(project or "", location or "", name))


def _checked(name: ClusterName) -> ClusterName:
    """Every part of a name matches its pattern before it is put in a URL: `llmtrain?x` or `a#b`
    would otherwise reach the service as the query or fragment of another cluster's URL."""
    problem = id_problem(name.cluster_id, slurm=False) or location_problem(name)
    if problem:
        raise ValueError(f"name: {problem}")
    return name


def with_cluster_id(name: object, cluster_id: str | None) -> object:
    """The spec's `name` completed by `--cluster-id`. Google's create requests carry the id as the
    `modelDevelopmentClusterId` query parameter, so their bodies have no `name` (or, on the
    flex-start page, `projects/P/locations/L/modelDevelopmentClusters/` with an empty id)."""
    if name is None and cluster_id:
        return cluster_id  # a bare id: --project/--location complete it
    if isinstance(name, str) and name.endswith(f"/{COLLECTION}/") and cluster_id:
        return name + cluster_id
    if isinstance(name, str) and cluster_id and not name.endswith("/"):
        if name.rsplit("/", 1)[-1] != cluster_id:
            raise ValueError(f"the name's cluster id is {name.rsplit('/', 1)[-1]!r} but --cluster-id is {cluster_id!r}")
        return name
    if name is None or (isinstance(name, str) and name.endswith("/")):
        raise ValueError(
            "no cluster id: give `name` (projects/PROJECT/locations/REGION/"
            f"{COLLECTION}/ID) or --cluster-id ID (with --project/--location when `name` is absent)"
        )
    return name


def id_problem(cluster_id: str, slurm: bool) -> str | None:
    """Why `cluster_id` is not a valid modelDevelopmentClusterId, or None."""
    if slurm and not SLURM_CLUSTER_ID.match(cluster_id):
        return (
            f"cluster id {cluster_id!r} must be 1-10 characters, a lowercase letter then lowercase letters or "
            "digits (no hyphens with a slurm_spec): ^[a-z][a-z0-9]{0,9}$"
        )
    if not CLUSTER_ID.match(cluster_id):
        return f"cluster id {cluster_id!r} must match ^[a-z]([a-z0-9-]{{0,8}}[a-z0-9])?$ (1-10 characters)"
    return None


def location_problem(name: ClusterName) -> str | None:
    if not PROJECT_ID.match(name.project):
        return f"project {name.project!r} is not a project id"
    if not LOCATION.match(name.location):
        return f"location {name.location!r} is not a region (for example us-central1)"
    return None


def gpu_quota_metric(accelerator: str, spot: bool = False) -> str:
    """Compute Engine's regional quota metric of an accelerator type: nvidia-h100-80gb →
    NVIDIA_H100_GPUS, nvidia-b200 → NVIDIA_B200_GPUS; SPOT nodes count against PREEMPTIBLE_…."""
    base = re.sub(r"-[0-9]+gb$", "", accelerator).upper().replace("-", "_") + "_GPUS"
    return f"PREEMPTIBLE_{base}" if spot else base
