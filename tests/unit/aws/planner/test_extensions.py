"""The planner's cluster extensions (aws/planner/extensions.py): the spec's Extensions against the
cluster's, as create-, update- and delete-extension steps, and what each assumes (premise.py)."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from pulumi_hyperpod.aws.observe.state import ClusterState, ExtensionState
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.aws.planner.integrity import step_problems
from pulumi_hyperpod.aws.planner.premise import ABSENT, Now, extension_fact, reasons
from pulumi_hyperpod.aws.spec import ClusterSpec
from pulumi_hyperpod.plans.model import Plan
from tests.support.factories import ARN, observed_from, slurm_spec

OBS = "sagemaker-observability"
EXT_ARN = f"arn:aws:sagemaker:us-west-2:111122223333:extension/{OBS}/abcde1234567/a1b2c3d4e5f6"
INSTALLED = ExtensionState(
    OBS, EXT_ARN, "1.0.0", "Active", json.dumps({"logs": True, "metrics": {"level": "BASIC"}}), "2026-01-01T00:00:00+00:00"
)


def _wanting(*extensions: dict[str, Any] | None) -> ClusterSpec:
    data = slurm_spec().to_api()
    if extensions != (None,):
        data["Extensions"] = list(extensions)
    return ClusterSpec.from_dict(data)


def _cluster(*extensions: ExtensionState) -> ClusterState:
    return dataclasses.replace(observed_from(slurm_spec()), extensions=tuple(extensions))


def _calls(made: Plan) -> list[tuple[str, dict[str, Any]]]:
    return [(step.operation, step.request) for step in made.steps]


def test_a_new_cluster_gets_its_extensions_after_create_cluster() -> None:
    made = plan(_wanting({"ExtensionName": OBS, "ExtensionVersion": "1.0.0"}), None)
    assert [s.kind for s in made.steps] == ["create-cluster", "create-extension"]
    assert made.steps[1].request == {"ExtensionName": OBS, "ExtensionVersion": "1.0.0"}  # the ARN: CreateCluster's answer, at apply
    assert step_problems(made) == []


def test_an_extension_the_cluster_lacks_is_created() -> None:
    made = plan(_wanting({"ExtensionName": OBS}), _cluster())
    assert _calls(made) == [("CreateClusterExtension", {"ClusterArn": ARN, "ExtensionName": OBS})]
    assert made.steps[0].kind == "create-extension" and made.steps[0].codes == ("absent",)
    assert made.basis.facts_of("extensions") == {OBS: ABSENT}
    assert step_problems(made) == []


def test_a_later_version_is_an_update_of_the_version_alone() -> None:
    made = plan(_wanting({"ExtensionName": OBS, "ExtensionVersion": "1.2.0"}), _cluster(INSTALLED))
    assert _calls(made) == [("UpdateClusterExtension", {"ClusterArn": ARN, "ExtensionArn": EXT_ARN, "ExtensionVersion": "1.2.0"})]
    assert made.steps[0].reasons == (f"extension {OBS}: version 1.0.0 → 1.2.0",) and made.steps[0].codes == ("extension-differs",)


def test_a_setting_given_otherwise_is_an_update_of_the_configuration() -> None:
    wanted = json.dumps({"metrics": {"level": "ADVANCED"}})
    made = plan(_wanting({"ExtensionName": OBS, "ConfigurationValues": wanted}), _cluster(INSTALLED))
    assert _calls(made) == [("UpdateClusterExtension", {"ClusterArn": ARN, "ExtensionArn": EXT_ARN, "ConfigurationValues": wanted})]
    assert made.steps[0].reasons == (f"extension {OBS}: configuration metrics.level changes",)


def test_settings_the_spec_gives_as_installed_or_leaves_out_or_resets_are_no_change() -> None:
    for configuration in ({"logs": True}, {}, {"metrics": {"level": "BASIC"}}, {"logs": None}):
        wanted = _wanting({"ExtensionName": OBS, "ExtensionVersion": "1.0.0", "ConfigurationValues": json.dumps(configuration)})
        assert plan(wanted, _cluster(INSTALLED)).steps == (), configuration
    assert plan(_wanting({"ExtensionName": OBS}), _cluster(INSTALLED)).steps == ()  # no version, no configuration: nothing compared


def test_an_extension_the_spec_does_not_name_is_deleted() -> None:
    made = plan(_wanting(), _cluster(INSTALLED))  # Extensions: []
    assert _calls(made) == [("DeleteClusterExtension", {"ClusterArn": ARN, "ExtensionArn": EXT_ARN})]
    assert made.steps[0].kind == "delete-extension" and made.steps[0].codes == ("not-desired",)
    assert made.basis.facts_of("extensions") == {OBS: extension_fact(INSTALLED)}


def test_a_spec_without_the_key_leaves_the_extensions_alone() -> None:
    made = plan(_wanting(None), _cluster(INSTALLED))
    assert made.steps == () and not made.notes


def test_extensions_not_read_are_not_compared_and_the_plan_says_so() -> None:
    made = plan(_wanting({"ExtensionName": OBS}), observed_from(slurm_spec()))  # an offline snapshot: none read
    assert made.steps == () and any("were not read" in note for note in made.notes)


def test_an_earlier_version_is_refused() -> None:
    made = plan(_wanting({"ExtensionName": OBS, "ExtensionVersion": "0.9.0"}), _cluster(INSTALLED))
    assert made.refused and [r.rule for r in made.refusals] == ["extension-downgrade"]


def test_an_extension_being_deleted_is_not_created_again_yet() -> None:
    made = plan(_wanting({"ExtensionName": OBS}), _cluster(dataclasses.replace(INSTALLED, status="Deleting")))
    assert made.refused and [r.rule for r in made.refusals] == ["extension-busy"]
    assert plan(_wanting(), _cluster(dataclasses.replace(INSTALLED, status="Deleting"))).steps == ()  # going already


def test_the_extension_steps_come_after_the_cluster_s_own() -> None:
    data = slurm_spec(workers=3).to_api()
    data["Extensions"] = [{"ExtensionName": OBS}]
    made = plan(ClusterSpec.from_dict(data), _cluster())
    assert [s.kind for s in made.steps][-1] == "create-extension" and len(made.steps) > 1


def test_an_extension_changed_since_the_plan_is_a_stale_plan_naming_it() -> None:
    made = plan(_wanting({"ExtensionName": OBS, "ExtensionVersion": "1.2.0"}), _cluster(INSTALLED))
    assert reasons(made, Now(_cluster(INSTALLED))) == []
    updated = dataclasses.replace(INSTALLED, version="1.1.0", modified="2026-01-02T00:00:00+00:00")
    assert reasons(made, Now(_cluster(updated))) == [
        f"extension {OBS}: its version changed since (1.0.0 → 1.1.0); the plan was computed against it as it was"
    ]
    assert reasons(made, Now(_cluster())) == [f"extension {OBS}: it was removed since; the plan was computed against it as it was"]
    created = plan(_wanting({"ExtensionName": OBS}), _cluster())
    assert reasons(created, Now(_cluster(INSTALLED)))[0].startswith(f"extension {OBS}: it was installed since")


def test_an_extension_step_on_another_cluster_is_not_the_plan_s() -> None:
    made = plan(_wanting(), _cluster(INSTALLED))
    edited = dataclasses.replace(
        made, steps=(dataclasses.replace(made.steps[0], request={**made.steps[0].request, "ClusterArn": ARN[:-1] + "x"}),)
    )
    assert step_problems(edited) == [f"step 1 (DeleteClusterExtension): acts on cluster {ARN[:-1] + 'x'!r}, not the plan's cluster"]


def test_what_the_service_sets_is_never_compared() -> None:
    moving = dataclasses.replace(INSTALLED, status="Updating", modified="2026-02-02T00:00:00+00:00", arn=EXT_ARN[:-1] + "7")
    wanted = _wanting({"ExtensionName": OBS, "ExtensionVersion": "1.0.0", "Tags": [{"Key": "team", "Value": "ml"}]})
    assert plan(wanted, _cluster(moving)).steps == ()
