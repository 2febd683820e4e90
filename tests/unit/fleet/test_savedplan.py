"""A saved fleet plan (pulumi_hyperpod/fleet/savedplan.py): the file's format (the fleet plan, the
pinned plans, the fleet file's digest, the integrity hash), what it refuses on load (another fleet
file, an edit, another version, not a saved fleet plan), the pin comparison against a stack's fresh
plans and the cluster as it is now, and the pinned plans handed to each stack's `up`. Real plans:
`hyperpod plan --json` on a simulated world."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from pulumi_hyperpod import connect, observe
from pulumi_hyperpod.cli import main
from pulumi_hyperpod.core.planfile import digest
from pulumi_hyperpod.fleet import savedplan
from pulumi_hyperpod.fleet.savedplan import FleetPlanError
from pulumi_hyperpod.fleet.spec import parse_fleet
from pulumi_hyperpod.fleet.summary import StackPlans, fleet_plan
from pulumi_hyperpod.core.plandir import PINNED_DIR_ENV
from tests.support.paths import REPO

SPECS = REPO / "examples" / "specs"
FLEET = "stacks:\n  - {name: east, project: p, stack: east, region: us-west-2, backend: fake}\n"


def hyperpod(*args):
    result = CliRunner().invoke(main, ["--backend", "fake", *args])
    assert result.exit_code in (0, 3), result.output
    return result.stdout


@pytest.fixture
def world(tmp_path, monkeypatch):
    """A simulated cluster (seed004: 1 compute node) and the plan that scales it out, as its preview shows it."""
    monkeypatch.setenv("HYPERPOD_FAKE_STATE", str(tmp_path / "fake.sqlite"))
    hyperpod("apply", "-f", str(SPECS / "seed004-initial.json"), "--yes")
    scale_out = json.loads(hyperpod("plan", "-f", str(SPECS / "seed004-scale-out.json"), "--json"))
    fleet_file = tmp_path / "fleet.yaml"
    fleet_file.write_text(FLEET)
    return fleet_file, scale_out


def now(stack, name):
    return observe(connect(backend="fake"), name)


def saved(tmp_path, fleet_file, plans):
    stacks = [StackPlans("east", None, "us-west-2", tuple(plans))]
    path = tmp_path / "fleet-plan.json"
    savedplan.save(path, fleet_plan(stacks), stacks, fleet_file)
    return path


def test_the_file_is_the_fleet_plan_with_the_pinned_plans_sealed(tmp_path, world):
    fleet_file, scale_out = world
    path = saved(tmp_path, fleet_file, [scale_out])
    data = json.loads(path.read_text())
    assert data["format"] == "hyperpod-fleet-plan/1" and data["stacks"][0]["clusters"][0]["cluster"] == scale_out["cluster_name"]
    assert data["pinned"]["fleet_file"] == "fleet.yaml" and data["pinned"]["fleet_digest"].startswith("sha256:")
    assert data["pinned"]["stacks"] == [{"stack": "east", "plans": [scale_out]}]
    assert data["integrity"] == digest({k: v for k, v in data.items() if k != "integrity"})
    assert savedplan.load(path, fleet_file) == {"east": [scale_out]}


def test_the_same_plan_on_the_same_cluster_holds(tmp_path, world):
    fleet_file, scale_out = world
    pinned = savedplan.load(saved(tmp_path, fleet_file, [scale_out]), fleet_file)
    stacks = parse_fleet({"stacks": [{"name": "east", "project": "p", "stack": "east", "region": "us-west-2"}]}, "f").stacks
    assert savedplan.refusals(pinned, [StackPlans("east", None, "us-west-2", (scale_out,))], stacks, now) == []


def test_a_cluster_moved_since_and_another_plan_are_refused_naming_stack_and_cluster(tmp_path, world):
    fleet_file, scale_out = world
    name = scale_out["cluster_name"]
    pinned = savedplan.load(saved(tmp_path, fleet_file, [scale_out]), fleet_file)
    stacks = parse_fleet({"stacks": [{"name": "east", "project": "p", "stack": "east", "region": "us-west-2"}]}, "f").stacks
    scale_in = json.loads(hyperpod("plan", "-f", str(SPECS / "seed004-scale-in.json"), "--json"))
    (line,) = savedplan.refusals(pinned, [StackPlans("east", None, "us-west-2", (scale_in,))], stacks, now)
    assert line.startswith(f"stack east, cluster {name}: its preview now makes another plan than the pinned one: its action is ")
    hyperpod("apply", "-f", str(SPECS / "seed004-scale-out.json"), "--yes")  # another writer applies first
    (line,) = savedplan.refusals(pinned, [StackPlans("east", None, "us-west-2", (scale_out,))], stacks, now)
    assert line.startswith(f"stack east, cluster {name}: the cluster moved since the plan was made: ")


def test_clusters_and_stacks_pinned_or_not_are_named(tmp_path, world):
    fleet_file, scale_out = world
    pinned = savedplan.load(saved(tmp_path, fleet_file, [scale_out]), fleet_file)
    spec = {"project": "p", "region": "us-west-2"}
    stacks = parse_fleet({"stacks": [{"name": n, "stack": n, **spec} for n in ("east", "north")]}, "f").stacks
    other = {**scale_out, "cluster_name": "other"}
    lines = savedplan.refusals(pinned, [StackPlans("east", None, "us-west-2", (other,))], stacks, now)
    assert lines == [
        f"stack east, cluster {scale_out['cluster_name']}: pinned, but its preview now shows no plan of it",
        "stack east, cluster other: its preview now shows a plan (update) the saved fleet plan does not pin",
        "stack north: not in the saved fleet plan",
    ]


@pytest.mark.parametrize(
    ("change", "field", "rule"),
    [
        (lambda d: d.update(stacks=[]), "integrity", "the file was changed after it was saved"),
        (lambda d: d["pinned"].update(tool_version="0.0.0"), "integrity", "the file was changed after it was saved"),
        (lambda d: d.update(format="hyperpod-plan/3"), "format", "'hyperpod-plan/3' is not a saved fleet plan"),
        (lambda d: d.pop("pinned"), "pinned", "the fleet plan pins no plan"),
    ],
)
def test_an_edited_or_foreign_file_is_one_line_naming_the_field(tmp_path, world, change, field, rule):
    fleet_file, scale_out = world
    path = saved(tmp_path, fleet_file, [scale_out])
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    with pytest.raises(FleetPlanError) as refused:
        savedplan.load(path, fleet_file)
    (line,) = refused.value.lines()
    assert line.startswith(f"{path}: {field}: {rule}")


def test_another_version_and_another_fleet_file_are_refused(tmp_path, world):
    fleet_file, scale_out = world
    path = saved(tmp_path, fleet_file, [scale_out])
    data = json.loads(path.read_text())
    data["pinned"]["tool_version"] = "0.0.0"
    body = {k: v for k, v in data.items() if k != "integrity"}
    path.write_text(json.dumps({**body, "integrity": digest(body)}))
    with pytest.raises(FleetPlanError, match=r"pinned\.tool_version: made by pulumi-hyperpod 0\.0\.0, this is "):
        savedplan.load(path, fleet_file)
    path = saved(tmp_path, fleet_file, [scale_out])
    fleet_file.write_text(FLEET + "  - {name: west, project: p, stack: west, region: us-west-2}\n")
    with pytest.raises(FleetPlanError, match=r"pinned\.fleet_digest: made from the fleet file 'fleet\.yaml' as it was then"):
        savedplan.load(path, fleet_file)


def test_pin_writes_the_plans_and_names_the_directory_in_the_stacks_env(tmp_path, world):
    _, scale_out = world
    (stack,) = parse_fleet(
        {"stacks": [{"name": "east", "project": "p", "stack": "east", "region": "us-west-2", "env": {"A": "b"}}]}, "f"
    ).stacks
    pinned = savedplan.pin(stack, [scale_out], tmp_path / "pins")
    assert pinned.env == {"A": "b", PINNED_DIR_ENV: str(tmp_path / "pins")}
    (written,) = (tmp_path / "pins").iterdir()
    assert json.loads(written.read_text()) == scale_out and written.name == f"{scale_out['cluster_name']}.json"
