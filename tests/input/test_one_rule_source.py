"""Two witnesses, one verdict (issue 37): the spec (aws/spec/) and the simulator
(sim/aws/service_rules.py) each implement the service's documented rules on their own, so a rule
written wrong on one side shows here as a disagreement: on every file of the bad-input corpus (both
reject), every example spec (both accept) and generated requests (the same verdict), unless the
difference is listed in KNOWN_DIFFERENCES with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pulumi_hyperpod.aws import servicemodel
from pulumi_hyperpod.sim.aws import Simulator, operations
from pulumi_hyperpod.sim.aws.errors import ValidationException
from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError, parse_document
from pulumi_hyperpod.aws.spec.keys import to_model_keys
from tests.support.paths import REPO

ROOT = REPO
CORPUS = ROOT / "tests" / "badinput" / "corpus"
EXAMPLES = ROOT / "examples" / "specs"


def _documents(directory: Path) -> list[tuple[str, dict]]:
    found = []
    for file in sorted(directory.iterdir()):
        try:
            data = parse_document(file.read_bytes().decode("utf-8"), file.suffix)
        except (SpecError, UnicodeDecodeError):
            continue  # not a document at all: nothing reaches either side
        if isinstance(data, dict):
            found.append((file.name, data))
    return found


BAD = _documents(CORPUS)
GOOD = _documents(EXAMPLES)


def spec_verdict(data: dict) -> tuple[bool, str]:
    try:
        ClusterSpec.from_dict(data)
    except SpecError as error:
        return False, str(error)
    return True, ""


def simulator_verdict(sim: Simulator, data: dict) -> tuple[bool, str]:
    request = to_model_keys(servicemodel.input_shape("CreateCluster"), data)
    with sim._world() as world:
        try:
            operations.create_cluster(world, "us-west-2", request)
        except ValidationException as error:
            return False, error.message
    return True, ""


@pytest.fixture(scope="module")
def sim():
    return Simulator(seed=3)


def test_the_corpus_has_documents_to_judge():
    assert len(BAD) >= 600 and len(GOOD) == len(list(EXAMPLES.iterdir()))


@pytest.mark.parametrize("name, data", BAD, ids=[name for name, _ in BAD])
def test_spec_and_simulator_both_reject(sim, name, data):
    spec_ok, spec_says = spec_verdict(data)
    sim_ok, sim_says = simulator_verdict(sim, data)
    assert (spec_ok, sim_ok) == (False, False), (spec_says, sim_says)


@pytest.mark.parametrize("name, data", GOOD, ids=[name for name, _ in GOOD])
def test_spec_and_simulator_both_accept(name, data):
    assert spec_verdict(data) == (True, "")
    assert simulator_verdict(Simulator(seed=3), data) == (True, "")


def test_min_instance_count_zero_without_continuous_is_accepted_by_both():
    """The rule the two copies disagreed on: 0 is the documented default, so both accept it;
    above 0 needs Continuous, so both refuse it, with the same words."""
    data = json.loads((EXAMPLES / "seed004-initial.json").read_text())
    data["InstanceGroups"][1]["MinInstanceCount"] = 0
    assert spec_verdict(data) == (True, "")
    assert simulator_verdict(Simulator(seed=3), data) == (True, "")
    data["InstanceGroups"][1]["MinInstanceCount"] = 1
    (spec_ok, spec_says), (sim_ok, sim_says) = spec_verdict(data), simulator_verdict(Simulator(seed=3), data)
    rule = "InstanceGroups[1].MinInstanceCount: is only supported when NodeProvisioningMode is Continuous"
    assert not spec_ok and not sim_ok and rule in spec_says and rule in sim_says


# ---- where the two witnesses differ, and why -----------------------------------------------------------
def _with_schedule(expression: str) -> dict:
    data = json.loads((EXAMPLES / "seed004-initial.json").read_text())
    data["InstanceGroups"][1]["ScheduledUpdateConfig"] = {"ScheduleExpression": expression}
    return data


# name: (request, spec accepts, simulator accepts, why they differ)
KNOWN_DIFFERENCES: dict[str, tuple[dict, bool, bool, str]] = {
    "cron LW": (
        _with_schedule("cron(0 3 LW * ? *)"),
        True,
        False,
        "AWS cron reads LW (the last weekday of the month); croniter, the simulator's scheduler, does not, so the "
        "simulator could never run it and refuses it",
    ),
    "cron nL day-of-week": (
        _with_schedule("cron(0 3 ? * 6L *)"),
        True,
        False,
        "AWS cron reads 6L (the month's last Friday); croniter does not",
    ),
    "cron L day-of-week": (_with_schedule("cron(0 3 ? * L *)"), True, False, "AWS cron reads L as a day of the week; croniter does not"),
}


@pytest.mark.parametrize("name", KNOWN_DIFFERENCES)
def test_known_differences_are_still_differences(name):
    """Each listed difference is real: the day one side changes, this says to take it off the list."""
    data, spec_ok, sim_ok, _ = KNOWN_DIFFERENCES[name]
    assert (spec_verdict(data)[0], simulator_verdict(Simulator(seed=3), data)[0]) == (spec_ok, sim_ok)


# ---- the same verdict on generated requests ---------------------------------------------------------
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROLE = "arn:aws:iam::111122223333:role/HyperPodRole"
EKS = "arn:aws:eks:us-west-2:111122223333:cluster/my-eks"


@st.composite
def requests(draw):
    """CreateCluster requests around the documented rules: modes, orchestrators, roles, counts."""
    kind = draw(st.sampled_from(["Slurm", "Eks", None]))
    continuous = draw(st.booleans())
    with_slurm_config = kind != "Eks" and draw(st.booleans())
    groups = []
    for index in range(draw(st.integers(1, 4))):
        group = {
            "InstanceGroupName": draw(st.sampled_from([f"g{index}"] * 5 + ["g0"])),
            "ExecutionRole": ROLE,
            "InstanceCount": draw(st.sampled_from([1, 1, 1, 2, 3, 0, -1])),
            "LifeCycleConfig": {"SourceS3Uri": "s3://bucket/lifecycle/", "OnCreate": "on_create.sh"},
        }
        shape = draw(st.sampled_from(["type"] * 6 + ["requirements"] * 2 + ["both", "neither"]))
        if shape in ("type", "both"):
            group["InstanceType"] = "ml.c5.xlarge"
        if shape in ("requirements", "both"):
            group["InstanceRequirements"] = {
                "InstanceTypes": draw(st.lists(st.sampled_from(["ml.c5.xlarge", "ml.m5.large"]), min_size=1, max_size=3))
            }
        minimum = draw(st.sampled_from([None] * 6 + [0, 0, 1, 2, 4, -1]))
        if minimum is not None:
            group["MinInstanceCount"] = minimum
        if with_slurm_config or (kind == "Eks" and draw(st.integers(0, 9)) == 0):
            slurm = {"NodeType": "Controller" if index == 0 else draw(st.sampled_from(["Login", "Compute", "Compute", "Controller"]))}
            if draw(st.integers(0, 3)) == 0:
                slurm["PartitionNames"] = ["gpu"]
            group["SlurmConfig"] = slurm
        if kind != "Eks" and draw(st.integers(0, 9)) == 0:
            group["KubernetesConfig"] = {"Labels": {"team": "ml"}}
        group.update(draw(documented_members()))
        groups.append(group)
    request = {"ClusterName": "generated", "InstanceGroups": groups}
    if continuous:
        request["NodeProvisioningMode"] = "Continuous"
    if kind == "Eks":
        request["Orchestrator"] = {"Eks": {"ClusterArn": EKS}}
    elif kind == "Slurm":
        request["Orchestrator"] = {
            "Slurm": draw(st.sampled_from([{}, {}, {"SlurmConfigStrategy": "Managed"}, {"AccountingDatabase": DATABASE}]))
        }
    return request


BATCH = {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}}
DATABASE = {"Endpoint": "db.example.com:3306", "SecretArn": "arn:aws:secretsmanager:us-west-2:111122223333:secret:slurmdb"}
# Schedules both sides read alike (the listed differences above are not drawn)
SCHEDULES = [
    "cron(0 3 ? * SUN *)",
    "cron(45 13 ? * MON#1 *)",
    "cron(0 0 1 * ? *)",
    "cron(0/15 1-5 ? JAN-MAR MON,FRI 2027)",
    "cron(0 3 15W * ? *)",
    "cron(0 3 ? * SUN 2200)",
    "cron(60 3 ? * SUN *)",
    "cron(0 3 ? * 0 *)",
    "cron(0 3 * * 0)",
    "every sunday",
    "rate(7 days)",
]


@st.composite
def documented_members(draw) -> dict:
    """The members the model's sentences speak of: patching strategies, schedules, entrypoints, volumes."""
    extra: dict = {}
    if draw(st.integers(0, 2)) == 0:
        patch = {"PatchingStrategy": draw(st.sampled_from(["WhenIdle", "WhenAllIdle", "DrainFirst"]))}
        if draw(st.booleans()):
            patch["DeploymentConfig"] = BATCH
        if draw(st.integers(0, 2)) == 0:
            patch["DrainPolicy"] = {"DrainTimeoutInSeconds": 600}
        if draw(st.integers(0, 2)) == 0:
            patch["IdleWaitWindowInSeconds"] = 3600
        extra["AutoPatchConfig"] = patch
    if draw(st.integers(0, 2)) == 0:
        scheduled = {"ScheduleExpression": draw(st.sampled_from(SCHEDULES))}
        if draw(st.integers(0, 2)) == 0:
            scheduled["DeploymentConfig"] = BATCH
        extra["ScheduledUpdateConfig"] = scheduled
    if draw(st.integers(0, 4)) == 0:
        extra["LifeCycleConfig"] = {"SourceS3Uri": "s3://bucket/lifecycle/", "OnCreate": "on_create.sh", "OnInitComplete": "init.sh"}
    if draw(st.integers(0, 3)) == 0:
        ebs = draw(
            st.sampled_from(
                [
                    {"VolumeSizeInGB": 100},
                    {},
                    {"RootVolume": True, "VolumeKmsKeyId": "key"},
                    {"RootVolume": True},
                    {"RootVolume": True, "VolumeSizeInGB": 100, "VolumeKmsKeyId": "key"},
                    {"RootVolume": False, "VolumeKmsKeyId": "key"},
                ]
            )
        )
        extra["InstanceStorageConfigs"] = [{"EbsVolumeConfig": ebs}]
    return extra


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(requests())
def test_spec_and_simulator_agree_on_generated_requests(request):
    """Legacy Slurm clusters (no SlurmConfig) and no bundle: neither side knows a role, so neither
    checks the controller (the simulator invented the first group as one: issue 37, item 4)."""
    spec_ok, spec_says = spec_verdict(request)
    sim_ok, sim_says = simulator_verdict(Simulator(seed=3), request)
    assert spec_ok == sim_ok, (spec_says, sim_says)


BASES = ["seed004-initial.json", "seed000-create-cluster.json", "eks-rollout.json", "seed001-eks-continuous.json"]


@st.composite
def valid_base_with_documented_members(draw):
    """A valid example spec with the model's sentence-rules' members drawn onto one group: the
    verdict is then those rules' alone."""
    data = json.loads((EXAMPLES / draw(st.sampled_from(BASES))).read_text())
    group = data["InstanceGroups"][draw(st.integers(0, len(data["InstanceGroups"]) - 1))]
    extra = draw(documented_members())
    if "LifeCycleConfig" in extra:
        extra["LifeCycleConfig"] = {**group.get("LifeCycleConfig", {}), "OnInitComplete": "init.sh"}
    group.update(extra)
    if data.get("NodeProvisioningMode") == "Continuous" and "Eks" not in (data.get("Orchestrator") or {}) and draw(st.booleans()):
        data.setdefault("Orchestrator", {"Slurm": {}}).setdefault("Slurm", {})["AccountingDatabase"] = DATABASE
    elif draw(st.integers(0, 5)) == 0 and "Eks" not in (data.get("Orchestrator") or {}):
        data["Orchestrator"] = {"Slurm": {"AccountingDatabase": DATABASE}}
    return data


@settings(max_examples=300, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(valid_base_with_documented_members())
def test_spec_and_simulator_agree_on_the_documented_rules(request):
    spec_ok, spec_says = spec_verdict(request)
    sim_ok, sim_says = simulator_verdict(Simulator(seed=3), request)
    assert spec_ok == sim_ok, (spec_says, sim_says)
