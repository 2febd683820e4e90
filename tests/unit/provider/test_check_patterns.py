"""A provider's `check` matches the model's patterns without the `regex` module when every value is
printable ASCII on a plain pattern (issue 30: `aws/modelpatterns.py`), and still through `regex`,
with the same verdicts and wording, when a value is not. Checked in a fresh process by `sys.modules`."""

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
print(json.dumps({"failures": [[f.property, f.reason] for f in result.failures], "regex": "regex" in sys.modules}))
"""
TAG_PATTERN = r"([\p{L}\p{Z}\p{N}_.:/=+\-@]*)"


def fresh_check(tags: list[dict] | None) -> dict:
    spec = slurm_spec(workers=2)
    if tags is not None:
        spec["Tags"] = tags
    return json.loads(run_fresh(CHECK, json.dumps([{}, {"spec": spec, "backend": "fake"}])))


@pytest.mark.parametrize("tags", [None, [{"Key": "team", "Value": "ml platform/a+b=c@d"}]], ids=["demo", "ascii-tag"])
def test_a_check_of_printable_ascii_values_imports_no_regex(tags):
    assert fresh_check(tags) == {"failures": [], "regex": False}


def test_a_tag_with_a_non_ascii_letter_is_accepted_through_regex():
    assert fresh_check([{"Key": "équipe", "Value": "Zürich 東京"}]) == {"failures": [], "regex": True}


@pytest.mark.parametrize("value", ["équipe!", "team!"])
def test_a_tag_value_outside_the_pattern_is_refused_as_before(value):
    # "!" is in neither \p{L}, \p{Z} nor \p{N}: refused on either path, in the same words
    result = fresh_check([{"Key": "team", "Value": value}])
    assert result["failures"] == [["spec.Tags[0].Value", f"{value!r} does not match the pattern {TAG_PATTERN}"]]
    assert result["regex"] == (not value.isascii())
