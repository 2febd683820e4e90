"""The one place the package still builds on botocore internals: the service's rules
(aws/servicerules.py) extend botocore's `ParamValidator`, whose per-type checks are private methods
with no public hook. pyproject.toml pins botocore below its next major; this test fails when a
botocore release renames or reshapes a method the rules override, instead of the rules silently
falling back to botocore's own (weaker) checks. The other seams (the model cache, the clients) use
public API only (tests/unit/provider/test_model_cache.py)."""

from __future__ import annotations

import inspect

import pytest
from botocore.validate import ParamValidator, ValidationErrors

from pulumi_hyperpod.aws.servicerules import _Report, _ServiceRules

BOTOCORE_PRIVATE = {
    name for name in vars(_ServiceRules) if name.startswith("_") and not name.startswith("__") and hasattr(ParamValidator, name)
}


def test_the_rules_override_the_private_checks_they_are_written_for():
    assert BOTOCORE_PRIVATE == {
        "_validate",
        "_validate_structure",
        "_validate_string",
        "_validate_timestamp",
        "_validate_integer",
        "_validate_double",
        "_validate_float",
        "_validate_long",
        "_validate_list",
        "_validate_map",
    }


@pytest.mark.parametrize("name", sorted(BOTOCORE_PRIVATE))
def test_each_private_check_keeps_its_signature(name):
    def shape(cls) -> list:
        return [parameter.kind for parameter in inspect.signature(getattr(cls, name)).parameters.values()]

    assert shape(ParamValidator) == shape(_ServiceRules) and len(shape(ParamValidator)) == 5  # self, value, shape, errors, name


def test_every_private_check_of_botocore_is_still_overridden():
    """A check botocore adds (a new shape type) would run unextended: the list above must grow."""
    checks = {name for name in dir(ParamValidator) if name.startswith("_validate")}
    assert checks - BOTOCORE_PRIVATE <= {"_validate_boolean", "_validate_blob", "_validate_document", "_validate_jsonvalue_string"}


def test_the_report_keeps_botocores_collector_interface():
    def kinds(cls) -> list:
        return [parameter.kind for parameter in inspect.signature(cls.report).parameters.values()]

    assert kinds(ValidationErrors) == kinds(_Report)
