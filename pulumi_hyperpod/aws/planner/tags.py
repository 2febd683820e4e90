"""Cluster tags: the spec's Tags against ListTags, as AddTags / DeleteTags steps (member table:
`Tags` changes through AddTags/DeleteTags and is read with ListTags; DescribeCluster has no tags).

A spec without Tags leaves the cluster's tags alone; a spec with Tags is the whole set: keys it
does not list are deleted, except `aws:`-prefixed ones, which AWS reserves and sets itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_hyperpod.plans.model import Step
from pulumi_hyperpod.aws.planner.codes import StepReason

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.spec import ClusterSpec

BATCH = 50  # AddTags Tags and DeleteTags TagKeys: at most 50 (the model's max)


def tag_steps(desired: ClusterSpec, observed: ClusterState) -> tuple[list[Step], list[str]]:
    """(steps, notes) taking the cluster's tags to the spec's."""
    if desired.tags is None:
        return [], []
    if observed.tags is None:
        return [], [
            f"Tags: the cluster's tags were not read (no ListTags: an offline snapshot), so the spec's "
            f"{len(desired.tags)} tag(s) are not compared; plan against the cluster to see their changes"
        ]
    have = dict(observed.tags)
    want = {tag.key: tag.value for tag in desired.tags}
    added = [(key, value) for key, value in want.items() if have.get(key) != value]
    removed = sorted(key for key in have if key not in want and not key.lower().startswith("aws:"))
    steps = []
    for start in range(0, len(added), BATCH):
        chunk = added[start : start + BATCH]
        reasons = tuple(f"tag {key}: {have[key]!r} → {value!r}" if key in have else f"tag {key} = {value!r} added" for key, value in chunk)
        steps.append(
            Step(
                "AddTags",
                {"ResourceArn": observed.arn, "Tags": [{"Key": k, "Value": v} for k, v in chunk]},
                reasons,
                kind="tag",
                codes=(StepReason.TAGS_DIFFER,),
            )
        )
    for start in range(0, len(removed), BATCH):
        chunk = removed[start : start + BATCH]
        steps.append(
            Step(
                "DeleteTags",
                {"ResourceArn": observed.arn, "TagKeys": chunk},
                tuple(f"tag {key} removed (the spec's Tags do not list it)" for key in chunk),
                kind="untag",
                codes=(StepReason.TAGS_DIFFER,),
            )
        )
    return steps, []
