"""Public HyperPod cluster configs (tests/corpus/public, sources in its README) on the simulator.

Each config is validated as `hyperpod plan -f` reads it (the CLI, against an empty simulated world),
then, on an in-process world holding its lifecycle bundle, planned, created, and re-planned empty.
Each edit that applies to it (a scale-out, a scale-in, a new lifecycle script, ...) is then made
on a fresh copy of that cluster: planned, applied and re-planned empty, or refused before any
call with the refusal `EXPECTED` names. Every config × edit is its own test id.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable

import pytest

from pulumi_hyperpod import connect, pipeline
from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.slurm.roles import LifecycleError
from tests.support.cli import MUTATING, hyperpod, use_fake_world

PUBLIC = Path(__file__).parent / "public"
BUNDLES = PUBLIC / "provisioning_parameters"
CONFIGS = sorted(path.stem for path in PUBLIC.glob("*.json"))


def spec_of(config: str) -> dict[str, Any]:
    return json.loads((PUBLIC / f"{config}.json").read_text())


# ---- what each config and edit is expected to do ------------------------------------------------


@dataclass(frozen=True, slots=True)
class Applies:
    """Planned with at least one step, applied, re-planned empty."""


@dataclass(frozen=True, slots=True)
class Refused:
    """A guard refuses the plan (its rule), before any call."""

    rule: str


@dataclass(frozen=True, slots=True)
class Invalid:
    """The spec is refused as bad input: one line naming the field and the rule."""

    field: str
    rule: str


@dataclass(frozen=True, slots=True)
class BadBundle:
    """The lifecycle bundle's provisioning_parameters.json is refused (its field and rule) before any call."""

    field: str
    rule: str


@dataclass(frozen=True, slots=True)
class Defect:
    """A known defect makes this fail: xfail(strict), so the test flags its fix."""

    why: str


SINGLE_GROUP_REMOVED = Invalid("InstanceGroups", "must have at least 1 items")
# InstanceType is a new group's name (the update-cluster page); ThreadsPerCore changes in place (item 6)
IMMUTABLE = Refused("immutable-group-field")

# config → what validating it gives (default: valid)
CONFIG_EXPECTED: dict[str, Invalid | BadBundle | Defect] = {
    # the AWS developer guide's create_cluster.json names an instance type that does not exist
    "awsdocs-slurm-create-cluster": Invalid("InstanceGroups[1].InstanceType", "'ml.p4d.xlarge' is not one of the"),
    # the Terraform module writes every group but the controller into worker_groups, the login group too
    "adt-slurm-terraform": BadBundle("worker_groups", "'login-nodes' is the login group and cannot also be a worker group"),
}

# (config, edit) → the expected outcome where it is not Applies()
EXPECTED: dict[tuple[str, str], Applies | Refused | Invalid | Defect] = {
    **{(config, "instance-type"): IMMUTABLE for config in CONFIGS},
    **{
        (config, "group-removed"): SINGLE_GROUP_REMOVED
        for config in ("adt-eks-cfn-defaults", "adt-eks-tf-custom", "adt-eks-tf-default", "c7n-placebo-cluster", "hpcli-stack-defaults")
    },
    **{(config, "controller-to-zero"): Refused("controller-scale-in") for config in CONFIGS},
    **{
        (config, "min-count"): Invalid("MinInstanceCount", "is only supported when NodeProvisioningMode is Continuous")
        for config in CONFIGS
        if spec_of(config).get("NodeProvisioningMode") != "Continuous"
    },
    # no bundle: the roles of a legacy Slurm cluster's groups are unknown, so none is emptied
    ("c7n-placebo-cluster", "scale-in"): Refused("slurm-roles-unknown"),
    ("c7n-placebo-cluster", "scale-to-zero"): Refused("slurm-roles-unknown"),
    ("moto-create-cluster", "group-removed"): Refused("slurm-roles-unknown"),
    ("moto-create-cluster", "scale-to-zero"): Refused("slurm-roles-unknown"),
    # a rollout takes every node of the group down; a group of unknown role could be the controller
    ("c7n-placebo-cluster", "image-id"): Refused("controller-disruption"),
    ("moto-create-cluster", "image-id"): Refused("controller-disruption"),
}


# ---- the configs' worlds --------------------------------------------------------------------------


def bundle_of(config: str) -> dict[str, Any] | None:
    path = BUNDLES / f"{config}.json"
    return json.loads(path.read_text()) if path.exists() else None


@dataclass(slots=True)
class World:
    sim: Simulator
    sagemaker: Any
    s3: Any
    quotas: Any

    def prepare(self, desired: ClusterSpec) -> pipeline.Prepared:
        return pipeline.prepare(self.sagemaker, desired, s3=self.s3, quotas=self.quotas)

    def apply(self, prepared: pipeline.Prepared) -> Any:
        sim = self.sim
        return pipeline.execute(
            self.sagemaker,
            prepared.plan,
            wait="Target",
            timeout=6 * 3600,
            roles=prepared.context.role_map(),
            sleep=sim.advance,
            monotonic=lambda: sim.now().timestamp(),
            poll_seconds=60,
        )

    def mutating_calls(self) -> list[str]:
        return [op for op, _ in self.sim.calls if op in MUTATING]


def world_for(config: str) -> World:
    """An in-process simulated world whose S3 holds each group's lifecycle bundle: its on_create script,
    and the config's provisioning_parameters.json where its source has one."""
    sim = Simulator(seed=37)
    s3 = connect(backend="fake", simulator=sim, service="s3")
    bundle = bundle_of(config)
    spec = spec_of(config)
    uris = {g["LifeCycleConfig"]["SourceS3Uri"] for g in spec.get("InstanceGroups", []) if "LifeCycleConfig" in g}
    buckets: set[str] = set()
    for uri in sorted(uris):
        bucket, _, prefix = uri.removeprefix("s3://").partition("/")
        prefix = prefix.rstrip("/") + "/" if prefix.strip("/") else ""
        if bucket not in buckets:
            buckets.add(bucket)
            s3.create_bucket(Bucket=bucket, CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
        for group in spec["InstanceGroups"]:
            if group.get("LifeCycleConfig", {}).get("SourceS3Uri") == uri:
                s3.put_object(Bucket=bucket, Key=prefix + group["LifeCycleConfig"]["OnCreate"], Body=b"#!/bin/bash\n")
        if bundle is not None:
            s3.put_object(Bucket=bucket, Key=prefix + "provisioning_parameters.json", Body=json.dumps(bundle).encode())
    return World(sim, connect(backend="fake", simulator=sim), s3, connect(backend="fake", simulator=sim, service="service-quotas"))


def load(spec: dict[str, Any], directory: Path) -> ClusterSpec:
    """The spec as `hyperpod plan -f` reads it: from a file."""
    path = directory / "spec.json"
    path.write_text(json.dumps(spec))
    return ClusterSpec.from_file(str(path))


# ---- the edits ------------------------------------------------------------------------------------


def compute_groups(config: str, spec: dict[str, Any]) -> list[dict[str, Any]]:
    """The groups an edit may scale or change: the bundle's worker groups (not its login group) where
    the config has a bundle, else every group."""
    groups = spec.get("InstanceGroups", [])
    bundle = bundle_of(config)
    if bundle is None:
        return groups
    workers = {w["instance_group_name"] for w in bundle["worker_groups"]} - {bundle.get("login_group")}
    return [g for g in groups if g["InstanceGroupName"] in workers]


def _count(delta: int) -> Callable[[dict, dict], None]:
    def edit(spec: dict, group: dict) -> None:
        group["InstanceCount"] = max(0, group["InstanceCount"] + delta)

    return edit


def _lifecycle(spec: dict, group: dict) -> None:
    group["LifeCycleConfig"]["OnCreate"] = "on_create_v2.sh"


def _tag(spec: dict, group: dict) -> None:
    spec["Tags"] = [*spec.get("Tags", []), {"Key": "cost-center", "Value": "ml-research"}]


def _new_group(spec: dict, group: dict) -> None:
    spec["InstanceGroups"].append({**copy.deepcopy(group), "InstanceGroupName": "corpus-new-group", "InstanceCount": 1})


def _remove_group(spec: dict, group: dict) -> None:
    spec["InstanceGroups"] = [g for g in spec["InstanceGroups"] if g["InstanceGroupName"] != group["InstanceGroupName"]]


def _threads(spec: dict, group: dict) -> None:
    group["ThreadsPerCore"] = 1 if group.get("ThreadsPerCore") == 2 else 2


def _deep_health_checks(spec: dict, group: dict) -> None:
    if group.pop("OnStartDeepHealthChecks", None) is None:
        group["OnStartDeepHealthChecks"] = ["InstanceStress", "InstanceConnectivity"]


def _node_recovery(spec: dict, group: dict) -> None:
    # the service's default is Automatic: a spec that omits it has Automatic
    spec["NodeRecovery"] = "None" if spec.get("NodeRecovery", "Automatic") == "Automatic" else "Automatic"


def _instance_type(spec: dict, group: dict) -> None:
    group["InstanceType"] = "ml.c5.2xlarge"


def _lifecycle_uri(spec: dict, group: dict) -> None:
    group["LifeCycleConfig"]["SourceS3Uri"] = group["LifeCycleConfig"]["SourceS3Uri"].rstrip("/") + "-v2/"


def _volume(spec: dict, group: dict) -> None:
    group["InstanceStorageConfigs"] = [{"EbsVolumeConfig": {"VolumeSizeInGB": 1000}}]


def _min_count(spec: dict, group: dict) -> None:
    group["MinInstanceCount"] = 1


def _image(spec: dict, group: dict) -> None:
    group["ImageId"] = "ami-0123456789abcdef0"


def _controller_to_zero(spec: dict, group: dict) -> None:
    group["InstanceCount"] = 0


EDITS: dict[str, Callable[[dict, dict], None]] = {
    "scale-out": _count(+2),
    "scale-in": _count(-1),
    "lifecycle-script": _lifecycle,
    "tag-change": _tag,
    "new-group": _new_group,
    "group-removed": _remove_group,
    "threads-per-core": _threads,
    "deep-health-checks": _deep_health_checks,
    "node-recovery": _node_recovery,
    "instance-type": _instance_type,
    "scale-to-zero": _count(-1000),
    "lifecycle-uri": _lifecycle_uri,
    "volume-size": _volume,
    "min-count": _min_count,
    "image-id": _image,
    "controller-to-zero": _controller_to_zero,  # on the bundle's controller group
}


def edited(config: str, edit: str) -> dict[str, Any] | None:
    """The config with the edit made on its first compute group; None where the edit does not apply."""
    spec = copy.deepcopy(spec_of(config))
    groups = compute_groups(config, spec)
    if edit == "controller-to-zero":
        controller = (bundle_of(config) or {}).get("controller_group")
        groups = [g for g in spec.get("InstanceGroups", []) if g["InstanceGroupName"] == controller]
    if not groups or (edit.startswith("lifecycle-") and "LifeCycleConfig" not in groups[0]):
        return None
    if edit == "scale-in" and groups[0]["InstanceCount"] < 1:
        return None
    EDITS[edit](spec, groups[0])
    return spec


def _expected_config(config: str) -> Invalid | BadBundle | Defect | None:
    return CONFIG_EXPECTED.get(config)


def _params(pairs: list[tuple[str, ...]], expected: Callable[[tuple[str, ...]], Any]) -> list:
    params = []
    for pair in pairs:
        outcome = expected(pair)
        marks = [pytest.mark.xfail(reason=outcome.why, strict=True)] if isinstance(outcome, Defect) else []
        params.append(pytest.param(*pair, id="-".join(pair), marks=marks))
    return params


VALID = [c for c in CONFIGS if not isinstance(CONFIG_EXPECTED.get(c), (Invalid, BadBundle))]
PAIRS = [
    (config, edit)
    for config in VALID
    if not isinstance(CONFIG_EXPECTED.get(config), Defect)
    for edit in EDITS
    if edited(config, edit) is not None
]


# ---- the tests ------------------------------------------------------------------------------------


def test_the_corpus_has_its_configs_and_each_is_described_in_the_readme():
    readme = (PUBLIC / "README.md").read_text()
    assert len(CONFIGS) >= 10
    assert [c for c in CONFIGS if f"`{c}`" not in readme] == []


@pytest.mark.parametrize("config", CONFIGS)
def test_hyperpod_plan_reads_the_config(config, tmp_path, monkeypatch):
    """`hyperpod plan -f` on an empty simulated world: a create plan, or the one-line refusal."""
    use_fake_world(monkeypatch, tmp_path)
    path = str(PUBLIC / f"{config}.json")
    expected = _expected_config(config)
    if isinstance(expected, Invalid):
        output = hyperpod("plan", "-f", path, "--no-preflight", code=1)
        lines = [line for line in output.splitlines() if line.strip()]
        assert len(lines) == 1 and path in lines[0] and f"{expected.field}: {expected.rule}" in lines[0], output
        return
    plan = json.loads(hyperpod("plan", "-f", path, "--no-preflight", "--json"))
    assert [step["operation"] for step in plan["steps"]] == ["CreateCluster"]
    assert plan["refusals"] == []
    # no bundle in this world: a create removes no node, so unknown (or inapplicable) roles are no news
    assert [note for note in plan["notes"] if "Slurm roles" in note or "provisioning_parameters" in note] == []


@pytest.mark.parametrize("config", [c for c in CONFIGS if isinstance(CONFIG_EXPECTED.get(c), BadBundle)])
def test_a_bad_bundle_is_refused_before_the_create(config, tmp_path):
    """The create plan reads the bundle it will run, as every later plan does: a bundle the tool refuses
    is refused before the cluster exists, not by the first re-plan after it."""
    expected = CONFIG_EXPECTED[config]
    world = world_for(config)
    with pytest.raises(LifecycleError) as error:
        world.prepare(load(spec_of(config), tmp_path))
    assert f"{expected.field}: {expected.rule}" in str(error.value) and "provisioning_parameters.json" in str(error.value)
    assert world.mutating_calls() == []


@pytest.mark.parametrize("config", _params([(c,) for c in VALID], lambda pair: CONFIG_EXPECTED.get(pair[0])))
def test_the_config_is_created_and_re_planned_empty(config, tmp_path):
    world = world_for(config)
    desired = load(spec_of(config), tmp_path)
    create = world.prepare(desired)
    assert [s.operation for s in create.plan.steps] == ["CreateCluster"] and not create.plan.refused
    result = world.apply(create)
    assert result.outcome == "done" and not result.failures
    again = world.prepare(desired)
    assert again.plan.steps == () and again.plan.refusals == ()


@pytest.mark.parametrize("config, edit", _params(PAIRS, lambda pair: EXPECTED.get(pair, Applies())))
def test_the_edit(config, edit, tmp_path):
    world = world_for(config)
    original = load(spec_of(config), tmp_path)
    world.apply(world.prepare(original))
    expected = EXPECTED.get((config, edit), Applies())
    before = world.mutating_calls()
    changed = edited(config, edit)
    assert changed is not None

    if isinstance(expected, Invalid):
        with pytest.raises(SpecError) as error:
            load(changed, tmp_path)
        message = str(error.value)
        assert "\n" not in message and f"{expected.field}: {expected.rule}" in message
        assert world.mutating_calls() == before
        return

    desired = load(changed, tmp_path)
    prepared = world.prepare(desired)
    if isinstance(expected, Refused):
        assert [r.rule for r in prepared.plan.refusals] == [expected.rule], prepared.plan.refusals
        assert prepared.plan.steps == ()
        assert world.mutating_calls() == before
        return

    assert prepared.plan.steps and not prepared.plan.refused, prepared.plan.refusals
    result = world.apply(prepared)
    assert result.outcome == "done" and not result.failures, result.failures
    again = world.prepare(desired)
    assert again.plan.steps == () and again.plan.refusals == (), [s.reasons for s in again.plan.steps]


def test_the_readme_bundle_naming_a_login_group_the_cluster_lacks_is_noted_at_the_create(tmp_path):
    """awsome-distributed-training's README bundle says `login_group: my-login-group`; its cluster has
    no such group. The lifecycle scripts carry on (no login node), and the create plan says so."""
    world = world_for("adt-slurm-readme")
    create = world.prepare(load(spec_of("adt-slurm-readme"), tmp_path))
    assert [n for n in create.plan.notes if "my-login-group" in n] == [
        "provisioning_parameters.json (s3://sagemaker-ml-cluster-lifecycle/LifecycleScripts/base-config/) "
        "names login_group 'my-login-group', which is not an instance group"
    ]
    assert not create.plan.refused
