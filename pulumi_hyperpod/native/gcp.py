"""`hyperpod:index:GcpTrainingCluster`: the native provider's Google Cloud resource, a thin adapter
over the CloudProvider (provider/cloud_provider.py) with Google Cloud's adapter
(provider/gcp_adapter.py), as the dynamic `GcpTrainingCluster` is: the one pipeline
(core/cloud.prepare) and the one apply contract. The same checks, plan, preflight, guards and waits
as `GcpTrainingCluster` in a Python program, for any Pulumi language.

Inputs: `spec` (the REST body, snake_case or camelCase) and/or `specFile` (a JSON or YAML file,
read at every check: editing the file is a change), `backend` ("gcp" or "fake"; default: "fake"
when the provider's hyperpod:backend is "fake", else "gcp"), `policy`, `timeout`, `wait` (the
contract's vocabulary). Outputs: `name`, `state`, `pools`, `nodeCount`. Import:
`pulumi import hyperpod:index:GcpTrainingCluster NAME projects/P/locations/L/modelDevelopmentClusters/ID`.

Migration from the dynamic `GcpTrainingCluster` (docs/native-provider.md), as for `Cluster`: by an
alias of the old type, whose state (the pickled provider under `__provider`) the diff recognises
and answers with an update that only rewrites it in this provider's form; or `pulumi state delete`
and an import. A Python program declares the resource with `NativeGcpTrainingCluster`
(native/gcp_resource.py).
"""

from __future__ import annotations

import functools
from typing import Any
from collections.abc import Mapping
from pulumi_hyperpod.provider.cloud_provider import CloudProvider
from pulumi_hyperpod.core.errors import InputError
from pulumi_hyperpod.core import cloud

TYPE = "hyperpod:index:GcpTrainingCluster"
DYNAMIC_TYPE = "pulumi-python:dynamic/hyperpod:GcpTrainingCluster"
DYNAMIC_STATE_KEY = "__provider"  # the dynamic provider's pickled provider, in a state it wrote
INPUTS = ("spec", "spec_file", "backend", "policy", "timeout", "wait")
OUTPUTS = ("name", "state", "pools", "node_count")


def is_gcp(urn: str) -> bool:
    """Whether an engine URN names this resource type (`urn:pulumi:STACK::PROJECT::[PARENT$]TYPE::NAME`)."""
    parts = urn.split("::")
    return len(parts) >= 3 and parts[2].rsplit("$", 1)[-1] == TYPE


class GcpResource:
    """The resource's CRUD in the adapter's bag form (snake_case keys); `wire` translates."""

    def __init__(self, config: Mapping[str, str] | None = None) -> None:
        self.default_backend = "fake" if (config or {}).get("hyperpod:backend") == "fake" else "gcp"

    @functools.cached_property
    def provider(self) -> Any:
        """The CloudProvider, made at the first call for this resource type: a plugin serving only
        HyperPod clusters never loads the Google Cloud modules (their pydantic models) at all."""
        from pulumi_hyperpod.provider.gcp_adapter import GcpAdapter  # noqa: PLC0415 - the Google Cloud adapter (its pydantic models) loads at the first GCP call only

        return CloudProvider(GcpAdapter(self.default_backend))

    def _bag(self, bag: Mapping[str, Any]) -> dict[str, Any]:
        """The adapter's inputs: the spec file read and merged under `spec`, the backend defaulted."""
        from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML, read only when a GCP resource is checked
        from pulumi_hyperpod.gcp.spec import GcpSpecError  # noqa: PLC0415 - the GCP spec's pydantic models: a HyperPod-only plugin never loads them

        inputs = {k: bag[k] for k in INPUTS if bag.get(k) is not None}
        inputs.setdefault("backend", self.default_backend)
        spec_file = inputs.get("spec_file")
        if isinstance(spec_file, str):
            loaded = read_document(spec_file, GcpSpecError)
            if isinstance(loaded, dict) and isinstance(inputs.get("spec"), dict):
                loaded = {**loaded, **inputs["spec"]}
            inputs["spec"] = loaded if "spec" not in inputs or isinstance(loaded, dict) else inputs["spec"]
        return inputs

    def check(self, olds: dict[str, Any], news: dict[str, Any]) -> tuple[dict[str, Any], list[tuple[str, str]]]:

        unknown = sorted(k for k in news if k not in INPUTS and not k.startswith("__"))
        if unknown:
            return news, [(k, f"is not an input of {TYPE} (inputs: {', '.join(INPUTS)})") for k in unknown]
        try:
            inputs = self._bag(news)
        except InputError as error:
            return news, [("spec_file", str(error))]
        if "spec" not in inputs:
            return news, [("spec", "give spec (the REST body) or spec_file")]
        checked = self.provider.check(self._bag(olds) if olds.get("spec") or olds.get("spec_file") else {}, inputs)
        return dict(checked.inputs), list(checked.failures)

    def diff(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> tuple[bool, list[str], bool]:
        result = self.provider.diff(id_, {k: olds.get(k) for k in INPUTS if k in olds}, self._bag(news))
        changes, replaces = result.changes, list(result.replaces)
        if DYNAMIC_STATE_KEY in olds and not replaces:
            # A migration by alias: the state is the dynamic provider's. An update with the same plan
            # writes it again in this provider's form (no pickled provider in it).
            from pulumi_hyperpod.native import core  # noqa: PLC0415 - native.core is AWS's adapter: a program declaring a GcpTrainingCluster imports this module (gcp_resource.py)

            core.say(
                f"state written by the dynamic provider ({DYNAMIC_TYPE}): this update rewrites it in the native "
                "provider's form; the cluster itself changes only as its plan says",
                id_.rsplit("/", 1)[-1] or None,
            )
            changes = True
        return changes, replaces, result.delete_before_replace

    def create(self, inputs: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        created = self.provider.create(self._bag(inputs))
        return created.id, {**_kept(inputs), **created.outputs}

    def update(self, id_: str, olds: dict[str, Any], news: dict[str, Any]) -> dict[str, Any]:
        return {**_kept(news), **self.provider.update(id_, olds, self._bag(news))}

    def read(self, id_: str, bag: dict[str, Any]) -> tuple[str, dict[str, Any], dict[str, Any] | None]:
        """(id, outputs, inputs); an empty id: the cluster is gone. With no bag (an import), the
        inputs are the cluster as the service returns it."""

        if not bag:
            gcp = cloud.get("gcp")
            state = gcp.read(gcp.connect(self.default_backend), id_)
            if state is None:
                return "", {}, None
            body = {k: v for k, v in state.body.items() if k not in ("name", "etag")}
            inputs = {"spec": {"name": state.name, **body}, "backend": self.default_backend}
            found = self.provider.read(id_, inputs)
            return found.id, {**inputs, **found.outputs}, inputs
        inputs = {k: bag[k] for k in INPUTS if bag.get(k) is not None}
        inputs.setdefault("backend", self.default_backend)
        found = self.provider.read(id_, inputs)
        return found.id, {**_kept(bag), **found.outputs}, None

    def delete(self, id_: str, bag: dict[str, Any]) -> None:
        inputs = {k: bag[k] for k in INPUTS if bag.get(k) is not None}
        inputs.setdefault("backend", self.default_backend)
        self.provider.delete(id_, inputs)


def _kept(bag: Mapping[str, Any]) -> dict[str, Any]:
    """The inputs the state keeps as written (the spec file's name, not only its content)."""
    return {k: bag[k] for k in ("spec_file",) if bag.get(k) is not None}
