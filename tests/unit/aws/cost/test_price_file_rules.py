"""$HYPERPOD_PRICES (and any price file) is read by the one reader: YAML 1.2 (`010` is refused as
ambiguous, `1:20` and `1_000` are text, not 80 and 1000), regular files only, size and depth
limits; every error names the variable and the file, and the CLI prints it as one line."""

from __future__ import annotations

import os

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.aws.cost import PRICES_ENV, PriceTableError, default_prices, load_prices
from tests.support.cli import SPECS, use_fake_world


@pytest.fixture(autouse=True)
def _fresh(monkeypatch):
    monkeypatch.delenv(PRICES_ENV, raising=False)
    from pulumi_hyperpod.aws.cost import prices

    prices._defaults.cache_clear()
    yield
    prices._defaults.cache_clear()


@pytest.mark.parametrize(
    "value, rule",
    [
        ("010", "ambiguous"),
        ("1:20", "a number of USD per hour"),
        ("1_000", "a number of USD per hour"),
        ("0b11", "a number of USD per hour"),
    ],
)
def test_yaml_1_1_numbers_are_not_read_as_numbers(tmp_path, monkeypatch, value, rule):
    path = tmp_path / "prices.yaml"
    path.write_text(f"ml.p5.48xlarge: {value}\n")
    monkeypatch.setenv(PRICES_ENV, str(path))

    with pytest.raises(PriceTableError) as raised:
        default_prices()

    assert PRICES_ENV in str(raised.value) and str(path) in str(raised.value) and rule in str(raised.value)


def test_yaml_1_2_numbers_still_are(tmp_path):
    path = tmp_path / "prices.yaml"
    path.write_text("ml.p5.48xlarge: 10\nml.p4d.24xlarge: 1.5e1\n")
    table = load_prices(path=path)
    assert table.per_hour("ml.p5.48xlarge", "us-west-2") == 10 and table.per_hour("ml.p4d.24xlarge", "us-west-2") == 15


def _special(tmp_path, kind: str) -> str:
    if kind == "directory":
        return str(tmp_path)
    if kind == "fifo":
        os.mkfifo(tmp_path / "prices.yaml")
        return str(tmp_path / "prices.yaml")
    if kind == "dev-zero":
        (tmp_path / "prices.yaml").symlink_to("/dev/zero")
        return str(tmp_path / "prices.yaml")
    (tmp_path / "prices.json").write_text("[" * 50_000 + "]" * 50_000)
    return str(tmp_path / "prices.json")


@pytest.mark.parametrize("kind", ["directory", "fifo", "dev-zero", "deep"])
def test_what_is_not_a_price_file_is_one_error_naming_the_variable(tmp_path, monkeypatch, kind):
    monkeypatch.setenv(PRICES_ENV, _special(tmp_path, kind))

    with pytest.raises(PriceTableError, match=PRICES_ENV):
        default_prices()


def test_the_cli_prints_one_line_naming_the_variable(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    (tmp_path / "prices.yaml").write_text("ml.p5.48xlarge: 010\n")
    monkeypatch.setenv(PRICES_ENV, str(tmp_path / "prices.yaml"))

    result = CliRunner().invoke(main, ["--backend", "fake", "plan", "-f", str(SPECS / "seed000-create-cluster.json")])

    assert result.exit_code == 1 and "Traceback" not in result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert PRICES_ENV in line and "ambiguous" in line
