"""Issue 24, Google Cloud inputs: `--name` checked against the id pattern before it reaches a URL
(item 9), and $HYPERPOD_GCP_PRICES read bounded and checked (item 7) — each a one-line error
naming what is wrong, before any call, nothing changed."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner

from pulumi_hyperpod.cli import main
from pulumi_hyperpod.gcp.observe import observe
from tests.support.cli import use_fake_world

from tests.support.gcp import EXAMPLE, NAME

PARENT = NAME.rsplit("/", 1)[0]


def gcp(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["--backend", "fake", "gcp", *args])
    return result.exit_code, result.output


@pytest.fixture
def world(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    monkeypatch.setenv("HYPERPOD_POLL_SECONDS", "0.001")  # the simulator's clock moves per request
    monkeypatch.setenv("COLUMNS", "200")
    spec = tmp_path / "cluster.json"
    shutil.copy(EXAMPLE, spec)
    code, output = gcp("apply", "-f", str(spec), "--yes")
    assert code == 0, output
    return spec


@pytest.mark.parametrize(
    "name",
    [
        f"{PARENT}/llmtrain?x",
        f"{PARENT}/llmtrain#x",
        "llmtrain?x",
        "llmtrain#",
        f"{PARENT}/LLMTRAIN",
        "projects/my-project/locations/us-central1?a=b/modelDevelopmentClusters/llmtrain",
    ],
)
@pytest.mark.parametrize("command", [["delete", "--yes"]])
def test_a_name_off_the_id_pattern_is_refused_and_nothing_is_deleted(world, name, command):
    code, output = gcp("--project", "my-project", "--location", "us-central1", command[0], "--name", name, *command[1:])
    assert code == 1 and "error:" in output and len(output.strip().splitlines()) == 1, output
    from pulumi_hyperpod.gcp.client import connect

    assert observe(connect("fake"), NAME) is not None


@pytest.mark.parametrize("command", ["status", "snapshot"])
def test_status_and_snapshot_check_the_name_too(world, command):
    code, output = gcp(command, "--name", f"{PARENT}/llmtrain?x")
    assert code == 1 and "cluster id 'llmtrain?x' must match" in output, output


@pytest.mark.parametrize(
    "content, words",
    [
        ("on_demand:\n  n2-standard-8: -1\n", "on_demand.n2-standard-8: a price is a number of USD per node-hour, 0 or more"),
        ("- 1\n- 2\n", "a price file is a mapping"),
        ("on_demand: [1, 2]\n", "on_demand: a mapping of machine type"),
        ("on_demand:\n  n2-standard-8: {usd: cheap}\n", "on_demand.n2-standard-8"),
        ("on_demand:\n  n2-standard-8: .nan\n", "on_demand.n2-standard-8"),
        ("on_demand:\n  n2-standard-8: 010\n", "010"),
        ("{not: [yaml", "cannot"),
    ],
)
def test_a_bad_price_file_is_one_line_naming_the_variable(world, tmp_path, monkeypatch, content, words):
    prices = tmp_path / "prices.yaml"
    prices.write_text(content)
    monkeypatch.setenv("HYPERPOD_GCP_PRICES", str(prices))
    doc = json.loads(world.read_text())
    doc["node_pools"][0]["scaling_spec"] = {"min_node_count": 3, "max_node_count": 3}
    world.write_text(json.dumps(doc))
    code, output = gcp("apply", "-f", str(world), "--yes")
    assert code == 1, output
    assert "$HYPERPOD_GCP_PRICES" in output and str(prices) in output.replace("\n", "")
    assert "Traceback" not in output
    from pulumi_hyperpod.gcp.client import connect

    assert observe(connect("fake"), NAME).pool("login").target == 1  # nothing changed


def test_a_negative_price_cannot_pass_the_cost_guard(world, tmp_path, monkeypatch):
    prices = tmp_path / "prices.yaml"
    prices.write_text("on_demand:\n  n2-standard-8: -100\n")
    monkeypatch.setenv("HYPERPOD_GCP_PRICES", str(prices))
    policy = tmp_path / "policy.yaml"
    policy.write_text("max_hourly_cost_increase: 1\n")
    doc = json.loads(world.read_text())
    doc["node_pools"][0]["scaling_spec"] = {"min_node_count": 5, "max_node_count": 5}
    world.write_text(json.dumps(doc))
    code, output = gcp("apply", "-f", str(world), "--yes", "--policy", str(policy))
    assert code == 1 and "0 or more" in output


# ---- item 12: the GCP simulator's settings and --observed, one line, no traceback ------------------
@pytest.mark.parametrize(
    "variable, value, words",
    [
        ("HYPERPOD_GCP_FAKE_STATE", "/dev/null", "not a regular file"),
        ("HYPERPOD_GCP_FAKE_STATE", "{tmp}", "is a directory"),
        ("HYPERPOD_GCP_FAKE_STATE", "{tmp}/not-a-db.sqlite", "is not a simulator database"),
        ("HYPERPOD_GCP_FAKE_STATE", "{tmp}/someones.sqlite", "an SQLite database not made by the simulator"),
        ("HYPERPOD_GCP_FAKE_STATE", "{tmp}/clock.sqlite", "is where the simulators' clock goes"),
        ("HYPERPOD_GCP_FAKE_TICK", "soon", "$HYPERPOD_GCP_FAKE_TICK"),
        ("HYPERPOD_GCP_FAKE_TICK", "-5", "$HYPERPOD_GCP_FAKE_TICK"),
        ("HYPERPOD_GCP_FAKE_CAPACITY", "[1, 2]", "$HYPERPOD_GCP_FAKE_CAPACITY"),
        ("HYPERPOD_GCP_FAKE_CAPACITY", '{"a4-highgpu-8g": "many"}', "$HYPERPOD_GCP_FAKE_CAPACITY"),
    ],
)
def test_a_bad_simulator_setting_is_one_line_naming_it(tmp_path, monkeypatch, variable, value, words):
    import sqlite3

    use_fake_world(monkeypatch, tmp_path)
    (tmp_path / "not-a-db.sqlite").write_text("hello, not a database\n")
    with sqlite3.connect(tmp_path / "someones.sqlite") as db:  # someone's own database (issue 36 item 7)
        db.execute("CREATE TABLE mine (x)")
    db.close()
    gcp("status", "--name", NAME)  # the HyperPod world's clock.sqlite exists now: the GCP world may not be it
    foreign = ("not-a-db.sqlite", "someones.sqlite")
    before = {name: (tmp_path / name).read_bytes() for name in foreign}
    monkeypatch.setenv(variable, value.replace("{tmp}", str(tmp_path)))
    code, output = gcp("status", "--name", NAME)
    assert code == 1 and words in output and "Traceback" not in output, output
    assert len(output.strip().splitlines()) == 1
    assert {name: (tmp_path / name).read_bytes() for name in foreign} == before


def test_a_deeply_nested_observed_file_is_one_line(tmp_path, monkeypatch):
    use_fake_world(monkeypatch, tmp_path)
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    code, output = gcp("plan", "-f", str(EXAMPLE), "--observed", str(deep))
    assert code == 1 and str(deep) in output and "Traceback" not in output, output


@pytest.mark.parametrize(
    "project, location", [("p?x", "us-central1"), ("my-project", "us-central1#a"), ("my-project", "us-central1/modelDevelopmentClusters")]
)
def test_list_checks_project_and_location_before_the_url(tmp_path, monkeypatch, project, location):
    use_fake_world(monkeypatch, tmp_path)
    code, output = gcp("--project", project, "--location", location, "list")
    assert code == 1 and "--project/--location" in output and "Traceback" not in output, output
