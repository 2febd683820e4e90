"""An empty NAME is refused before any call (not "no cluster  in us-west-2" after one), and a
duration names each unit once, largest first: `1h1h` is refused, not read as 2 h."""

from __future__ import annotations

import pytest

from pulumi_hyperpod.sim.aws.clock import parse_duration
from tests.support.input_cli import run


@pytest.mark.parametrize("command", ["status", "nodes", "snapshot", "delete", "events", "sinfo", "cost"])
@pytest.mark.parametrize("name", ["", "   "])
def test_an_empty_name_is_refused_before_any_call(world, command, name):
    from pulumi_hyperpod.sim.aws import Simulator

    args = [command, name] + (["--yes"] if command == "delete" else [])
    result = run(*args)

    assert result.code == 1, result.output
    [line] = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert "NAME" in line and "empty" in line, line
    assert Simulator.open_default().calls == []


@pytest.mark.parametrize("text", ["1h1h", "30m1h", "1m1m1m", "1d2d", "5s5s"])
def test_a_unit_given_twice_or_out_of_order_is_refused(text):
    with pytest.raises(ValueError, match="once each, largest first"):
        parse_duration(text)


@pytest.mark.parametrize("text, seconds", [("1h30m", 5400), ("2d3h4m5s", 2 * 86400 + 3 * 3600 + 245), ("90", 90), ("1.5h", 5400)])
def test_well_formed_durations_still_read(text, seconds):
    assert parse_duration(text) == seconds


def test_fake_advance_refuses_1h1h(world):
    result = run("fake", "advance", "1h1h")

    assert result.code == 1 and "1h1h" in result.output
