"""The fleet file (pulumi_hyperpod/fleet/spec.py): read by the one document reader, each broken
rule one line naming the file, the field and the rule."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.fleet.spec import FleetError, check_projects, load_fleet

GOOD = """\
stacks:
  - {name: a, project: proj, stack: dev, account: "111122223333", region: us-west-2, backend: fake}
  - {name: b, project: proj, stack: prod, region: us-east-1, config: {computeCount: "3"}, env: {X: "1"}}
waves:
  - {name: canary, stacks: [a], parallelism: 1, gates: {no_error_events_minutes: 10}}
  - {name: rest, stacks: [b], parallelism: 2}
"""


def write(tmp_path, text, name="fleet.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_good_fleet_file(tmp_path):
    fleet, base = load_fleet(write(tmp_path, GOOD))
    assert [s.name for s in fleet.stacks] == ["a", "b"]
    assert fleet.stacks[0].account == "111122223333" and fleet.stacks[1].backend == "aws"
    assert fleet.stacks[1].config == {"computeCount": "3"}
    assert fleet.waves[0].gates.no_error_events_minutes == 10 and fleet.waves[1].parallelism == 2
    assert base == tmp_path.resolve()


def one_line(tmp_path, text):
    with pytest.raises(FleetError) as caught:
        load_fleet(write(tmp_path, text))
    lines = caught.value.lines()
    assert len(lines) == 1, lines
    return lines[0]


STACK = "{name: a, project: p, stack: dev, region: us-west-2}"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (f"stacks: [{STACK}]\nbogus: 1\n", "fleet.yaml: bogus: is not a known field"),
        ("stacks: [{name: a, project: p, stack: dev, region: us-west-2, colour: red}]\n", "stacks[0].colour: is not a known field"),
        (
            f"stacks: [{STACK}, {{name: b, project: p, stack: b, region: us-west-2}}]\n"
            "waves: [{name: w1, stacks: [a]}, {name: w2, stacks: [a, b]}]\n",
            "waves[1].stacks: the stack 'a' is in wave 'w1' already; each stack is in exactly one wave",
        ),
        (
            f"stacks: [{STACK}]\nwaves: [{{name: w, stacks: [a, ghost]}}]\n",
            "waves[0].stacks: names the stack 'ghost', which is not in stacks",
        ),
        (
            f"stacks: [{STACK}]\nwaves: [{{name: w, stacks: [a], parallelism: 0}}]\n",
            "waves[0].parallelism: input should be greater than or equal to 1",
        ),
        (
            "stacks: [{name: a, project: p, stack: dev, region: us-west-2, account: '12345'}]\n",
            "stacks[0].account: an AWS account id is 12 digits; got '12345'",
        ),
        (
            "stacks: [{name: a, project: p, stack: dev, region: us-west-2, account: 111122223333}]\n",
            "stacks[0].account: input should be a valid string",
        ),
        ("stacks: [{name: a, project: p, stack: dev, region: mars-1}]\n", "stacks[0].region: 'mars-1' is not an AWS region"),
        (
            "stacks: [{name: a, project: p, stack: dev, region: us-west-2, backend: gcp}]\n",
            "stacks[0].backend: input should be 'aws' or 'fake'",
        ),
        (f"stacks: [{STACK}, {STACK}]\n", "stacks: the stack name 'a' is given 2 times"),
        ("stacks: [{name: a, project: p, stack: dev}]\n", "stacks[0].region: is required"),
        (f"stacks: [{STACK}]\nstate: my-bucket\n", "state: a state backend is a URL such as s3://bucket or file:///path; got 'my-bucket'"),
        (
            "stacks: [{name: a, project: p, stack: dev, region: us-west-2, state: 'ftp://host/x'}]\n",
            "stacks[0].state: the state backend's scheme is one of s3, gs, azblob, file, https; got 'ftp'",
        ),
        (
            f"stacks: [{STACK}]\nstate: 'https://me:token@api.pulumi.com'\n",
            "state: a state backend URL holds no credential (give the backend's profile as profile=NAME)",
        ),
        (
            f"stacks: [{STACK}, {{name: b, project: p, stack: b, region: us-west-2}}]\nwaves: [{{name: w, stacks: [a]}}]\n",
            "waves: the stacks 'b' are in no wave",
        ),
        ("stacks: []\nstacks: []\n", "the key 'stacks' appears twice"),
        ("- a\n", "a fleet file is a mapping with stacks and waves"),
    ],
)
def test_a_bad_fleet_file_is_one_line_naming_the_field_and_the_rule(tmp_path, text, expected):
    line = one_line(tmp_path, text)
    assert line.startswith(str(tmp_path / "fleet.yaml") + ": ")
    assert expected.removeprefix("fleet.yaml: ") in line


def test_a_gate_that_is_not_known_is_refused(tmp_path):
    line = one_line(tmp_path, f"stacks: [{STACK}]\nwaves: [{{name: w, stacks: [a], gates: {{all_green: true}}}}]\n")
    assert "waves[0].gates.all_green: is not a known field" in line


def test_each_project_must_hold_a_pulumi_project(tmp_path):
    (tmp_path / "p").mkdir()
    fleet, base = load_fleet(write(tmp_path, f"stacks: [{STACK}]\n"))
    with pytest.raises(FleetError) as caught:
        check_projects(fleet, base, "fleet.yaml")
    assert caught.value.lines() == [
        "fleet.yaml: stacks[0].project: 'p' is not a directory holding Pulumi.yaml (relative to the fleet file)"
    ]
    (tmp_path / "p" / "Pulumi.yaml").write_text("name: p\nruntime: python\n")
    check_projects(fleet, base, "fleet.yaml")


def test_each_stack_has_its_own_state_backend_else_the_fleets(tmp_path):
    text = (
        "state: 's3://fleet-state?region=us-east-1&profile=backend'\nsecrets_provider: passphrase\n"
        "stacks:\n  - {name: a, project: p, stack: a, region: us-west-2}\n"
        "  - {name: b, project: p, stack: b, region: us-west-2, state: 'file:///srv/state', secrets_provider: 'awskms://alias/x'}\n"
    )
    fleet, _ = load_fleet(write(tmp_path, text))
    assert [(s.state, s.secrets_provider) for s in fleet.stacks] == [
        ("s3://fleet-state?region=us-east-1&profile=backend", "passphrase"),
        ("file:///srv/state", "awskms://alias/x"),
    ]
    (alone,) = load_fleet(write(tmp_path, f"stacks: [{STACK}]\n", "plain.yaml"))[0].stacks
    assert (alone.state, alone.secrets_provider) == (None, None), "the runner's own login and default"
