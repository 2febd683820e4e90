"""`NativeGcpTrainingCluster`: the native `hyperpod:index:GcpTrainingCluster` declared from a Python program.

The same arguments as the dynamic `GcpTrainingCluster` (provider/gcp.py) and the same outputs, so
moving a program from one to the other changes the class and nothing else (docs/native-provider.md,
"Migration"). The resource is served by the `hyperpod` plugin, not by this process: it can be
imported (`import_=` the cluster's full resource name) and nothing is pickled into the state.
Names cross the wire as `NativeCluster`'s do (native/resource.py): Python names here, the wire
names (`specFile`, `nodeCount`) in the type metadata.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pulumi

from pulumi_hyperpod.native.gcp import INPUTS, OUTPUTS, TYPE
from pulumi_hyperpod.native.resource import _getter, _policy

PROPERTIES = (*INPUTS, *OUTPUTS)


class _GcpProperties(dict):
    """What the resource sends: keyed by Python names; the type metadata gives the wire names."""

    def __init__(self, values: Mapping[str, Any]) -> None:  # else the SDK adds one taking keywords
        super().__init__(values)


class NativeGcpTrainingCluster(pulumi.CustomResource):
    """A Google Cloud training cluster (modelDevelopmentClusters) managed by the native `hyperpod` provider."""

    def __init__(
        self,
        resource_name: str,
        spec: pulumi.Input[Mapping[str, Any]] | None = None,
        spec_file: str | None = None,
        backend: str | None = None,
        policy: Mapping[str, Any] | None = None,
        timeout: float | None = None,
        wait: bool | str | None = None,
        opts: pulumi.ResourceOptions | None = None,
    ) -> None:
        if spec is None and spec_file is None:
            raise TypeError("NativeGcpTrainingCluster needs spec= (the REST body) or spec_file=")
        given = {"spec": spec, "spec_file": spec_file, "backend": backend, "policy": policy, "timeout": timeout, "wait": wait}
        props = _GcpProperties({name: None for name in PROPERTIES})
        props.update({k: _policy(v) if k == "policy" else v for k, v in given.items() if v is not None})
        super().__init__(TYPE, resource_name, props, opts)


# The getters go on before `input_type` runs and before the first resource (the SDK caches them).
for _name in PROPERTIES:
    setattr(_GcpProperties, _name, _getter(_name, Any))
_GcpProperties = pulumi.input_type(_GcpProperties)
for _name in OUTPUTS:
    setattr(NativeGcpTrainingCluster, _name, _getter(_name, pulumi.Output[int] if _name == "node_count" else pulumi.Output[Any]))
NativeGcpTrainingCluster.spec = _getter("spec", pulumi.Output[Any])
