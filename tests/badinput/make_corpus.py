"""Generate the bad-input corpus from the seed specs in examples/specs/.

    .venv/bin/python tests/badinput/make_corpus.py

Every file's name says what is wrong (`<seed>__<defect>.<json|yaml>`); `expected.json` maps each
file to [field path fragment, rule fragment] that the rejection message must contain. The
fragments are written here by hand, per defect, not copied from the validator's output.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any, Callable

import yaml

HERE = Path(__file__).resolve().parent
SEEDS = HERE.parents[1] / "examples" / "specs"
CORPUS = HERE / "corpus"


def groups_of(spec: dict) -> list[dict]:
    return spec["InstanceGroups"]


def role_index(spec: dict, role: str) -> int | None:
    for index, group in enumerate(groups_of(spec)):
        if (group.get("SlurmConfig") or {}).get("NodeType") == role:
            return index
    return None


def worker_index(spec: dict) -> int:
    for index, group in enumerate(groups_of(spec)):
        if (group.get("SlurmConfig") or {}).get("NodeType") in (None, "Compute"):
            return index
    return len(groups_of(spec)) - 1


def is_slurm(spec: dict) -> bool:
    return "Eks" not in (spec.get("Orchestrator") or {})


Mutation = Callable[[dict], "tuple[str, str] | None"]  # edits in place; returns (path, rule) or None: n/a


def set_worker(key: str, value: Any, path: str, rule: str) -> Mutation:
    def mutate(spec: dict):
        w = worker_index(spec)
        groups_of(spec)[w][key] = value
        return f"InstanceGroups[{w}].{path}", rule
    return mutate


def m_count_negative(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceCount"] = -1
    return f"InstanceGroups[{w}].InstanceCount", "at least"


def m_min_above_count(spec):
    w = worker_index(spec)
    g = groups_of(spec)[w]
    g["MinInstanceCount"] = g["InstanceCount"] + 1
    return f"InstanceGroups[{w}].MinInstanceCount", "between 0 and InstanceCount"


def m_min_negative(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["MinInstanceCount"] = -3
    return f"InstanceGroups[{w}].MinInstanceCount", "at least"


def m_duplicate_group(spec):
    w = worker_index(spec)
    groups_of(spec).append(copy.deepcopy(groups_of(spec)[w]))
    return f"InstanceGroups[{w}].InstanceGroupName", "more than one group"


def m_two_controllers(spec):
    c = role_index(spec, "Controller")
    if c is None:
        return None
    extra = copy.deepcopy(groups_of(spec)[c])
    extra["InstanceGroupName"] = "second-controller"
    groups_of(spec).append(extra)
    return "InstanceGroups", "Controller"


def m_no_controller(spec):
    c = role_index(spec, "Controller")
    if c is None:
        return None
    del groups_of(spec)[c]
    return "InstanceGroups", "Controller"


def m_strategy_continuous(spec):
    if not is_slurm(spec):
        return None
    spec["NodeProvisioningMode"] = "Continuous"
    spec["Orchestrator"] = {"Slurm": {"SlurmConfigStrategy": "Managed"}}
    return "Orchestrator.Slurm.SlurmConfigStrategy", "Continuous"


def m_unknown_top(spec):
    spec["ClusterNmae"] = spec.pop("ClusterName")
    return "ClusterNmae", "not a known field"


def m_unknown_group_key(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceCont"] = 3
    return f"InstanceGroups[{w}].InstanceCont", "not a known field"


def m_name_pattern(value: str, rule: str) -> Mutation:
    def mutate(spec):
        spec["ClusterName"] = value
        return "ClusterName", rule
    return mutate


def m_group_name(value: str, rule: str) -> Mutation:
    def mutate(spec):
        w = worker_index(spec)
        groups_of(spec)[w]["InstanceGroupName"] = value
        return f"InstanceGroups[{w}].InstanceGroupName", rule
    return mutate


def m_role(value: Any, rule: str) -> Mutation:
    return set_worker("ExecutionRole", value, "ExecutionRole", rule)


def m_s3(value: Any, rule: str) -> Mutation:
    def mutate(spec):
        w = worker_index(spec)
        groups_of(spec)[w]["LifeCycleConfig"]["SourceS3Uri"] = value
        return f"InstanceGroups[{w}].LifeCycleConfig.SourceS3Uri", rule
    return mutate


def m_missing(key: str, rule: str) -> Mutation:
    def mutate(spec):
        w = worker_index(spec)
        groups_of(spec)[w].pop(key, None)
        return f"InstanceGroups[{w}]", rule
    return mutate


def m_no_groups(spec):
    spec["InstanceGroups"] = []
    return "InstanceGroups", ""


def m_groups_not_list(spec):
    spec["InstanceGroups"] = {"a": 1}
    return "InstanceGroups", ""


def m_missing_name(spec):
    del spec["ClusterName"]
    return "ClusterName", ""


def m_bad_mode(spec):
    spec["NodeProvisioningMode"] = "Sometimes"
    return "NodeProvisioningMode", "Continuous"


def m_bad_recovery(spec):
    spec["NodeRecovery"] = "Sometimes"
    return "NodeRecovery", ""


def m_threads(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["ThreadsPerCore"] = 7
    return f"InstanceGroups[{w}].ThreadsPerCore", ""


def m_subnets_empty(spec):
    spec.setdefault("VpcConfig", {"SecurityGroupIds": ["sg-12345678"]})["Subnets"] = []
    return "VpcConfig.Subnets", ""


def m_bad_sg(spec):
    spec.setdefault("VpcConfig", {"Subnets": ["subnet-12345678"]})["SecurityGroupIds"] = ["not-a-sg!"]
    return "VpcConfig.SecurityGroupIds", ""


def m_tags_not_list(spec):
    spec["Tags"] = "team=ml"
    return "Tags", ""


def m_huge_tag(spec):
    spec["Tags"] = [{"Key": "k" * 500, "Value": "v"}]
    return "Tags[0].Key", "characters"


def m_volume_huge(spec):
    w = worker_index(spec)
    groups_of(spec)[w]["InstanceStorageConfigs"] = [{"EbsVolumeConfig": {"VolumeSizeInGB": 10 ** 9}}]
    return f"InstanceGroups[{w}].InstanceStorageConfigs[0].EbsVolumeConfig.VolumeSizeInGB", "at most"


def m_spec_is_list(spec):
    return "__replace__", [spec]


def m_spec_is_string(spec):
    return "__replace__", "my-training-cluster"


MUTATIONS: dict[str, tuple[Mutation, str, str]] = {
    # name: (mutation, path fragment override or "", rule fragment override or "")
    "count-string": (set_worker("InstanceCount", "three", "InstanceCount", "whole number"), "", ""),
    "count-float": (set_worker("InstanceCount", 2.5, "InstanceCount", "whole number"), "", ""),
    "count-bool": (set_worker("InstanceCount", True, "InstanceCount", "whole number"), "", ""),
    "count-null": (set_worker("InstanceCount", None, "InstanceCount", ""), "", ""),
    "count-list": (set_worker("InstanceCount", [3], "InstanceCount", "whole number"), "", ""),
    "count-negative": (m_count_negative, "", ""),
    "count-nan": (set_worker("InstanceCount", float("nan"), "InstanceCount", "whole number"), "", ""),
    "count-infinity": (set_worker("InstanceCount", float("inf"), "InstanceCount", "whole number"), "", ""),
    "count-huge": (set_worker("InstanceCount", 10 ** 30, "InstanceCount", "at most"), "", ""),
    "count-over-limit": (set_worker("InstanceCount", 6759, "InstanceCount", "at most"), "", ""),
    "min-above-count": (m_min_above_count, "", ""),
    "min-negative": (m_min_negative, "", ""),
    "min-string": (set_worker("MinInstanceCount", "1", "MinInstanceCount", "whole number"), "", ""),
    "duplicate-group-name": (m_duplicate_group, "", ""),
    "two-controllers": (m_two_controllers, "", ""),
    "no-controller": (m_no_controller, "", ""),
    "slurm-config-strategy-with-continuous": (m_strategy_continuous, "", ""),
    "unknown-top-level-key": (m_unknown_top, "", ""),
    "unknown-group-key": (m_unknown_group_key, "", ""),
    "cluster-name-spaces": (m_name_pattern("my cluster", "pattern"), "", ""),
    "cluster-name-underscore": (m_name_pattern("my_cluster", "pattern"), "", ""),
    "cluster-name-too-long": (m_name_pattern("c" * 64, "characters"), "", ""),
    "cluster-name-empty": (m_name_pattern("", ""), "", ""),
    "cluster-name-unicode": (m_name_pattern("clüster-ñame", "pattern"), "", ""),
    "cluster-name-emoji": (m_name_pattern("gpu-\U0001F680-cluster", "pattern"), "", ""),
    "cluster-name-leading-dash": (m_name_pattern("-cluster", "pattern"), "", ""),
    "cluster-name-number": (m_name_pattern(12345, "string"), "", ""),
    "cluster-name-shell": (m_name_pattern("x; rm -rf /", "pattern"), "", ""),
    "group-name-spaces": (m_group_name("worker group", "pattern"), "", ""),
    "group-name-too-long": (m_group_name("g" * 64, "characters"), "", ""),
    "group-name-unicode": (m_group_name("wörker", "pattern"), "", ""),
    "role-not-arn": (m_role("my-role", "pattern"), "", ""),
    "role-s3-arn": (m_role("arn:aws:s3:::bucket", "pattern"), "", ""),
    "role-bad-account": (m_role("arn:aws:iam::12:role/r", "pattern"), "", ""),
    "role-number": (m_role(42, "string"), "", ""),
    "role-huge": (m_role("arn:aws:iam::111122223333:role/" + "r" * 5000, "characters"), "", ""),
    "s3-ftp-scheme": (m_s3("ftp://bucket/prefix/", "pattern"), "", ""),
    "s3-too-long": (m_s3("s3://bucket/" + "p" * 1100, "characters"), "", ""),
    "s3-no-scheme": (m_s3("bucket/prefix/", "pattern"), "", ""),
    "s3-number": (m_s3(7, "string"), "", ""),
    "missing-execution-role": (m_missing("ExecutionRole", "ExecutionRole"), "", ""),
    "missing-instance-count": (m_missing("InstanceCount", "InstanceCount"), "", ""),
    "missing-group-name": (m_missing("InstanceGroupName", "InstanceGroupName"), "", ""),
    "missing-cluster-name": (m_missing_name, "", ""),
    "no-instance-groups": (m_no_groups, "", ""),
    "instance-groups-not-a-list": (m_groups_not_list, "", ""),
    "bad-provisioning-mode": (m_bad_mode, "", ""),
    "bad-node-recovery": (m_bad_recovery, "", ""),
    "threads-per-core-7": (m_threads, "", ""),
    "empty-subnets": (m_subnets_empty, "", ""),
    "bad-security-group": (m_bad_sg, "", ""),
    "tags-not-a-list": (m_tags_not_list, "", ""),
    "tag-key-huge": (m_huge_tag, "", ""),
    "volume-size-huge": (m_volume_huge, "", ""),
    "spec-is-a-list": (m_spec_is_list, "", ""),
    "spec-is-a-string": (m_spec_is_string, "", ""),
}

# Raw-text defects: (name, suffix, text builder from the seed's JSON text, path, rule); a builder may
# return bytes (written as they are).
def _duplicate_key_json(text: str) -> str:
    return text.replace("{", '{"ClusterName": "first-name", ', 1)


def _duplicate_key_yaml(text: str) -> str:
    return "ClusterName: first-name\n" + yaml.safe_dump(json.loads(text), sort_keys=False)


TEXT_DEFECTS: dict[str, tuple[str, Callable[[str], "str | bytes"], str, str]] = {
    "empty-file": (".json", lambda text: "", "", "empty"),
    "whitespace-only": (".yaml", lambda text: "  \n\t\n", "", "empty"),
    "truncated-json": (".json", lambda text: text[: len(text) // 2], "", "not valid JSON"),
    "truncated-yaml": (".yaml", lambda text: yaml.safe_dump(json.loads(text))[:-40] + "\n  - [unclosed", "", "not valid YAML"),
    "trailing-comma": (".json", lambda text: text.rstrip().rstrip("}") + ",}", "", "not valid JSON"),
    "duplicate-key": (".json", _duplicate_key_json, "", "appears twice"),
    "duplicate-key-yaml": (".yaml", _duplicate_key_yaml, "", "appears twice"),
    "nested-too-deep": (".json", lambda text: "[" * 1100 + "]" * 1100, "", "nested too deeply"),
    "nested-too-deep-yaml": (".yaml", lambda text: "[" * 600 + "]" * 600, "", "nested too deeply"),
    "python-tag": (".yaml", lambda text: '!!python/object/apply:os.system ["echo pwned"]\n', "", "constructor"),
    "not-utf8": (".json", lambda text: b"\xff\xfe" + text.encode("utf-16-le"), "", "cannot read"),
    "null-document": (".yaml", lambda text: "null\n", "", "is an object"),
    "scalar-document": (".json", lambda text: "42\n", "", "is an object"),
}


def main() -> None:
    CORPUS.mkdir(exist_ok=True)
    for old in CORPUS.iterdir():
        old.unlink()
    expected: dict[str, list[str]] = {}
    for seed_file in sorted(SEEDS.glob("*.json")):
        seed = seed_file.stem
        text = seed_file.read_text()
        original = json.loads(text)
        for index, (name, (mutation, path_override, rule_override)) in enumerate(MUTATIONS.items()):
            spec = copy.deepcopy(original)
            outcome = mutation(spec)
            if outcome is None:
                continue
            path, rule = outcome
            if path == "__replace__":
                spec, path, rule = rule, "", ""
            path, rule = path_override or path, rule_override or rule
            suffix = ".yaml" if index % 2 else ".json"  # alternate, so both parsers see every kind
            file = CORPUS / f"{seed}__{name}{suffix}"
            if suffix == ".json":
                file.write_text(json.dumps(spec, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
            else:
                file.write_text(yaml.safe_dump(spec, sort_keys=False, allow_unicode=True), encoding="utf-8")
            expected[file.name] = [path, rule]
        for name, (suffix, build, path, rule) in TEXT_DEFECTS.items():
            file = CORPUS / f"{seed}__{name}{suffix}"
            content = build(text)
            if isinstance(content, bytes):
                file.write_bytes(content)
            else:
                file.write_text(content, encoding="utf-8")
            expected[file.name] = [path, rule]
    (HERE / "expected.json").write_text(json.dumps(expected, indent=1, sort_keys=True) + "\n")
    print(f"{len(expected)} bad inputs in {CORPUS.relative_to(HERE.parents[1])}")


if __name__ == "__main__":
    main()
