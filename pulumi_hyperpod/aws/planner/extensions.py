"""Cluster extensions: the spec's `Extensions` against ListClusterExtensions (and
DescribeClusterExtension's ConfigurationValues), as CreateClusterExtension, UpdateClusterExtension and
DeleteClusterExtension steps (kinds `create-extension`, `update-extension`, `delete-extension`:
plans/steps.py).

- A spec without `Extensions` leaves the cluster's extensions alone (none is read); `Extensions: []`
  removes every one. An offline snapshot has none read: the spec's are not compared (a note).
- An extension the cluster lacks is created — on a new cluster, after CreateCluster (apply waits for
  InService first). One the spec does not name is deleted.
- An update when the spec's `ExtensionVersion` differs from the installed one, or a setting its
  `ConfigurationValues` gives differs from the installed configuration. The service merges a
  configuration update (UpdateClusterExtension: settings left out keep their values), so only the
  settings the spec gives are compared, and a setting given as `null` (back to its default, whose
  value the spec does not say) is not. What the service sets (ARN, status, times) is never compared;
  neither are an extension's Tags, which CreateClusterExtension takes and no call of the model
  changes afterwards.
- A version earlier than the installed one is refused (UpdateClusterExtension: "You can't update to
  an earlier version ... delete the extension and create it again with that version"); so is a
  change to an extension being deleted.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.aws.planner.codes import RefusalRule, StepReason
from pulumi_hyperpod.plans.model import Refusal, Step

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.observe.state import ExtensionState
    from pulumi_hyperpod.aws.spec.models import ClusterSpec, ExtensionSpec

OPERATIONS = ("CreateClusterExtension", "UpdateClusterExtension", "DeleteClusterExtension")
BUSY = frozenset({"Deleting"})


@dataclass
class ExtensionChanges:
    steps: list[Step] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)


def creations(desired: ClusterSpec) -> list[Step]:
    """A new cluster's extensions, created after it: the ClusterArn is the one CreateCluster answers
    (apply fills it in; the request names the cluster by the plan's)."""
    return [_create(wanted, None, f"on the new cluster {desired.name}") for wanted in desired.extensions or ()]


def extension_changes(desired: ClusterSpec, observed: ClusterState) -> ExtensionChanges:
    """What takes the cluster's extensions to the spec's."""
    changes = ExtensionChanges()
    if desired.extensions is None:
        return changes
    if observed.extensions is None:
        changes.notes.append(
            f"Extensions: the cluster's extensions were not read (no ListClusterExtensions: an offline snapshot), so the spec's "
            f"{len(desired.extensions)} extension(s) are not compared; plan against the cluster to see their changes"
        )
        return changes
    wanted_names = {wanted.name for wanted in desired.extensions}
    for wanted in desired.extensions:
        have = observed.extension(wanted.name)
        if have is None:
            changes.steps.append(_create(wanted, observed.arn, f"on cluster {observed.name}"))
        elif have.status in BUSY:
            changes.refusals.append(
                Refusal(
                    RefusalRule.EXTENSION_BUSY,
                    f"extension {wanted.name} is being deleted; wait until it is gone, then plan again to create it",
                )
            )
        else:
            _update(changes, wanted, have, observed.arn)
    for have in observed.extensions or ():
        if have.name not in wanted_names and have.status not in BUSY:
            changes.steps.append(
                Step(
                    "DeleteClusterExtension",
                    {"ClusterArn": observed.arn, "ExtensionArn": have.arn},
                    (f"extension {have.name} {have.version} removed (the spec's Extensions do not list it)",),
                    kind="delete-extension",
                    codes=(StepReason.NOT_DESIRED,),
                )
            )
    return changes


def _create(wanted: ExtensionSpec, arn: str | None, where: str) -> Step:
    request = {"ClusterArn": arn, **wanted.to_api()} if arn is not None else wanted.to_api()
    version = wanted.extension_version or "the latest version"
    return Step(
        "CreateClusterExtension",
        request,
        (f"extension {wanted.name} ({version}) installed {where}",),
        kind="create-extension",
        codes=(StepReason.ABSENT,),
    )


def _update(changes: ExtensionChanges, wanted: ExtensionSpec, have: ExtensionState, arn: str) -> None:
    request: dict[str, Any] = {"ClusterArn": arn, "ExtensionArn": have.arn}
    reasons = []
    version = wanted.extension_version
    if version is not None and version != have.version:
        if _version_key(version) < _version_key(have.version):
            changes.refusals.append(
                Refusal(
                    RefusalRule.EXTENSION_DOWNGRADE,
                    f"extension {wanted.name}: {have.version} is installed and the spec asks for the earlier {version}; "
                    "an extension is never updated to an earlier version (UpdateClusterExtension): remove it from the "
                    "spec, apply, then add it back with that version",
                )
            )
            return
        request["ExtensionVersion"] = version
        reasons.append(f"extension {wanted.name}: version {have.version} → {version}")
    moved = settings_differ(wanted.configuration_values, have.configuration)
    if moved:
        request["ConfigurationValues"] = wanted.configuration_values
        reasons.append(f"extension {wanted.name}: configuration {', '.join(moved[:5])} changes")
    if reasons:
        changes.steps.append(
            Step("UpdateClusterExtension", request, tuple(reasons), kind="update-extension", codes=(StepReason.EXTENSION_DIFFERS,))
        )


def settings_differ(wanted: str | None, have: str | None) -> list[str]:
    """The settings (dotted paths) `wanted` gives a value `have` does not have; [] when none, or when
    the spec gives no configuration."""
    if wanted is None:
        return []
    return _differing(json.loads(wanted), _object(have), "")


def _object(text: str | None) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _differing(want: dict[str, Any], have: dict[str, Any], prefix: str) -> list[str]:
    moved = []
    for key, value in want.items():
        path = f"{prefix}{key}"
        if value is None:
            continue  # back to its default: a value the spec does not say
        current = have.get(key)
        if isinstance(value, dict) and isinstance(current, dict):
            moved += _differing(value, current, f"{path}.")
        elif current != value:
            moved.append(path)
    return moved


def _version_key(version: str) -> tuple[int, ...]:
    """MAJOR.MINOR.PATCH (the model's pattern for ExtensionVersion) as numbers."""
    return tuple(int(part) for part in version.split(".") if part.isdigit())
