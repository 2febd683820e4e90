"""The price table: what ships, how a user's numbers go over it, and what is refused."""

from __future__ import annotations

import re

import pytest
import yaml

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.aws.cost import PRICES_ENV, PriceTable, PriceTableError, as_price_table, default_prices, load_prices, shipped_prices
from pulumi_hyperpod.aws.cost.prices import _defaults


@pytest.fixture(autouse=True)
def no_user_prices(monkeypatch):
    monkeypatch.delenv(PRICES_ENV, raising=False)
    _defaults.cache_clear()
    yield
    _defaults.cache_clear()


def shipped_data() -> dict:
    from importlib import resources

    return yaml.safe_load(resources.files("pulumi_hyperpod").joinpath("data/prices.yaml").read_text())


def test_shipped_table_prices_hyperpod_types_with_a_named_source_and_date():
    data = shipped_data()
    assert data["currency"] == "USD" and data["checked"]
    hyperpod_types = set(servicemodel.enum("ClusterInstanceGroupSpecification", "InstanceType"))
    assert set(data["prices"]) <= hyperpod_types, "every shipped type is one HyperPod accepts"
    assert len(data["prices"]) >= 30
    for name, entry in data["prices"].items():
        assert entry["source"] in data["sources"], name
        assert entry["usd"] > 0, f"{name}: a shipped price is never zero"


def test_a_type_without_a_price_is_unknown_not_zero():
    table = shipped_prices()
    assert table.per_hour("ml.p5.48xlarge", "us-west-2") == pytest.approx(63.296)
    assert table.per_hour("ml.p5.48xlarge", "us-east-1") == pytest.approx(63.296)
    assert table.per_hour("ml.trn1.32xlarge", "us-west-2") is None
    assert table.per_hour("ml.p5.48xlarge", "eu-west-1") is None, "list prices are stated for us-east-1/us-west-2 only"
    assert table.price("ml.p4d.24xlarge", "us-west-2").source == "hyperpod-cluster-price-list"


def test_a_dict_goes_over_the_shipped_table_flat_or_per_region():
    table = as_price_table({"ml.p5.48xlarge": 55.0, "ml.trn1.32xlarge": 0, "regions": {"eu-west-1": {"ml.g5.xlarge": 1.6}}})
    assert table.per_hour("ml.p5.48xlarge", "us-west-2") == 55.0
    assert table.per_hour("ml.p5.48xlarge", "eu-west-1") == 55.0, "a flat override is the user's price everywhere"
    assert table.per_hour("ml.trn1.32xlarge", "us-west-2") == 0.0, "a zero the user wrote is kept"
    assert table.per_hour("ml.g5.xlarge", "eu-west-1") == 1.6
    assert table.per_hour("ml.g5.xlarge", "us-west-2") == pytest.approx(1.41)
    assert table.price("ml.p5.48xlarge", "us-west-2").source == "override"
    assert "prices setting" in table.describe()


def test_a_file_named_by_the_environment_goes_over_the_shipped_table(tmp_path, monkeypatch):
    path = tmp_path / "prices.yaml"
    path.write_text("prices:\n  ml.p5.48xlarge: {usd: 50.0, source: EDP rate}\nregions:\n  eu-west-1:\n    ml.p5.48xlarge: 60\n")
    monkeypatch.setenv(PRICES_ENV, str(path))
    table = default_prices()
    assert table.per_hour("ml.p5.48xlarge", "us-west-2") == 50.0
    assert table.per_hour("ml.p5.48xlarge", "eu-west-1") == 60.0
    assert table.price("ml.p5.48xlarge", "us-west-2").source == "EDP rate"
    assert str(path) in table.describe()
    # then a dict over both: the provider's stack setting wins
    assert load_prices(overrides={"ml.p5.48xlarge": 45}).per_hour("ml.p5.48xlarge", "us-west-2") == 45.0


def test_an_explicit_file_path(tmp_path):
    path = tmp_path / "mine.json"
    path.write_text('{"ml.trn1.32xlarge": 21.5}')
    assert load_prices(path=path).per_hour("ml.trn1.32xlarge", "us-west-2") == 21.5
    assert as_price_table(str(path)).per_hour("ml.trn1.32xlarge", "ap-northeast-1") == 21.5


@pytest.mark.parametrize(
    "data, message",
    [
        ({"p5.48xlarge": 55}, "did you mean ml.p5.48xlarge"),
        ({"ml.p5.48xlarge": -1}, "0 or more"),
        ({"ml.p5.48xlarge": "cheap"}, "a number of USD per hour"),
        ({"ml.p5.48xlarge": True}, "a number of USD per hour"),
        ({"ml.p5.48xlarge": float("nan")}, "a number of USD per hour"),
        ({"currency": "EUR", "ml.p5.48xlarge": 50}, "only USD"),
        ({"price": {"ml.p5.48xlarge": 50}}, "unknown key 'price'"),
        ({"regions": {"eu-west-1": {"ml.p5.48xlarge": -3}}}, "regions.eu-west-1.ml.p5.48xlarge"),
        (["ml.p5.48xlarge"], "a mapping"),
    ],
)
def test_bad_prices_are_refused_with_where_and_why(data, message):
    with pytest.raises(PriceTableError, match=message.replace(".", r"\.").replace("(", r"\(")):
        PriceTable.from_data(data)


def test_an_unreadable_file_says_which(tmp_path):
    with pytest.raises(PriceTableError, match="cannot read"):
        load_prices(path=tmp_path / "missing.yaml")
    bad = tmp_path / "bad.yaml"
    bad.write_text("ml.p5.48xlarge: [unclosed\n")
    with pytest.raises(PriceTableError, match=re.escape("bad.yaml: not valid YAML")):
        load_prices(path=bad)
