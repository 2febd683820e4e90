"""`hyperpod:index:ComputeQuota` and `hyperpod:index:ClusterSchedulerConfig`: the native provider's task
governance resources, a thin adapter over provider/governance.py's GovernanceCore — the plan and
apply the dynamic `ComputeQuota` and `hyperpod plan|apply|delete -f` run (docs/capacity.md, "Task
governance"), for every Pulumi language.

Inputs: `spec` (create's `--cli-input-json` document: CreateComputeQuota's or
CreateClusterSchedulerConfig's request, `ClusterArn` the cluster's ARN or its name) and/or `specFile`
(that JSON or YAML file, read at every check; `spec`'s members win), `backend`, `region`, `profile`,
`wait` ("none" or "InService", the default: until the resource is Created or Updated), `timeout`.
Outputs: `arn`, `resourceId`, `version`, `status`, `clusterArn`, `location`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pulumi_hyperpod.core.errors import InputError
from pulumi_hyperpod.provider import console
from pulumi_hyperpod.provider.governance import NOUNS, SETTINGS, GovernanceCore
from pulumi_hyperpod.provider.governance import OUTPUTS as OUTPUTS  # the resources' outputs, for the schema and the preview
from pulumi_hyperpod.provider.settings import Defaults

TYPES = {f"hyperpod:index:{noun}": noun for noun in NOUNS}
INPUTS = ("spec", "spec_file", *SETTINGS)


def noun_of(urn: str) -> str | None:
    """The resource an engine URN names (`urn:pulumi:STACK::PROJECT::[PARENT$]TYPE::NAME`), if one of these."""
    parts = urn.split("::")
    return TYPES.get(parts[2].rsplit("$", 1)[-1]) if len(parts) >= 3 else None


class GovernanceResource:
    """One resource type's CRUD in the bag form (snake_case keys); `wire` translates."""

    def __init__(self, noun: str, config: Mapping[str, str] | None = None, simulator: str | None = None) -> None:
        self.core = GovernanceCore(noun, simulator, Defaults.from_config(config or {}), log=console.say)

    @staticmethod
    def _bag(bag: Mapping[str, Any]) -> dict[str, Any]:
        """The core's inputs: the spec file read, `spec`'s members over it; the file's name kept."""
        from pulumi_hyperpod.aws.governance import GovernanceSpecError  # noqa: PLC0415 - botocore's model: a check's
        from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML, read only when a spec file is given

        inputs = {k: bag[k] for k in (*SETTINGS, "spec") if bag.get(k) is not None}
        spec_file = bag.get("spec_file")
        if isinstance(spec_file, str):
            loaded = read_document(spec_file, GovernanceSpecError)
            given = inputs.get("spec")
            inputs["spec"] = (
                {**loaded, **given} if isinstance(loaded, dict) and isinstance(given, dict) else given if given is not None else loaded
            )
        return inputs

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
        unknown = sorted(k for k in news if k not in INPUTS and not k.startswith("__"))
        if unknown:
            return news, [(k, f"is not an input of this resource (inputs: {', '.join(INPUTS)})") for k in unknown]
        try:
            inputs = self._bag(news)
        except InputError as error:
            return news, [("spec_file", str(error))]
        if "spec" not in inputs:
            return news, [("spec", "give spec (create's --cli-input-json document) or spec_file")]
        checked = self.core.check(olds, inputs)
        kept = {"spec_file": news["spec_file"]} if news.get("spec_file") is not None else {}
        return {**kept, **checked.inputs}, list(checked.failures)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> tuple[bool, list[str], bool]:
        result = self.core.diff(id_, olds, self._bag(news))
        return result.changes, list(result.replaces), result.delete_before_replace

    def create(self, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        created = self.core.create(self._bag(inputs))
        return created.id, {**_kept(inputs), **created.outputs}

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
        return {**_kept(news), **self.core.update(id_, olds, self._bag(news))}

    def read(self, id_: str, bag: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        found = self.core.read(id_, self._bag(bag))
        return found.id, {**_kept(bag), **found.outputs}

    def delete(self, id_: str, bag: dict[str, Any]) -> None:
        self.core.delete(id_, self._bag(bag))


def _kept(bag: Mapping[str, Any]) -> dict[str, Any]:
    return {k: bag[k] for k in ("spec_file",) if bag.get(k) is not None}
