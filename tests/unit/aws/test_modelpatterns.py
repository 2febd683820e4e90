"""The model's patterns are matched as the third-party `regex` module reads them (the model is
written for an engine with `\\p{L}`-style classes): the service rules' verdict on a value is
`regex.fullmatch`'s, including where the standard library's `re` reads the pattern otherwise."""

from __future__ import annotations

import re

import pytest
import regex
from botocore.loaders import Loader

from pulumi_hyperpod.aws.servicemodel import violations  # the service rules (servicerules.py), on the shape it names

# CreateCluster's Tags[].Value: the model's tag value pattern, with \p{...} classes
TAG_PATTERN = r"([\p{L}\p{Z}\p{N}_.:/=+\-@]*)"


def _tag(value: str) -> list[str]:
    found = violations("Tag", {"Key": "team", "Value": value})
    return [violation.rule for violation in found]


def test_the_tag_pattern_is_the_model_s_and_re_cannot_read_it():
    model = Loader().load_service_model("sagemaker", "service-2")
    assert model["shapes"]["TagValue"]["pattern"] == TAG_PATTERN
    with pytest.raises(re.error):
        re.compile(TAG_PATTERN)  # `re` knows no \p{L}: matching there would need a translation


@pytest.mark.parametrize("value", ["ml platform/a+b=c@d", "Zürich 東京", "équipe", "٣ ²", ""])
def test_values_regex_accepts_are_accepted(value):
    assert regex.fullmatch(TAG_PATTERN, value) and _tag(value) == []


@pytest.mark.parametrize("value", ["team!", "équipe!", "a\tb", "a\u0301!"])
def test_values_regex_refuses_are_refused_in_one_rule(value):
    assert not regex.fullmatch(TAG_PATTERN, value)
    assert _tag(value) == [f"{value!r} does not match the pattern {TAG_PATTERN}"]


def test_a_digit_re_and_regex_read_apart_gets_regex_s_answer():
    """\\p{N} takes superscript two (U+00B2), which `re`'s \\d does not; the verdict is regex's."""
    assert re.fullmatch(r"\d", "\u00b2") is None and regex.fullmatch(r"\p{N}", "\u00b2")
    assert _tag("\u00b2") == []
