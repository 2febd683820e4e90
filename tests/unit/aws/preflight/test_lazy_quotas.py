"""The Service Quotas client may be given as a function: it is called only for a plan that adds
instances, so a preview of an unchanged cluster makes no second client (nor loads its model)."""

from __future__ import annotations

from .conftest import G5, g5_quota, json_section, spec


class Factory:
    def __init__(self, client):
        self.client, self.calls = client, 0

    def __call__(self):
        self.calls += 1
        return self.client


def test_a_plan_that_adds_nothing_never_asks_for_the_client(make_world):
    world = make_world({"quotas": [g5_quota(4)]})
    world.build(spec("demo", workers=2))
    factory = Factory(world.quotas)
    unchanged = world.checked(spec("demo", workers=2), quotas=factory)
    smaller = world.checked(spec("demo", workers=1), quotas=factory)
    assert factory.calls == 0
    assert json_section(unchanged)["quotas"]["status"] == json_section(smaller)["quotas"]["status"] == "not-needed"


def test_a_scale_out_asks_once_and_checks_the_quota_as_with_a_client(make_world):
    world = make_world({"quotas": [g5_quota(4)]})
    world.build(spec("demo", workers=1))
    factory = Factory(world.quotas)
    lazy = world.checked(spec("demo", workers=6), quotas=factory)
    eager = world.checked(spec("demo", workers=6))
    assert factory.calls == 1
    assert lazy.refused and [r.reason for r in lazy.refusals] == [r.reason for r in eager.refusals]
    assert any(c["instance_type"] == G5 and c["status"] == "over" for c in json_section(lazy)["quotas"]["checks"])
