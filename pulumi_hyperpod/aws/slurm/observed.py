"""The Slurm spec a running HyperPod cluster was given: the `slurm-spec.json` of the lifecycle
bundle its groups point at (written by `hyperpod slurm render` / the SlurmCluster component).

The "before" side of `changes.diff_slurm`. Read through a boto3 `s3` client (AWS or the
simulator) or from a local bundle directory; None when the bundle has no Slurm spec (a bundle
this tool did not write) — then Slurm changes cannot be shown, which the caller says.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.core.errors import Violation
from pulumi_hyperpod.core.documents import max_bytes, read_document, read_object_document
from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.aws.slurm.render import SPEC_FILE
from pulumi_hyperpod.aws.slurm.roles import LifecycleError, get_object_or_none, split_s3_uri
from pulumi_hyperpod.slurm.spec import SlurmSpec, SlurmSpecError

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import S3Client


def spec_from_document(data: Any, source: str) -> SlurmSpec:
    """A SlurmSpec from the content of a bundle's slurm-spec.json."""
    if not isinstance(data, dict) or not isinstance(data.get("spec"), dict):
        raise LifecycleError([Violation("spec", "is missing: not a slurm-spec.json written by hyperpod slurm render")], source=source)
    try:
        return SlurmSpec.from_dict(data["spec"], source=source, partition_names=partition_names())
    except SlurmSpecError as error:
        raise LifecycleError(error.violations, source=source) from None


def read_bundle_spec(s3_client: S3Client, uri: str) -> SlurmSpec | None:
    """The Slurm spec under an s3:// bundle prefix; None when the bundle has none."""
    bucket, prefix = split_s3_uri(uri)
    key = f"{prefix.strip('/')}/{SPEC_FILE}" if prefix.strip("/") else SPEC_FILE
    body = get_object_or_none(s3_client, bucket, key, limit=max_bytes(SlurmSpecError.kind))
    if body is None:
        return None
    location = f"s3://{bucket}/{key}"
    try:  # the one reader's rules (core/documents.py): size, UTF-8, depth, a key given twice
        data = read_object_document(body, location, SlurmSpecError)
    except SlurmSpecError as error:
        raise LifecycleError(error.violations, source=location) from None
    return spec_from_document(data, location)


def read_dir_spec(path: str | Path) -> SlurmSpec | None:
    file = Path(path) / SPEC_FILE
    if not file.exists():
        return None
    try:  # a regular file only, with the spec's limits (core/documents.py)
        data = read_document(file, SlurmSpecError)
    except SlurmSpecError as error:
        raise LifecycleError(error.violations, source=str(file)) from None
    return spec_from_document(data, str(file))


def controller_bundle_uri(state: Any) -> str | None:
    """The lifecycle URI of the controller group of an observed ClusterState (or of any group
    when no group says it is the controller)."""
    groups = list(getattr(state, "groups", ()) or ())
    ordered = sorted(groups, key=lambda g: getattr(g, "node_type", None) != "Controller")
    for group in ordered:
        described = getattr(group, "described", None) or {}
        uri = (described.get("LifeCycleConfig") or {}).get("SourceS3Uri")
        if uri:
            return uri
    return None
