"""A provider's `check` matches the model's patterns through `regex`, on ASCII and non-ASCII values
alike, with one wording for a refusal. In a fresh process, as the provider's `check` runs."""

from __future__ import annotations

import json

import pytest

from tests.support.fresh import run_fresh
from tests.support.provider_specs import slurm_spec

CHECK = """
import json, sys
from pulumi_hyperpod.provider.provider import ClusterProvider
olds, news = json.loads(sys.stdin.read())
result = ClusterProvider().check(olds, news)
print(json.dumps({"failures": [[f.property, f.reason] for f in result.failures]}))
"""
TAG_PATTERN = r"([\p{L}\p{Z}\p{N}_.:/=+\-@]*)"


@pytest.fixture(autouse=True)
def own_world(monkeypatch, tmp_path):
    """A new resource's check reads the simulated world for its name (the create's preview): this
    test's own, in this process and in the fresh one, never the repository's."""
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(tmp_path / "fake.sqlite"))


def fresh_check(tags: list[dict] | None) -> dict:
    spec = slurm_spec(workers=2)
    if tags is not None:
        spec["Tags"] = tags
    return json.loads(run_fresh(CHECK, json.dumps([{}, {"spec": spec, "backend": "fake"}])))


@pytest.mark.parametrize("tags", [None, [{"Key": "team", "Value": "ml platform/a+b=c@d"}]], ids=["demo", "ascii-tag"])
def test_a_check_of_printable_ascii_values_passes(tags):
    assert fresh_check(tags) == {"failures": []}


def test_a_tag_with_a_non_ascii_letter_is_accepted():
    assert fresh_check([{"Key": "équipe", "Value": "Zürich 東京"}]) == {"failures": []}


@pytest.mark.parametrize("value", ["équipe!", "team!"])
def test_a_tag_value_outside_the_pattern_is_refused_as_before(value):
    # "!" is in neither \p{L}, \p{Z} nor \p{N}: refused on either path, in the same words
    result = fresh_check([{"Key": "team", "Value": value}])
    assert result["failures"] == [["spec.Tags[0].Value", f"{value!r} does not match the pattern {TAG_PATTERN}"]]
