"""Seed 004, "Update時の注意点" 3: nodes added after a lifecycle-script change are configured
differently from the existing ones — the plan of that scale-out warns, with the counts."""

from __future__ import annotations

from .conftest import LIFECYCLE, LIFECYCLE_V2, json_section, spec


def test_a_lifecycle_change_then_a_scale_out_warns_with_old_and_new_counts(make_world):
    world = make_world()
    world.build(spec(workers=2))
    world.build(spec(workers=2, lifecycle=LIFECYCLE_V2))  # the script changes; the 2 nodes keep the old one
    built = {
        n["BuiltWith"]["LifeCycleConfig"]["SourceS3Uri"]
        for n in world.sim.node_build_configs("demo")
        if n["InstanceGroupName"] == "workers"
    }
    assert built == {LIFECYCLE["SourceS3Uri"]}
    world.sim.reset_calls()

    the_plan = world.checked(spec(workers=5, lifecycle=LIFECYCLE_V2))  # the group already says v2: only the nodes know

    [finding] = json_section(the_plan)["consistency"]
    assert finding["group"] == "workers" and finding["fields"] == ["LifeCycleConfig"]
    assert finding["changed_by_this_plan"] == []
    assert (finding["old_nodes"], finding["new_nodes"], finding["is_sample"]) == (2, 3, False)
    assert finding["new_config"]["LifeCycleConfig"] == LIFECYCLE_V2
    assert "2 existing node(s) were built with the old configuration, the 3 node(s) this plan adds" in finding["message"]
    assert "separate instance group (a separate Slurm partition)" in finding["message"] and "replace the old nodes" in finding["message"]
    assert world.calls("DescribeClusterNode") == 2
    assert not the_plan.refused and json_section(the_plan)["verdict"] == "warnings"


def test_a_plan_that_changes_the_script_and_grows_the_group_warns(make_world):
    world = make_world()
    world.build(spec(workers=3))

    the_plan = world.checked(spec(workers=4, lifecycle=LIFECYCLE_V2))

    [finding] = json_section(the_plan)["consistency"]
    assert finding["changed_by_this_plan"] == ["LifeCycleConfig"]
    assert (finding["old_nodes"], finding["new_nodes"]) == (3, 1)


def test_a_role_change_with_a_scale_out_warns_that_the_new_nodes_get_the_new_role(make_world):
    # ExecutionRole changes in place (the newest CloudFormation schema; docs/members.md): nodes launched
    # later assume the new role, so a scale-out with it warns as a lifecycle change does
    world = make_world()
    world.build(spec(workers=2))

    the_plan = world.checked(spec(workers=3, ExecutionRole="arn:aws:iam::111122223333:role/another-role"))

    assert not the_plan.refused
    [finding] = json_section(the_plan)["consistency"]
    assert finding["changed_by_this_plan"] == ["ExecutionRole"]
    assert (finding["old_nodes"], finding["new_nodes"]) == (2, 1)


def test_a_large_group_is_sampled_oldest_and_newest_and_says_so(make_world):
    world = make_world()
    world.build(spec(workers=6))
    world.build(spec(workers=6, lifecycle=LIFECYCLE_V2))
    world.sim.reset_calls()

    the_plan = world.checked(spec(workers=8, lifecycle=LIFECYCLE_V2), sample=4)

    [finding] = json_section(the_plan)["consistency"]
    assert finding["is_sample"] and finding["sampled"] == 4 and finding["existing_nodes"] == 6
    assert "4 of the 4 nodes sampled (oldest and newest of 6)" in finding["message"]
    assert world.calls("DescribeClusterNode") == 4


def test_a_scale_out_of_alike_nodes_is_quiet(make_world):
    world = make_world()
    world.build(spec(workers=2))

    the_plan = world.checked(spec(workers=4))

    assert json_section(the_plan)["consistency"] == []
    assert json_section(the_plan)["verdict"] == "ok"
