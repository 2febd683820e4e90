"""`hyperpod timeline`'s options: `--json` alone prints the series to stdout, with no picture to write."""

from __future__ import annotations

import json

from tests.support.cli import SPECS, hyperpod, use_fake_world


def test_json_alone_prints_the_series_and_writes_nothing(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    hyperpod("apply", "-f", str(SPECS / "seed000-create-cluster.json"), "--yes", "--wait", "none")
    hyperpod("fake", "advance", "30m")
    before = set(tmp_path.iterdir())
    panels = json.loads(hyperpod("timeline", "my-training-cluster", "--json"))
    assert {panel["title"] for panel in panels} >= {"controller-group", "worker-gpu-a"}
    assert all({"points", "notes", "end_seconds"} <= set(panel) for panel in panels)
    assert set(tmp_path.iterdir()) == before  # no picture written


def test_neither_out_nor_json_is_one_line_before_any_call(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    said = hyperpod("timeline", "my-training-cluster", code=1)
    assert "--out FILE.svg|FILE.png, --json, or both" in said
    assert not (tmp_path / "fake.sqlite").exists()  # no world opened: nothing was called
