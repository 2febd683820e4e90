"""The native provider's Pulumi package schema, generated: `native/schema.json` is this module's
output, and the SDKs (sdk/nodejs, sdk/go: native/sdkgen.py) are generated from that file.

    python -m pulumi_hyperpod.native.schema --write   # rewrite native/schema.json
    python -m pulumi_hyperpod.native.schema --check   # exit 1 when the committed file differs

The schema is made from what defines the resources, so neither can change without the other:
- `hyperpod:index:Cluster`'s input properties are the dynamic `Cluster`'s arguments (ClusterArgs'
  fields, in their order), its properties what check stores and the outputs (`spec`, the settings
  SETTING_KEYS, OUTPUTS, PREVIEW_OUTPUTS); `hyperpod:index:GcpTrainingCluster`'s are native/gcp.py's
  INPUTS and OUTPUTS; the provider's config is what configure reads (native/provider.CONFIG_KEYS);
- the `Policy` type is the Policy model (plans/policy.py): each field, its JSON type and its
  description;
- what only the schema says — each property's JSON type and its description — is the `Property`
  tables below, keyed by the Python name: a name in a table that no resource has, or a resource's
  name missing from its table, stops the generation.

tests/unit/native/test_schema.py fails when the committed schema.json is not this module's output.
"""

from __future__ import annotations

import argparse
import json
import sys
import types
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any
import dataclasses
from pulumi_hyperpod import __version__
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.native import CLUSTER_TYPE, gcp, governance
from pulumi_hyperpod.provider.settings import SETTING_KEYS
from pulumi_hyperpod.native.resource import PREVIEW_OUTPUTS
from pulumi_hyperpod.provider.resource import OUTPUTS, ClusterArgs

SCHEMA_PATH = Path(__file__).with_name("schema.json")
Spec = dict[str, Any]


class SchemaError(ValueError):
    """The tables and the resources they describe disagree."""


@dataclass(frozen=True, slots=True)
class Property:
    """One property's JSON schema as an input and as a property of the state (None: not one)."""

    input: Spec | None = None
    output: Spec | None = None
    both: Spec | None = None  # the same as an input and as a property

    def as_input(self) -> Spec | None:
        return self.both if self.both is not None else self.input

    def as_output(self) -> Spec | None:
        return self.both if self.both is not None else self.output


# The Go SDK's module path: sdk/go of the repository it is published from, so that `go get` finds it
# there (a tag sdk/go/vX.Y.Z) or in any module proxy serving it (scripts/build-artifacts writes one
# into dist/; docs/install.md). A fork publishing its own SDK changes it here and regenerates.
GO_MODULE = "github.com/pulumi-hyperpod/pulumi-hyperpod/sdk/go"

# the package: everything but its version (pulumi_hyperpod.__version__)
PACKAGE = {
    "name": "hyperpod",
    "displayName": "HyperPod (pulumi-hyperpod)",
    "description": "Declarative Amazon SageMaker HyperPod clusters: the preview prints the plan (which groups grow or shrink, which nodes a scale-in removes and why), and the update makes the fewest correct API calls.",
    "keywords": ["sagemaker", "hyperpod", "slurm", "training", "kind/native"],
    "license": "Apache-2.0",
    "meta": {"moduleFormat": "(.*)", "supportPack": True},
    "language": {
        "go": {
            "importBasePath": f"{GO_MODULE}/hyperpod",
            "generateResourceContainerTypes": False,
            "respectSchemaVersion": True,
        },
        "nodejs": {
            "packageName": "@pulumi-hyperpod/hyperpod",
            "dependencies": {"@pulumi/pulumi": "^3.274.0"},
            "respectSchemaVersion": True,
        },
        "python": {"packageName": "pulumi_hyperpod_native"},
    },
}


def string(description: str) -> Spec:
    return {"type": "string", "description": description}


def number(description: str) -> Spec:
    return {"type": "number", "description": description}


def integer(description: str) -> Spec:
    return {"type": "integer", "description": description}


def boolean(description: str) -> Spec:
    return {"type": "boolean", "description": description}


def anything(description: str) -> Spec:
    return {"$ref": "pulumi.json#/Any", "description": description}


def ref(name: str, description: str) -> Spec:
    """A property of one of the package's own types (`hyperpod:index:NAME`)."""
    return {"$ref": f"#/types/hyperpod:index:{name}", "description": description}


# the policy input of both resources: one sentence for what the guards do
POLICY_INPUT = "What a plan may do to the running cluster; guards refuse the rest with the reason."

# hyperpod:index:Cluster, by Python name
CLUSTER: dict[str, Property] = {
    "spec": Property(
        input=anything(
            "The CreateCluster request: an object in the AWS CLI --cli-input-json form (PascalCase) or snake_case; "
            "optionally with Extensions, the cluster extensions wanted (docs/specs.md)."
        ),
        output=anything("The spec in its canonical API form (PascalCase), exactly the CreateCluster request, and its Extensions."),
    ),
    "backend": Property(
        both=string(
            'Where the cluster lives: "aws" (default) or "fake", the simulator (its persistent world: $HYPERPOD_FAKE_STATE, default .hyperpod/fake.sqlite in the project directory). Default: the provider config hyperpod:backend.'
        )
    ),
    "region": Property(
        both=string("The AWS region. Default: the provider config hyperpod:region, then AWS_REGION / the profile's region.")
    ),
    "profile": Property(
        both=string(
            "The AWS profile (a name; credentials are read by boto3 at call time, never stored). Default: the provider config hyperpod:profile."
        )
    ),
    "policy": Property(both=ref("Policy", POLICY_INPUT)),
    "wait": Property(both=string('What create and update wait for: "none", "InService" (default), "MinCount" or "Target".')),
    "timeout": Property(both=number("Seconds each call may take, observation, API calls and wait included (default 1200, at most 1680).")),
    "adopt": Property(both=boolean("Take over an existing cluster of that name instead of failing on create.")),
    "roles": Property(
        both={
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "Slurm role by instance group name (Controller, Login or Compute) for groups whose spec does not state SlurmConfig.NodeType — the roles a legacy cluster's lifecycle provisioning_parameters.json gives. Unknown roles on a Slurm cluster: scaling a group to 0 or deleting one is refused.",
        }
    ),
    "cluster_name": Property(
        input=string("ClusterName (merged over spec/specFile, per top-level field; later wins)."), output=string("The cluster's name.")
    ),
    "arn": Property(output=string("The cluster's ARN (also the resource id).")),
    "status": Property(output=string("ClusterStatus from DescribeCluster.")),
    "failure_message": Property(output=string("FailureMessage from DescribeCluster, when there is one.")),
    "continuous": Property(output=boolean("Whether NodeProvisioningMode is Continuous.")),
    "orchestrator": Property(input=anything('Orchestrator: {"Slurm": {…}} or {"Eks": {"ClusterArn": …}}.'), output=string("Slurm or Eks.")),
    "groups": Property(
        output={
            "type": "object",
            "additionalProperties": {"$ref": "#/types/hyperpod:index:GroupStatus"},
            "description": "Per instance group (by name): counts and status.",
        }
    ),
    "node_count": Property(output=integer("Nodes there now (sum of CurrentCount).")),
    "target_count": Property(output=integer("Nodes asked for (sum of TargetCount).")),
    "pending_count": Property(output=integer("Nodes asked for and not there yet.")),
    "location": Property(output=ref("Location", "Where the cluster lives, as resolved at create: read and delete reach it there.")),
    "plan": Property(
        output=string(
            "In a preview: the plan JSON (`hyperpod plan --json`, format hyperpod-plan/2) the create or update would run now, or, when no plan can be made, a document of format hyperpod-plan-unknown/1 saying why. For policy packs (policies/README.md); not set after an update."
        )
    ),
    "spec_file": Property(
        input=string(
            "A JSON or YAML file in that form (relative to the project directory), read at every check: editing the file is a change."
        )
    ),
    "instance_groups": Property(
        input={
            "type": "array",
            "items": {"$ref": "pulumi.json#/Any"},
            "description": "InstanceGroups, each in the API form (ClusterInstanceGroupSpecification).",
        }
    ),
    "restricted_instance_groups": Property(
        input={"type": "array", "items": {"$ref": "pulumi.json#/Any"}, "description": "RestrictedInstanceGroups in the API form."}
    ),
    "vpc_config": Property(input=anything("VpcConfig: {SecurityGroupIds, Subnets}.")),
    "tags": Property(input=anything('Tags: [{"Key": …, "Value": …}] or a {key: value} object.')),
    "node_recovery": Property(input=string("NodeRecovery: Automatic or None.")),
    "tiered_storage_config": Property(input=anything("TieredStorageConfig in the API form.")),
    "node_provisioning_mode": Property(input=string("NodeProvisioningMode: Continuous, or left out.")),
    "cluster_role": Property(input=string("ClusterRole (an IAM role ARN).")),
    "auto_scaling": Property(input=anything("AutoScaling in the API form.")),
}
# hyperpod:index:GcpTrainingCluster, by Python name
GCP: dict[str, Property] = {
    "spec": Property(
        input=anything("The cluster: the modelDevelopmentClusters REST body (snake_case or camelCase), with its full `name`."),
        output=anything("The cluster's spec, as checked."),
    ),
    "spec_file": Property(
        input=string(
            "A JSON or YAML file holding that body (relative to the project directory), read at every check; `spec` is merged over it."
        ),
        output=string("The spec file, when one was given."),
    ),
    "backend": Property(
        input=string(
            '"gcp" (Application Default Credentials) or "fake", the simulator. Default: "fake" when the provider config hyperpod:backend is "fake", else "gcp".'
        ),
        output=string("Where the cluster lives: gcp or fake."),
    ),
    "policy": Property(
        input=ref("Policy", POLICY_INPUT),
        output=ref("Policy", "The policy the plans were made with."),
    ),
    "timeout": Property(
        input=number("Seconds a create, update or delete may wait on its operations (default 7200)."),
        output=number("The timeout in seconds."),
    ),
    "wait": Property(
        input=string(
            '"none" (return once the calls are accepted) or "InService" (default; "MinCount" and "Target" wait alike: the operation ends with the pools at their counts).'
        ),
        output=anything("What create and update waited for."),
    ),
    "name": Property(output=string("The cluster's full resource name.")),
    "state": Property(output=string("The cluster's state: PROVISIONING, RUNNING, UPDATING, STOPPING or ERROR.")),
    "pools": Property(output=anything("Each node pool: machine_type, target, min_node_count, provisioning_model, nodes by state.")),
    "node_count": Property(output=integer("The cluster's nodes.")),
}
# hyperpod:index:ComputeQuota and hyperpod:index:ClusterSchedulerConfig (native/governance.py), by Python name
GOVERNANCE: dict[str, Property] = {
    "spec": Property(
        input=anything(
            "The resource as create's --cli-input-json document (CreateComputeQuota's or CreateClusterSchedulerConfig's request); "
            "ClusterArn may be the cluster's name."
        ),
        output=anything("The spec, as checked."),
    ),
    "spec_file": Property(
        input=string(
            "A JSON or YAML file holding that document (relative to the project directory), read at every check; `spec` is merged over it."
        ),
        output=string("The spec file, when one was given."),
    ),
    "backend": Property(
        input=string('"aws" (default) or "fake", the simulator. Default: the provider config hyperpod:backend.'),
        output=string("The backend given."),
    ),
    "region": Property(
        input=string("The AWS region. Default: the provider config hyperpod:region, then AWS_REGION."), output=string("The region given.")
    ),
    "profile": Property(
        input=string("The AWS profile (a name). Default: the provider config hyperpod:profile."), output=string("The profile given.")
    ),
    "wait": Property(
        input=string(
            '"none" (return once the call is accepted) or "InService" (default: until the resource is Created or Updated, or gone).'
        ),
        output=string("What create and update waited for."),
    ),
    "timeout": Property(
        input=number("Seconds a create, update or delete may wait (default 1200)."), output=number("The timeout in seconds.")
    ),
    "arn": Property(output=string("The resource's ARN (ComputeQuotaArn, ClusterSchedulerConfigArn).")),
    "resource_id": Property(output=string("The resource's id (ComputeQuotaId, ClusterSchedulerConfigId).")),
    "version": Property(output=integer("The version the service reports; each update makes it one higher.")),
    "status": Property(output=string("SchedulerResourceStatus: Created, Updated, …")),
    "cluster_arn": Property(output=string("The cluster's ARN (the spec may name the cluster by its name).")),
    "location": Property(output=ref("Location", "Where the resource lives.")),
}
GOVERNANCE_DESCRIPTION = {
    "ComputeQuota": "A HyperPod task governance compute quota (CreateComputeQuota): a team's compute on an EKS-orchestrated cluster, what it lends and borrows, planned and applied by pulumi-hyperpod; a change's plan says what it can preempt.",
    "ClusterSchedulerConfig": "A HyperPod cluster's task governance policy (CreateClusterSchedulerConfig): its priority classes and fair share, planned and applied by pulumi-hyperpod.",
}
GOVERNANCE_REQUIRED = ("spec", "arn", "resource_id", "version", "status", "cluster_arn", "location")
GROUPSTATUS = {
    "type": "object",
    "description": "An instance group as DescribeCluster reports it.",
    "properties": {
        "targetCount": {"type": "integer"},
        "currentCount": {"type": "integer"},
        "minCount": {"type": "integer"},
        "status": {"type": "string"},
        "nodeType": {"type": "string"},
        "instanceTypes": {"type": "array", "items": {"type": "string"}},
    },
    "required": ["targetCount", "currentCount", "minCount", "status", "nodeType", "instanceTypes"],
}
LOCATION = {
    "type": "object",
    "description": "Where a cluster lives.",
    "properties": {"backend": {"type": "string"}, "region": {"type": "string"}, "profile": {"type": "string"}},
    "required": ["backend", "region"],
}
# the provider's configuration (and its explicit provider resource's inputs)
CONFIG: dict[str, str] = {
    "backend": 'Where the cluster lives: "aws" (default) or "fake", the simulator (its persistent world: $HYPERPOD_FAKE_STATE, default .hyperpod/fake.sqlite in the project directory). Default: the provider config hyperpod:backend.',
    "region": "The AWS region. Default: the provider config hyperpod:region, then AWS_REGION / the profile's region.",
    "profile": "The AWS profile (a name; credentials are read by boto3 at call time, never stored). Default: the provider config hyperpod:profile.",
}
CLUSTER_DESCRIPTION = "A SageMaker HyperPod cluster, planned and applied by pulumi-hyperpod. Import: `pulumi import hyperpod:index:Cluster NAME <cluster name or ARN>`."
GCP_DESCRIPTION = "A Google Cloud training cluster (modelDevelopmentClusters), planned and applied by pulumi-hyperpod through the same pipeline as Cluster: the preview prints the plan with its cost and preflight (machine types offered in the zone, reservations, regional quotas). Import: `pulumi import hyperpod:index:GcpTrainingCluster NAME projects/P/locations/L/modelDevelopmentClusters/ID`."
CLUSTER_REQUIRED = (
    "spec",
    "policy",
    "wait",
    "timeout",
    "adopt",
    "cluster_name",
    "arn",
    "status",
    "continuous",
    "orchestrator",
    "groups",
    "node_count",
    "target_count",
    "pending_count",
    "location",
)
GCP_REQUIRED = ("spec", "backend", "name", "state", "pools", "node_count")
PROVIDER_DESCRIPTION = "The hyperpod provider: where clusters live unless a Cluster says otherwise."
POLICY_DESCRIPTION = "What a plan may do to a running cluster."


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _json_type(annotation: Any) -> Spec:
    """A Policy field's annotation as JSON schema (Optional[X] is X: an input may leave any out)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _json_type(args[0])
    if origin is typing.Literal or annotation is str:
        return {"type": "string"}
    if annotation is bool:
        return {"type": "boolean"}
    if annotation is int:
        return {"type": "integer"}
    if annotation is float:
        return {"type": "number"}
    if origin in (frozenset, set, list, tuple):
        return {"type": "array", "items": _json_type(args[0])}
    if origin is dict:
        return {"type": "object", "additionalProperties": {"$ref": "pulumi.json#/Any"}}
    raise SchemaError(f"no JSON type for the Policy annotation {annotation!r}")


def policy_type() -> Spec:

    properties = {
        _camel(name): {**_json_type(field.annotation), "description": field.description or ""}
        for name, field in Policy.model_fields.items()
    }
    return {"type": "object", "description": POLICY_DESCRIPTION, "properties": properties}


def _resource(
    kind: str, description: str, table: dict[str, Property], inputs: tuple[str, ...], properties: tuple[str, ...], required: tuple[str, ...]
) -> Spec:
    named = set(inputs) | set(properties)
    if set(table) != named:
        raise SchemaError(
            f"{kind}: the table and the resource differ: not described {sorted(named - set(table))}, "
            f"described but no property {sorted(set(table) - named)}"
        )
    if not set(required) <= set(properties):
        raise SchemaError(f"{kind}: required but no property: {sorted(set(required) - set(properties))}")

    def spec(name: str, which: str) -> Spec:
        found = table[name].as_input() if which == "input" else table[name].as_output()
        if found is None:
            raise SchemaError(f"{kind}: {name} has no {which} schema")
        return found

    return {
        "description": description,
        "inputProperties": {_camel(n): spec(n, "input") for n in inputs},
        "properties": {_camel(n): spec(n, "output") for n in properties},
        "required": [_camel(n) for n in required],
    }


def schema() -> Spec:
    """The package schema, from the resources' definitions."""
    config_keys = ("backend", "region", "profile")  # native/provider.CONFIG_KEYS (that module loads the SDK's provider)
    if set(CONFIG) != set(config_keys):
        raise SchemaError(f"config: described {sorted(CONFIG)}, read {sorted(config_keys)}")
    variables = {key: {"type": "string", "description": CONFIG[key]} for key in config_keys}
    cluster = _resource(
        CLUSTER_TYPE,
        CLUSTER_DESCRIPTION,
        CLUSTER,
        tuple(f.name for f in dataclasses.fields(ClusterArgs)),
        ("spec", *SETTING_KEYS, *OUTPUTS, *PREVIEW_OUTPUTS),
        CLUSTER_REQUIRED,
    )
    training = _resource(gcp.TYPE, GCP_DESCRIPTION, GCP, gcp.INPUTS, (*gcp.INPUTS, *gcp.OUTPUTS), GCP_REQUIRED)
    governed = {
        kind: _resource(
            kind,
            GOVERNANCE_DESCRIPTION[noun],
            GOVERNANCE,
            governance.INPUTS,
            (*governance.INPUTS, *governance.OUTPUTS),
            GOVERNANCE_REQUIRED,
        )
        for kind, noun in governance.TYPES.items()
    }
    return {
        **{k: v for k, v in PACKAGE.items() if k in ("name", "displayName")},
        "version": __version__,
        **{k: v for k, v in PACKAGE.items() if k not in ("name", "displayName")},
        "config": {"variables": variables},
        "provider": {"description": PROVIDER_DESCRIPTION, "inputProperties": variables},
        "types": {
            "hyperpod:index:Policy": policy_type(),
            "hyperpod:index:GroupStatus": GROUPSTATUS,
            "hyperpod:index:Location": LOCATION,
        },
        "resources": {CLUSTER_TYPE: cluster, gcp.TYPE: training, **governed},
    }


def text() -> str:
    """schema.json's content: the schema as indented JSON."""
    return json.dumps(schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pulumi_hyperpod.native.schema", description=(__doc__ or "").split("\n\n")[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--write", action="store_true", help="rewrite native/schema.json")
    action.add_argument("--check", action="store_true", help="exit 1 when native/schema.json is not what is generated")
    args = parser.parse_args(argv)
    generated = text()
    if args.write:
        SCHEMA_PATH.write_text(generated, encoding="utf-8")
        print(f"schema: wrote {SCHEMA_PATH}")
        return 0
    if SCHEMA_PATH.read_text(encoding="utf-8") != generated:
        print(f"schema: {SCHEMA_PATH} is stale; run `python -m pulumi_hyperpod.native.schema --write`", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
