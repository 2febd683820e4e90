"""A Google Cloud plan names the Google Cloud price file: where its prices came from, and how to add
a missing one ($HYPERPOD_GCP_PRICES, not HyperPod's $HYPERPOD_PRICES)."""

from __future__ import annotations

import json

from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from tests.support.cli import use_fake_world

from tests.support.gcp import EXAMPLE


def plan_output(tmp_path, monkeypatch, machine_type: str) -> str:
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("COLUMNS", "200")
    doc = json.loads(EXAMPLE.read_text())
    doc["node_pools"][-1]["machine_spec"]["machine_type"] = machine_type
    (tmp_path / "c.json").write_text(json.dumps(doc))
    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", "plan", "-f", str(tmp_path / "c.json")])
    assert result.exit_code == 0, result.output
    return result.output


def test_an_unknown_price_points_at_the_google_cloud_price_file(tmp_path, monkeypatch):
    output = plan_output(tmp_path, monkeypatch, "a3-megagpu-8g")
    assert "price unknown: a3-megagpu-8g" in output and "(add it with a $HYPERPOD_GCP_PRICES file)" in output
    assert "$HYPERPOD_PRICES " not in output


def test_the_prices_line_names_the_override_file(tmp_path, monkeypatch):
    prices = tmp_path / "mine.yaml"
    prices.write_text("on_demand:\n  a3-megagpu-8g: 88.5\n")
    monkeypatch.setenv("HYPERPOD_GCP_PRICES", str(prices))
    output = plan_output(tmp_path, monkeypatch, "a3-megagpu-8g")
    assert "price unknown" not in output
    assert f"+ {prices} ($HYPERPOD_GCP_PRICES)" in output.replace("\n", "")
