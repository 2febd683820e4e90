"""The two imports on a preview's critical path before the provider's `check` (issue 30): the
program's `from pulumi_hyperpod.components import ...` and the provider process's unpickling of
`ClusterProvider` from the state. Each loads what it runs: making, pickling and unpickling the
provider need its module and settings' `Defaults`, not the property bags, the replacement rules,
the service's rules, the worlds (clients) or a component the program does not use. Checked by
`sys.modules` in a fresh process, never by timing.

`NOT_IN_PROGRAM` and `NOT_AT_UNPICKLE` are the lists: a module that must stay out is one more line."""

from __future__ import annotations

import json

import pulumi_hyperpod.components as components
from pulumi.dynamic.dynamic import serialize_provider

from pulumi_hyperpod.provider.provider import ClusterProvider
from pulumi_hyperpod.provider.settings import Defaults
from tests.support.fresh import DECLARE_DEMO as DECLARE_DEMO_UNDER_MOCKS, run_fresh

# What the provider process loads in check and diff, never before: unpickling a provider needs none of it.
NOT_AT_UNPICKLE = (
    "pulumi_hyperpod.provider.props",  # the property bags: check's
    "pulumi_hyperpod.provider.changes",  # what forces a replacement: check's and diff's
    "pulumi_hyperpod.provider.unknowns",
    "pulumi_hyperpod.provider.worlds",  # clients and the simulator's registry
    "pulumi_hyperpod.provider.resource",  # the program's side
    "pulumi_hyperpod.aws.planner",
    "pulumi_hyperpod.aws.spec",
    "pulumi_hyperpod.aws.servicemodel",
    "pulumi_hyperpod.aws.members",
    # the core's modules, but `core.collector` (the provider's process pauses the collector before it unpickles)
    # `core.backends` (the settings name their backend through it: a table of names, no cloud) and
    # `core.messages` (the one error renderer, which the host's failure path reads: provider/errors.py)
    "pulumi_hyperpod.core.cloud",
    "pulumi_hyperpod.sim.clock",
    "pulumi_hyperpod.core.contract",
    "pulumi_hyperpod.core.documents",
    "pulumi_hyperpod.core.errors",
    "pulumi_hyperpod.core.planfile",
    "pulumi_hyperpod.core.plandir",
    "pulumi_hyperpod.core.policy_members",
    "pulumi_hyperpod.core.preflight",
    "pulumi_hyperpod.core.timestamps",
    "pulumi_hyperpod.core.detect",
    "pulumi_hyperpod.core.envvars",
    "pulumi_hyperpod.core.extras",
    "pulumi_hyperpod.core.files",
    "pulumi_hyperpod.core.terminal",
    "pulumi_hyperpod.sim.worldfile",
    "pulumi_hyperpod.components",
    "botocore",
    "pydantic",
    "regex",
)

# What declaring the demo's SlurmCluster on the simulator does not run, on top of the above.
NOT_IN_PROGRAM = (
    *(m for m in NOT_AT_UNPICKLE if m not in ("pulumi_hyperpod.provider.resource", "pulumi_hyperpod.components")),
    "pulumi_hyperpod.components.eks",  # another component
    "pulumi_hyperpod.components.support",  # the bucket and roles made for a caller who gives none
    "pulumi_hyperpod.components.bundle",  # a Slurm spec's lifecycle bundle
    "pulumi_hyperpod.slurm",
    "pulumi_aws",
    "mimetypes",
)

# A ClusterProvider as stacks hold it (`__provider`, made by pulumi.dynamic's serialize_provider
# before issue 30's changes): ClusterProvider("world") with Defaults("fake", "us-east-2", "training").
STORED_PROVIDER = (
    "gASV1AAAAAAAAACMIXB1bHVtaV9oeXBlcnBvZC5wcm92aWRlci5wcm92aWRlcpSMD0NsdXN0ZXJQcm92aWRlcpSTlCmBlH2UKIwIZGVmYXVsdHOUjCFwdWx1"
    "bWlfaHlwZXJwb2QucHJvdmlkZXIuc2V0dGluZ3OUjAhEZWZhdWx0c5STlCmBlH2UKIwHYmFja2VuZJSMBGZha2WUjAdwcm9maWxllIwIdHJhaW5pbmeUjAZy"
    "ZWdpb26UjAl1cy1lYXN0LTKUdWKMCXNpbXVsYXRvcpSMBXdvcmxklHViLg=="
)

LOADED = "\nprint(json.dumps({{'loaded': sorted(m for m in {watched!r} if m in sys.modules), {extra}}}))\n"

UNPICKLE = """
import base64, json, sys
import dill, pulumi.dynamic
provider = dill.loads(base64.b64decode(sys.stdin.read()))  # as pulumi.dynamic.__main__ does
""" + LOADED.format(
    watched=NOT_AT_UNPICKLE,
    extra="'type': type(provider).__module__ + '.' + type(provider).__qualname__, 'state': {k: repr(v) for k, v in vars(provider).items()}",
)

DECLARE_DEMO = DECLARE_DEMO_UNDER_MOCKS + LOADED.format(watched=NOT_IN_PROGRAM, extra="'registered': sorted(mocks.registered)")


def test_importing_the_components_package_loads_no_component():
    found = run_fresh(
        "import json, sys\nimport pulumi_hyperpod.components\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('pulumi_hyperpod'))))"
    )
    assert json.loads(found) == ["pulumi_hyperpod", "pulumi_hyperpod._lazy", "pulumi_hyperpod._moved", "pulumi_hyperpod.components"]


def test_declaring_the_demo_cluster_loads_only_what_the_program_runs():
    found = json.loads(run_fresh(DECLARE_DEMO))
    assert found["registered"] == ["hyperpod:index:SlurmCluster", "pulumi-python:dynamic/hyperpod:Cluster"]  # it was declared
    assert found["loaded"] == []


def test_unpickling_a_stored_provider_loads_only_its_module_and_keeps_its_state():
    found = json.loads(run_fresh(UNPICKLE, stdin=STORED_PROVIDER))
    assert found["type"] == "pulumi_hyperpod.provider.provider.ClusterProvider"
    assert found["state"] == {
        "simulator": "'world'",
        "defaults": "Defaults(backend='fake', region='us-east-2', profile='training')",
    }
    assert found["loaded"] == []


def test_the_provider_pickles_as_stacks_hold_it():
    """`__provider` is an input of every cluster resource: other bytes would be a change in every
    stack's next preview."""
    provider = ClusterProvider("world")
    provider.defaults = Defaults(backend="fake", region="us-east-2", profile="training")
    assert serialize_provider(provider) == STORED_PROVIDER


def test_every_public_component_name_still_resolves():
    from pulumi_hyperpod.components import args, eks, slurm

    defined = {**vars(args), **vars(eks), **vars(slurm)}
    assert {name: getattr(components, name) for name in components.__all__} == {name: defined[name] for name in components.__all__}
    assert set(components.__all__) <= set(dir(components))
    assert (args.EksClusterArgs, args.EksGroupArgs) == (eks.EksClusterArgs, eks.EksGroupArgs)  # their former module's names
    try:
        components.NotAComponent  # noqa: B018 - the lookup is the test
    except AttributeError as error:
        assert "has no attribute 'NotAComponent'" in str(error)
    else:
        raise AssertionError("an unknown name resolved")


def test_every_core_module_but_the_collector_backends_and_messages_is_watched():
    import pkgutil

    import pulumi_hyperpod.core as core

    modules = {f"pulumi_hyperpod.core.{m.name}" for m in pkgutil.iter_modules(core.__path__)}
    assert modules - set(NOT_AT_UNPICKLE) == {
        "pulumi_hyperpod.core.collector",
        "pulumi_hyperpod.core.backends",
        "pulumi_hyperpod.core.messages",
    }
