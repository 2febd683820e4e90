"""`modelpatterns.fullmatch` answers as `regex.fullmatch` does, for every pattern of botocore's
sagemaker model (issue 30: `re` on the fast path, `regex` only where the two may differ)."""

from __future__ import annotations

import re
import warnings

import pytest
import regex
from botocore.loaders import Loader
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pulumi_hyperpod.aws import modelpatterns
from pulumi_hyperpod.aws.modelpatterns import fullmatch


def _patterns() -> list[str]:
    model = Loader().load_service_model("sagemaker", "service-2")
    return sorted({shape["pattern"] for shape in model["shapes"].values() if "pattern" in shape})


PATTERNS = _patterns()
PRINTABLE_ASCII = "".join(map(chr, range(0x20, 0x7F)))
# Short values: a few of the model's patterns backtrack exponentially in both engines (e.g.
# `[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}?`, about 1 s at 24 characters that do not match).
MAX_SIZE = 16
SETTINGS = settings(max_examples=10, derandomize=True, deadline=None, suppress_health_check=list(HealthCheck))


def _answer(match, pattern: str, value: str) -> object:
    """The answer, or the error a pattern neither engine reads gives (the model has one: a
    surrogate range `regex` refuses, as it did before the fast path)."""
    try:
        return bool(match(pattern, value))
    except regex.error as error:
        return str(error)


def _same_answer(pattern: str, value: str) -> None:
    assert _answer(fullmatch, pattern, value) == _answer(regex.fullmatch, pattern, value), (pattern, value)


def test_the_model_has_patterns_of_both_kinds():
    """The fast path is taken for the plain patterns and for the Tag patterns' \\p{L} classes; the
    test below would hold trivially if every pattern went to `regex`."""
    fast = [p for p in PATTERNS if modelpatterns._ascii_compiled(p) is not None]
    assert len(PATTERNS) > 200 and len(fast) >= len(PATTERNS) - 10
    assert r"([\p{L}\p{Z}\p{N}_.:/=+\-@]*)" in fast
    assert r"[\p{L}\p{M}\p{Z}\p{S}\p{N}\p{P}]*" not in fast  # \p{M} has no ASCII member


def test_no_fast_form_makes_re_warn():
    """A warning from `re` marks syntax `regex` may read otherwise; the fast path never meets one."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for pattern in PATTERNS:
            rewritten = modelpatterns._ascii_form(pattern)
            if modelpatterns._ascii_compiled(pattern) is not None and rewritten is not None:
                re.purge()  # compiled afresh, so a warning is not hidden by re's cache
                re.compile(rewritten)


@pytest.mark.parametrize("name", sorted(modelpatterns._ASCII_MEMBERS))
def test_each_class_s_ascii_members_are_regex_s(name):
    members = "".join(c for c in PRINTABLE_ASCII if regex.fullmatch(rf"\p{{{name}}}", c))
    assert modelpatterns._ASCII_MEMBERS[name] == members


@pytest.mark.parametrize("pattern", PATTERNS)
def test_every_single_character_gets_regex_s_answer(pattern):
    # printable ASCII, and the characters where `re` and `regex` are known to read \s, \w, \d apart
    for char in PRINTABLE_ASCII + "\t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\xa0\u00e9\u00b2\u0660\u2028\u3000":
        _same_answer(pattern, char)
        _same_answer(pattern, "a" + char)


@pytest.mark.parametrize("pattern", PATTERNS)
@SETTINGS
@given(value=st.text(alphabet=PRINTABLE_ASCII, max_size=MAX_SIZE))
def test_printable_ascii_values_get_regex_s_answer(pattern, value):
    _same_answer(pattern, value)


def _generating_form(pattern: str) -> re.Pattern[str] | None:
    """What hypothesis generates values from: the pattern, or its ASCII form, in `re`; hypothesis
    cannot satisfy lookarounds, so they are left out (the values then may or may not match: both
    answers are compared). None for the few patterns `re` cannot read in either form."""
    source = re.sub(r"\(\?<?[=!][^()]*\)", "", modelpatterns._ascii_form(pattern) or pattern)
    try:
        return re.compile(source)
    except re.error:
        return None


GENERATED = [p for p in PATTERNS if _generating_form(p) is not None]


def test_values_can_be_generated_for_nearly_every_pattern():
    assert len(GENERATED) >= len(PATTERNS) - 10


@pytest.mark.parametrize("pattern", GENERATED)
@SETTINGS
@given(data=st.data())
def test_values_made_from_the_pattern_get_regex_s_answer(pattern, data):
    value = data.draw(st.from_regex(_generating_form(pattern), fullmatch=True))
    _same_answer(pattern, value)


@pytest.mark.parametrize("pattern", PATTERNS)
@SETTINGS
@given(value=st.text(max_size=MAX_SIZE))
def test_arbitrary_unicode_gets_regex_s_answer(pattern, value):
    _same_answer(pattern, value)


@pytest.mark.parametrize(
    "pattern",
    [
        r"[[:alpha:]]+",  # a POSIX class: `regex` reads it, `re` a nested set
        r"(?:ab){e<=1}",  # a fuzzy constraint: `regex` matches "ax", `re` reads a literal
        r"[a-z--q]+",  # set operations (`regex` V1 only; `re` warns)
        r"[a-z&&q]+",
        r"[a-z||q]+",
        r"[a-z~~q]+",
        r"\p{L}+",  # a class outside a set
        r"(?i)[a-z]+",  # an inline flag
        r"[\P{L}]+",
    ],
)
@SETTINGS
@given(value=st.text(alphabet=PRINTABLE_ASCII, max_size=12))
def test_syntax_the_engines_read_apart_goes_to_regex(pattern, value):
    assert modelpatterns._ascii_compiled(pattern) is None
    _same_answer(pattern, value)
