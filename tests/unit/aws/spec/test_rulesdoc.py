"""Issue 37, item 3: every sentence of the model's documentation on the cluster shapes that states a
rule ("Requires", "Available only for", "Valid only when", "Mutually exclusive", "must"…) is a rule of
spec validation, a rule rules.py checks, or listed as one the tool cannot check (documented.py), and
docs/rules.md is that table. Then each new rule refuses its bad input with one line naming the file,
the field and the rule, its source quoted."""

from __future__ import annotations

import copy
import html
import json
import re

import botocore.session
import pytest

from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError, documented, rules
from pulumi_hyperpod.aws.spec.rulesdoc import render
from tests.support.paths import REPO

ROOT = REPO
EXAMPLES = ROOT / "examples" / "specs"
RULE_WORDS = re.compile(
    r"\brequires?\b|\brequired\b|available only|only available|valid only|only valid|mutually exclusive|"
    r"\bonly (when|if|for|supported|applicable|required)\b|applies only|only applies|\bmust\b|cannot|can't|can not|"
    r"not supported|supported only|make sure|\bensure\b|exactly one|at least one|\bunique\b",
    re.IGNORECASE,
)


def _sentences(documentation: str | None) -> list[str]:
    text = html.unescape(re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", documentation or ""))).strip()
    return [part.strip() for part in re.split(r"(?<=[.!?])\s+(?=[A-Z])", text) if part.strip()]


def documented_sentences(every: bool = False) -> set[tuple[str, str]]:
    """(Shape or Shape.Member, sentence) for every rule-like sentence (`every`: every sentence) on a
    shape CreateCluster or UpdateCluster reaches: structures' own documentation and each of their
    members'."""
    model = botocore.session.get_session().get_service_model("sagemaker")
    seen: dict[str, object] = {}

    def walk(shape) -> None:
        if shape.name in seen:
            return
        seen[shape.name] = shape
        if shape.type_name == "structure":
            for member in shape.members.values():
                walk(member)
        elif shape.type_name == "list":
            walk(shape.member)
        elif shape.type_name == "map":
            walk(shape.key)
            walk(shape.value)

    for operation in ("CreateCluster", "UpdateCluster"):
        walk(model.operation_model(operation).input_shape)
    found = set()
    for name, shape in seen.items():
        if shape.type_name != "structure":  # a scalar shape's documentation is its first member's
            continue
        places = [(name, shape.documentation)] + [(f"{name}.{key}", member.documentation) for key, member in shape.members.items()]
        found |= {(where, sentence) for where, doc in places for sentence in _sentences(doc) if every or RULE_WORDS.search(sentence)}
    return found


def _listed() -> set[tuple[str, str]]:
    return {(source.where, source.sentence) for _, source, _ in documented.every_source()}


def test_every_rule_sentence_of_the_model_is_a_rule_or_listed():
    missing = sorted(documented_sentences() - _listed())
    assert not missing, "sentences neither a rule nor listed in aws/spec/documented.py:\n" + "\n".join(f"{w}: {s}" for w, s in missing)


def test_every_model_source_is_still_in_the_model():
    """A listed sentence botocore no longer has is stale: the table says what the model says."""
    model_sources = {(s.where, s.sentence) for _, s, _ in documented.every_source() if s.document == documented.MODEL}
    assert not model_sources - documented_sentences(every=True)


def test_the_walk_can_fail():
    assert ("ClusterAutoPatchConfig.DrainPolicy", "Valid only when PatchingStrategy is DrainFirst .") in documented_sentences()
    assert len(documented_sentences()) >= 25


def test_covered_sentences_name_a_rules_function():
    assert all(callable(getattr(rules, entry.by, None)) for entry in documented.COVERED)


def test_docs_rules_md_is_the_table_as_generated():
    assert (ROOT / "docs" / "rules.md").read_text() == render()


# ---- each new rule refuses its input: one line, the file, the field, the rule, the source ---------------
def _slurm() -> dict:
    return json.loads((EXAMPLES / "seed004-initial.json").read_text())


def _eks() -> dict:
    return json.loads((EXAMPLES / "eks-rollout.json").read_text())


BATCH = {"RollingUpdatePolicy": {"MaximumBatchSize": {"Type": "INSTANCE_COUNT", "Value": 1}}}
CASES = {
    "drain-first on slurm": (
        _slurm,
        {"AutoPatchConfig": {"PatchingStrategy": "DrainFirst", "DeploymentConfig": BATCH}},
        "AutoPatchConfig.PatchingStrategy",
        "Available only for clusters that use Amazon EKS",
    ),
    "drain-first without a batch size": (
        _eks,
        {"AutoPatchConfig": {"PatchingStrategy": "DrainFirst"}},
        "AutoPatchConfig.DeploymentConfig",
        "Requires MaximumBatchSize in DeploymentConfig",
    ),
    "drain policy without drain-first": (
        _eks,
        {"AutoPatchConfig": {"PatchingStrategy": "WhenIdle", "DrainPolicy": {"DrainTimeoutInSeconds": 60}}},
        "AutoPatchConfig.DrainPolicy",
        "Valid only when PatchingStrategy is DrainFirst",
    ),
    "idle wait with drain-first": (
        _eks,
        {"AutoPatchConfig": {"PatchingStrategy": "DrainFirst", "DeploymentConfig": BATCH, "IdleWaitWindowInSeconds": 3600}},
        "AutoPatchConfig.IdleWaitWindowInSeconds",
        "applies only to the WhenIdle and WhenAllIdle",
    ),
    "OnCreate with OnInitComplete": (
        _slurm,
        {"LifeCycleConfig": {"SourceS3Uri": "s3://sagemaker-bucket/lc/", "OnCreate": "on_create.sh", "OnInitComplete": "init.sh"}},
        "LifeCycleConfig.OnInitComplete",
        "mutually exclusive",
    ),
    "schedule in words": (
        _slurm,
        {"ScheduledUpdateConfig": {"ScheduleExpression": "every sunday"}},
        "ScheduledUpdateConfig.ScheduleExpression",
        "A cron expression",
    ),
    "schedule with five fields": (
        _slurm,
        {"ScheduledUpdateConfig": {"ScheduleExpression": "cron(0 3 * * 0)"}},
        "ScheduledUpdateConfig.ScheduleExpression",
        "has 5 fields",
    ),
    "batches on slurm": (
        _slurm,
        {"ScheduledUpdateConfig": {"ScheduleExpression": "cron(0 3 ? * SUN *)", "DeploymentConfig": BATCH}},
        "ScheduledUpdateConfig.DeploymentConfig",
        "available only for HyperPod clusters integrated with Amazon EKS",
    ),
    "root volume with a size": (
        _slurm,
        {"InstanceStorageConfigs": [{"EbsVolumeConfig": {"RootVolume": True, "VolumeSizeInGB": 100, "VolumeKmsKeyId": "k"}}]},
        "InstanceStorageConfigs[0].EbsVolumeConfig.VolumeSizeInGB",
        "You can't specify the VolumeSizeInGB field",
    ),
    "root volume without a key": (
        _slurm,
        {"InstanceStorageConfigs": [{"EbsVolumeConfig": {"RootVolume": True}}]},
        "InstanceStorageConfigs[0].EbsVolumeConfig.VolumeKmsKeyId",
        "You must specify a KMS key ID",
    ),
    "secondary volume without a size": (
        _slurm,
        {"InstanceStorageConfigs": [{"EbsVolumeConfig": {"VolumeKmsKeyId": "k"}}]},
        "InstanceStorageConfigs[0].EbsVolumeConfig.VolumeSizeInGB",
        "You must specify the VolumeSizeInGB field",
    ),
}


@pytest.mark.parametrize("base, change, field, source", CASES.values(), ids=CASES.keys())
def test_each_documented_rule_refuses_in_one_line(base, change, field, source):
    spec = base()
    spec["InstanceGroups"][-1].update(copy.deepcopy(change))
    with pytest.raises(SpecError) as error:
        ClusterSpec.from_dict(spec, source="cluster.json")
    (line,) = str(error.value).splitlines()
    index = len(spec["InstanceGroups"]) - 1
    assert line.startswith(f"cluster.json: InstanceGroups[{index}].{field}")
    assert source in line


def test_accounting_database_needs_continuous():
    spec = _slurm()
    spec["Orchestrator"] = {
        "Slurm": {
            "AccountingDatabase": {"Endpoint": "db.example:3306", "SecretArn": "arn:aws:secretsmanager:us-west-2:111122223333:secret:db"}
        }
    }
    with pytest.raises(SpecError) as error:
        ClusterSpec.from_dict(spec, source="cluster.json")
    assert (
        "cluster.json: Orchestrator.Slurm.AccountingDatabase: is supported only for clusters with NodeProvisioningMode Continuous"
        in str(error.value)
    )


@pytest.mark.parametrize(
    "expression",
    ["cron(0 3 ? * SUN *)", "cron(45 13 ? * MON#1 *)", "cron(0 0 1 * ? *)", "cron(0/15 1-5 ? JAN-MAR MON,FRI 2027)", "cron(0 3 L * ? *)"],
)
def test_cron_expressions_the_pages_write_pass(expression):
    assert documented.cron_problem(expression) is None
