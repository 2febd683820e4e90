"""`hyperpod fleet plan` / `fleet apply` with fleet moves (cli/fleet_commands.py over fleet/moves.py):
the table and its lines, the switch (`--no-moves`, `moves: false`), the quota net of the moves, and
a saved fleet plan with moves refused in one line. Previews and clusters stood in for."""

from __future__ import annotations

import json

import pytest

from pulumi_hyperpod.fleet import moves
from pulumi_hyperpod.fleet import preview

from .test_fleet_command import apply_, fleet, run  # noqa: F401 - the fixture
from .test_moves import P5, Fleet, eks


@pytest.fixture
def moving(fleet, monkeypatch):  # noqa: F811 - the fixture imported above
    """east shrinks cluster a by 2, west grows b by 2 (one account and region, EKS + Continuous), with
    1 more P5 of quota: refused as a delete and an add, it fits as a move."""
    path, results = fleet
    made = Fleet().stack("east", eks("a", 4), eks("a", 2)).stack("west", eks("b", 1), eks("b", 3))
    for stack in made.stacks:
        for document in stack.plans:
            adds = sum(g["delta"] for g in document["groups"] if g["delta"] > 0)
            check = {"quota_name": f"{P5} for cluster usage", "instance_type": P5, "quota": 6.0, "in_use": 5, "adds": adds}
            document["preflight"] = {"quotas": {"checks": [check]}}
        results[stack.stack] = {"plans": stack.plans}

    class Observer(moves.Observer):
        def __init__(self, stacks, client_for=None):
            super().__init__(stacks, client_for=lambda stack: pytest.fail("no client: the clusters are stood in for"))
            self.states = dict(made.states)

    monkeypatch.setattr(moves, "Observer", Observer)
    return path, made


def test_the_plan_shows_the_moves_and_the_quota_net_of_them(moving):
    path, made = moving
    result = run(path)
    assert result.exit_code == 0, result.output
    victims = [v["node_id"] for p in made.stacks[0].plans for s in p["steps"] for v in s["victims"]]
    assert "Nodes that would move between clusters" in result.stdout
    for node in victims:
        assert node in result.stdout
    assert f"moves 2 × {P5} moved, not released and re-requested" in result.stdout
    document = json.loads(run(path, "--json").stdout)
    assert [n["node_id"] for n in document["moves"]["moves"][0]["nodes"]] == victims and document["quotas"] == []


def test_no_moves_and_moves_false_delete_and_add_and_the_quota_refuses(moving):
    path, _ = moving
    result = run(path, "--no-moves", "--json")
    assert result.exit_code == 2 and "together add 2" in result.stderr
    assert json.loads(result.stdout)["moves"] == {"enabled": False, "moves": [], "kept": [], "cost": None, "notes": []}
    path.write_text(path.read_text() + "moves: false\n")
    result = run(path)
    assert result.exit_code == 2 and "Nodes that would move" not in result.stdout


def test_a_saved_fleet_plan_with_moves_is_refused_in_one_line(moving, tmp_path, monkeypatch):
    path, _ = moving
    saved = tmp_path / "fleet-plan.json"
    made = run(path, "--out", str(saved))
    assert made.exit_code == 0 and "note: the saved plan has fleet moves" in made.stderr
    monkeypatch.setattr(preview, "run_stack", lambda *a, **k: pytest.fail("no up for a refused saved plan"))
    monkeypatch.setattr(preview, "preview_fleet", lambda *a, **k: pytest.fail("refused before any preview"))
    result = apply_(path, "--plan", str(saved), "--yes")
    assert result.exit_code == 2
    assert result.stderr.strip().splitlines() == [
        f"refused: {saved}: the saved fleet plan moves 2 node(s) between clusters, and a saved plan's stacks apply their "
        "pinned deletes and adds as reviewed: save it with `hyperpod fleet plan FLEET --no-moves --out FILE`, or apply without --plan"
    ]
