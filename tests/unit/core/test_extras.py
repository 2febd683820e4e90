"""core/extras.py: the absence of an extra's library becomes the one line naming the extra; any
other import failure is raised as it is."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.core.extras import EXTRAS, MissingExtra, needed
from pulumi_hyperpod.core.messages import render


def test_a_missing_module_of_the_extra_names_the_extra_and_renders_as_one_line() -> None:
    with pytest.raises(MissingExtra) as caught, needed("eks"):
        raise ModuleNotFoundError("No module named 'kubernetes.client'", name="kubernetes.client")
    assert str(caught.value) == "EKS workloads need the 'eks' extra: pip install 'pulumi-hyperpod[eks]'"
    assert caught.value.__cause__ is None and caught.value.__suppress_context__
    rendered = render(caught.value)
    assert rendered is not None and rendered.lines == (str(caught.value),) and rendered.exit_code == 1


def test_another_missing_module_is_not_blamed_on_the_extra() -> None:
    with pytest.raises(ModuleNotFoundError) as caught, needed("gcp"):
        raise ModuleNotFoundError("No module named 'google.protobuf'", name="google.protobuf")
    assert not isinstance(caught.value, MissingExtra)
    with pytest.raises(ImportError, match="cannot import name") as broken, needed("eks"):
        raise ImportError("cannot import name 'client' from 'kubernetes'", name="kubernetes")
    assert not isinstance(broken.value, MissingExtra)


def test_every_extra_named_here_is_one_pyproject_declares() -> None:
    import tomllib

    from tests.support.paths import REPO

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert set(EXTRAS) <= set(declared)
    with pytest.raises(KeyError, match="no extra 'ek'"), needed("ek"):
        pass
