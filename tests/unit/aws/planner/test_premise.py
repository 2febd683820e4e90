"""Every premise a step kind declares (plans/steps.py) has a reader in each cloud whose planner makes
that kind: the saved-plan check can re-read all of them (aws/planner/premise.py, gcp/planner/build.py)."""

from __future__ import annotations

import re

import pytest

from pulumi_hyperpod.aws.planner.premise import READERS as AWS_READERS
from pulumi_hyperpod.gcp.planner.build import PREMISE_READERS as GCP_READERS
from pulumi_hyperpod.plans import steps
from tests.support.paths import PACKAGE

KIND = re.compile(r'kind=f?"([a-z{}-]+)"')


def made_by(*places: str) -> set[str]:
    """The step kinds a cloud's code builds Steps of (a formatted kind: every declared kind it can be)."""
    found: set[str] = set()
    for place in places:
        for path in sorted((PACKAGE / place).rglob("*.py")) if (PACKAGE / place).is_dir() else [PACKAGE / place]:
            for kind in KIND.findall(path.read_text()):
                if "{" in kind:
                    pattern = re.compile("^" + re.sub(r"\{[^}]*\}", "[a-z]+", kind) + "$")
                    found |= {k for k in steps.KINDS if pattern.match(k)}
                else:
                    found.add(kind)
    return found


CLOUDS = {
    "aws": (made_by("aws/planner"), AWS_READERS),
    "gcp": (made_by("gcp/planner/__init__.py"), GCP_READERS),
}


@pytest.mark.parametrize("cloud", sorted(CLOUDS))
def test_every_premise_of_every_kind_a_cloud_makes_has_a_reader(cloud: str) -> None:
    kinds, readers = CLOUDS[cloud]
    assert kinds, f"{cloud}: no step kind found in its planner"
    assert kinds <= set(steps.KINDS), f"{cloud} makes kinds plans/steps.py does not declare: {kinds - set(steps.KINDS)}"
    for kind in sorted(kinds):
        missing = set(steps.KINDS[kind].premise) - set(readers)
        assert not missing, f"{cloud}: {kind} declares premise(s) {sorted(missing)} with no reader"


def test_readers_are_named_by_premises_only() -> None:
    for cloud, (_, readers) in CLOUDS.items():
        assert set(readers) <= set(steps.PREMISES), f"{cloud}: a reader for no premise {set(readers) - set(steps.PREMISES)}"


def test_the_aws_planner_makes_the_lifecycle_kinds_too() -> None:
    assert {"reboot-nodes", "replace-nodes", "update-software", "drain", "remove-nodes"} <= CLOUDS["aws"][0]


def test_work_that_ended_on_a_victim_is_no_harm_and_work_that_landed_is() -> None:
    from pulumi_hyperpod.aws.planner.premise import _landed

    assert not _landed("job 1,job 2", "job 1") and not _landed("job 1", "idle") and not _landed("idle", "idle")
    assert _landed("idle", "job 7") and _landed("job 1", "job 1,job 7") and _landed("not seen", "pod ns/web")
