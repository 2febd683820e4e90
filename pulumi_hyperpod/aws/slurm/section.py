"""The Slurm section of a plan: the running cluster's Slurm spec (read from its bundle) against
the one wanted, as typed changes — what the pipeline adds to a Plan (its HyperPod details, aws/details.py).

The only reading here is the bundle (S3 through a boto3 client, or a local directory); the
comparison itself is `changes.diff_slurm`, pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

from pulumi_hyperpod.aws.planner.codes import RefusalRule
from pulumi_hyperpod.aws.slurm.changes import Mode, SlurmChanges, changes_text, diff_slurm
from pulumi_hyperpod.aws.slurm.hyperpod import partition_names
from pulumi_hyperpod.slurm.spec import SlurmSpec
from botocore.exceptions import BotoCoreError, ClientError
from pulumi_hyperpod.aws.slurm.observed import controller_bundle_uri, read_bundle_spec, read_dir_spec

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import S3Client


@dataclass(frozen=True)
class SlurmInputs:
    """What a section's changes are made from: the running spec (read from the bundle), the wanted
    one, the mode. A saved plan keeps them, so the section it shows is made again from them, never
    taken from the file (aws/saved.py)."""

    current: SlurmSpec
    wanted: SlurmSpec
    mode: Mode

    def to_dict(self) -> dict[str, Any]:
        return {"current": self.current.to_dict(), "wanted": self.wanted.to_dict(), "mode": self.mode}

    @classmethod
    def from_dict(cls, data: Any) -> SlurmInputs:
        if not isinstance(data, dict) or data.get("mode") not in ("SlurmConfig", "provisioning_parameters"):
            raise ValueError("slurm_inputs: an object with current, wanted and mode (SlurmConfig or provisioning_parameters)")
        return cls(
            SlurmSpec.from_dict(data["current"], partition_names=partition_names()),
            SlurmSpec.from_dict(data["wanted"], partition_names=partition_names()),
            data["mode"],
        )

    def section(self, source: str | None) -> SlurmSection:
        return SlurmSection(diff_slurm(self.current, self.wanted, mode=self.mode), source, inputs=self)


@dataclass(frozen=True)
class SlurmSection:
    changes: SlurmChanges | None  # None: the running cluster's Slurm spec is not known
    source: str | None = None  # where the running spec was read
    notes: tuple[str, ...] = field(default_factory=tuple)
    inputs: SlurmInputs | None = field(default=None, compare=False)  # what `changes` were made from

    @property
    def refused(self) -> bool:
        return bool(self.changes and self.changes.refusals)

    def to_dict(self) -> dict[str, Any]:
        return {"source": self.source, "notes": list(self.notes), "changes": self.changes.to_dict() if self.changes is not None else None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SlurmSection:
        changes = SlurmChanges.from_dict(data["changes"]) if data.get("changes") is not None else None
        return cls(changes, data.get("source"), tuple(data.get("notes") or ()))

    @property
    def empty(self) -> bool:
        return self.changes is None or self.changes.empty

    def refusals(self) -> list[tuple[str, str]]:
        """(rule, reason) for each change HyperPod cannot make in place and, when the running
        cluster's Slurm spec could not be read, for that: unknown is not safe, so a plan that was
        asked to check Slurm changes and could not is refused, never shown as "no changes"."""
        if self.changes is None:
            why = "; ".join(self.notes) or "the cluster's current Slurm spec could not be read"
            return [
                (
                    RefusalRule.SLURM_UNKNOWN,
                    f"{why}: the Slurm changes cannot be shown or checked; give the cluster's "
                    "current bundle with --lifecycle DIR, or plan without --slurm",
                )
            ]
        return [(RefusalRule.SLURM_CHANGE, f"{change}: {change.refused}") for change in self.changes.refusals]

    def text(self, width: int = 160) -> str:
        lines = [changes_text(self.changes, width).rstrip()] if self.changes is not None else []
        lines += [f"note: {note}" for note in self.notes]
        return "\n".join(lines) + "\n"


def slurm_section(
    wanted: SlurmSpec,
    observed: Any,
    *,
    s3_client: S3Client | Callable[[], S3Client] | None = None,
    lifecycle_dir: str | Path | None = None,
) -> SlurmSection:
    """Compare `wanted` with the Slurm spec of the observed cluster (a ClusterState; None: the
    cluster does not exist yet, so everything is new and there is nothing to change)."""
    if observed is None:
        return SlurmSection(SlurmChanges("SlurmConfig"), None, ("a new cluster: its Slurm spec is created with it",))
    mode = "SlurmConfig" if any(getattr(g, "node_type", None) for g in observed.groups) else "provisioning_parameters"
    if lifecycle_dir is not None:
        current, source = read_dir_spec(lifecycle_dir), str(lifecycle_dir)
    else:
        source = controller_bundle_uri(observed)
        if source is None or s3_client is None:
            why = "no lifecycle SourceS3Uri" if source is None else "no S3 client to read it with"
            return SlurmSection(None, source, (f"the cluster's current Slurm spec is unknown ({why}); Slurm changes are not shown",))
        if callable(s3_client):  # a factory (see roles.resolve): the client only when the bundle is read
            s3_client = s3_client()
        try:
            current = read_bundle_spec(s3_client, source)
        except (ClientError, BotoCoreError) as error:
            return SlurmSection(None, source, (f"could not read the cluster's Slurm spec from {source}: {error}",))
    if current is None:
        return SlurmSection(
            None,
            source,
            (f"the bundle at {source} has no slurm-spec.json (not written by hyperpod slurm render); Slurm changes are not shown",),
        )
    return SlurmInputs(current, wanted, mode).section(source)
