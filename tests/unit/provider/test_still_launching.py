"""An apply that returns before every node is up says which are still launching and how to see them
come up (provider/cloud_provider.py, `launching_text`): `pulumi up` never ends on a count it did not
reach without saying so."""

from __future__ import annotations

from pulumi_hyperpod.provider.cloud_provider import launching_text

from tests.support.provider_specs import props, slurm_spec


def launching(said: str) -> list[str]:
    return [line for line in said.splitlines() if "still launching" in line]


def test_a_scale_out_waiting_for_inservice_names_the_nodes_still_launching(engine, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec(workers=1), wait="Target"))
    capsys.readouterr()
    updated = engine.update(arn, outputs, props(slurm_spec(workers=3)))  # the provider's default wait, InService
    assert updated["groups"]["workers"]["current_count"] < 3  # the call returned before the new nodes ran
    (line,) = launching(capsys.readouterr().err)
    assert "still launching: workers 1 of 3 nodes up" in line, line
    assert 'wait="Target"' in line and "`pulumi refresh`" in line
    assert "`hyperpod fake advance 10m`" in line  # the simulator: how to move its clock on


def test_waiting_for_the_target_ends_with_every_node_up_and_says_nothing_more(engine, sim, capsys):
    arn, outputs = engine.create(props(slurm_spec(workers=1), wait="Target"))
    capsys.readouterr()
    updated = engine.update(arn, outputs, props(slurm_spec(workers=3), wait="Target"))
    assert updated["groups"]["workers"]["current_count"] == 3
    assert launching(capsys.readouterr().err) == []


def test_launching_text_reads_the_groups_of_any_outputs():
    groups = {"controller": {"current_count": 1, "target_count": 1}, "workers": {"current_count": 0.0, "target_count": 2.0}}
    assert launching_text({"groups": groups, "location": {"backend": "aws", "region": "us-west-2"}}) == (
        "still launching: workers 0 of 2 nodes up; provisioning continues after this call "
        '(wait="Target" waits for every node), `pulumi refresh` shows where it got to'
    )
    assert launching_text({"pools": {"a": {}}}) == ""  # a cloud without groups' counts
    assert launching_text({"groups": {"controller": groups["controller"]}}) == ""
    assert launching_text({"groups": {"workers": {"current_count": None, "target_count": 2}}}).startswith("still launching: workers 0 of 2")
