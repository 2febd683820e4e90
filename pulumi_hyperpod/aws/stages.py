"""HyperPod's stages around the pure planner, as the one pipeline (core/cloud.prepare) calls them
through the AWS cloud (aws/cloud.py). They call nothing above them: aws/pipeline (the library API)
and the saved-plan loader (aws/saved.py) use them, never the other way.

- `read_inputs` — what else the plan is made from, read now: the cluster's tags (only a spec that
  manages tags pays for ListTags), its extensions (only a spec that names `Extensions` pays for
  ListClusterExtensions, and DescribeClusterExtension per extension listed), its newest event (a plan to be saved: `context.events`), the workload view (what runs on each node), the region of the
  client, and the Slurm roles of groups without SlurmConfig.NodeType, learnt from the lifecycle
  bundle (`lifecycle_dir`, else each group's LifeCycleConfig.SourceS3Uri read through `s3`), for a
  create too, so that a malformed bundle is refused before the cluster exists; a role that cannot
  be learnt stays unknown (the planner then refuses to scale a group to 0). A simulated world whose
  clock is not this machine's adds a note saying its time (the plan's times, launch times and costs
  are the simulator's).
- `make_plan` — plan() then its cost section (and the budget guard): the AWS cloud's plan stage.
- `annotate` — the plan with HyperPod's own sections: a legacy Slurm cluster's migration to
  SlurmConfig said whole, the notes, a refusal when the bundle's roles disagree with the running
  cluster's Slurm (`roles-disagree`: its sinfo lists compute nodes only), and the Slurm section (the wanted Slurm spec against the one
  in the cluster's bundle; a change HyperPod cannot make in place refused).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pulumi_hyperpod.aws.context import AwsContext
from pulumi_hyperpod.aws.planner.codes import RefusalRule
from pulumi_hyperpod.aws.cost.estimate import with_cost
from pulumi_hyperpod.aws.planner import plan
from pulumi_hyperpod.plans.policy import Policy
from pulumi_hyperpod.aws.observe.reader import (
    read_events_horizon,
    read_extensions,
    read_tags,
)  # ListTags (ListClusterExtensions) only for a spec that manages tags (extensions); the events for a saved plan's "acted" premise
from pulumi_hyperpod.core.terminal import clipped  # a Slurm node name from a --workload file is user text
from pulumi_hyperpod.plans.model import Refusal
from pulumi_hyperpod.aws.planner.premise import roles_against_slurm
from pulumi_hyperpod.aws.workload.model import WorkloadView

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import SageMakerClient
    from pulumi_hyperpod.aws.cost.prices import PriceTable
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.aws.workload.model import WorkloadView
    from pulumi_hyperpod.aws.workload.source import WorkloadSource
    from pulumi_hyperpod.plans.model import Plan
    from pulumi_hyperpod.plans.policy import Policy


def make_plan(
    desired: ClusterSpec | None,
    observed: ClusterState | None,
    policy: Policy | None = None,
    *,
    roles: Mapping[str, str] | None = None,
    prices: PriceTable | Mapping[str, Any] | None = None,
    region: str | None = None,
    workload: WorkloadView | None = None,
) -> Plan:
    """plan() then its cost section (and the budget guard). `prices`: a PriceTable, or a mapping
    merged over the shipped list prices; None reads the shipped table and $HYPERPOD_PRICES.
    `region`: where the cluster is when `observed` (whose ARN says it) is None."""
    policy = policy or Policy()
    return with_cost(plan(desired, observed, policy, roles=roles, workload=workload), desired, observed, policy, prices, region)


def read_inputs(
    client: SageMakerClient | None, desired: ClusterSpec | None, state: ClusterState | None, context: AwsContext | None
) -> tuple[ClusterState | None, AwsContext]:
    """(the observation with what else was read, the context with what was learnt)."""
    context = context or AwsContext()
    if state is not None and state.tags is None and desired is not None and desired.tags is not None and client is not None:
        state = read_tags(client, state)
    if state is not None and state.extensions is None and desired is not None and desired.extensions is not None and client is not None:
        state = read_extensions(client, state)
    if state is not None and context.events and state.events_horizon is None and client is not None:
        state = read_events_horizon(client, state)
    view = _workload_view(context.workload, state)
    region = context.region or getattr(getattr(client, "meta", None), "region_name", None)
    roles, notes = context.roles, context.notes
    # read for a create too: the bundle a new cluster will run is checked before the first call
    # (a malformed provisioning_parameters.json is the user's input), not by the first re-plan
    if not roles and (state is not None or context.lifecycle_dir is not None or context.s3 is not None):
        roles, learnt, source = _learnt_roles(desired, state, context.s3, context.lifecycle_dir)
        # a create removes no node: what its bundle says is news, that there is none (yet) is not
        notes = (*notes, *(learnt if state is not None or source is not None else ()))
    notes = (*notes, *_simulator_clock(client))
    if view is not None and view.unmatched:
        notes = (
            *notes,
            f"{view.orchestrator} nodes no HyperPod node matches (not weighed): {', '.join(clipped(name) for name in view.unmatched[:10])}"
            + (f" and {len(view.unmatched) - 10} more" if len(view.unmatched) > 10 else ""),
        )
    return state, dataclasses.replace(context, roles=dict(roles or {}), view=view, region=region, notes=notes)


def _simulator_clock(client: Any) -> tuple[str, ...]:
    """The simulated world's time when it is not this machine's: a persistent simulator's client
    carries how to say it (aws/client.simulated_client); any other client says nothing."""
    say = getattr(getattr(client, "meta", None), "hyperpod_clock_note", None)
    note = say() if callable(say) else None
    return (note,) if note else ()


def annotate(the_plan: Plan, desired: ClusterSpec | None, state: ClusterState | None, context: AwsContext | None) -> Plan:
    context = context or AwsContext()
    if state is not None and state.groups and not any(g.node_type for g in state.groups):
        # a legacy Slurm cluster moved to SlurmConfig: the whole migration said
        from pulumi_hyperpod.aws.slurm.migration import with_migration  # noqa: PLC0415 - a legacy Slurm cluster's migration only

        the_plan = with_migration(the_plan, desired, state)
    if context.notes:
        the_plan = dataclasses.replace(the_plan, notes=the_plan.notes + context.notes)
    if state is not None and context.roles and context.view is not None:
        disagree = roles_against_slurm(context.roles, state, context.view)
        the_plan = the_plan.refuse(
            *(
                Refusal(RefusalRule.ROLES_DISAGREE, f"{why}: the bundle is not how these nodes were built; nothing is planned on its word")
                for why in disagree
            )
        )
    if context.slurm is not None:
        the_plan = _with_slurm(the_plan, context.slurm, state, context.s3, context.lifecycle_dir)
    return the_plan


def _workload_view(workload: WorkloadSource | WorkloadView | None, state: ClusterState | None) -> WorkloadView | None:
    """A WorkloadView from a source (read now against `state`) or as given; None without a cluster."""
    if workload is None or state is None:
        return None
    return workload if isinstance(workload, WorkloadView) else workload.read(state)


def _with_slurm(the_plan: Plan, wanted: Any, state: Any, s3: Any, lifecycle_dir: str | None) -> Plan:
    """The plan with its Slurm section: the wanted Slurm spec against the one in the cluster's bundle."""
    from pulumi_hyperpod.aws.details import with_slurm  # noqa: PLC0415 - the Slurm section only for a Slurm spec
    from pulumi_hyperpod.aws.slurm.section import slurm_section  # noqa: PLC0415 - the Slurm section only for a Slurm spec

    section = slurm_section(wanted, state, s3_client=s3, lifecycle_dir=lifecycle_dir)
    the_plan = with_slurm(the_plan, section)
    return the_plan.refuse(*(Refusal(rule, reason) for rule, reason in section.refusals()))


def _learnt_roles(desired: Any, state: Any, s3: Any, lifecycle_dir: str | None) -> tuple[dict | None, tuple[str, ...], str | None]:
    """Slurm roles from the lifecycle bundle (pulumi_hyperpod/aws/slurm/roles.py), with its notes and
    where they came from (None: no bundle was read)."""
    stated = _stated_roles(desired, state)
    if stated is not None:
        return stated, (), "SlurmConfig"
    from pulumi_hyperpod.aws.slurm.roles import resolve  # noqa: PLC0415 - the lifecycle bundle read only when a group does not state its role

    resolution = resolve(desired, state, s3_client=s3, lifecycle_dir=lifecycle_dir)
    return resolution.roles, tuple(resolution.notes), resolution.source


def _stated_roles(*specs: Any) -> dict[str, str] | None:
    """The roles when every group of a Slurm spec and state states its SlurmConfig.NodeType: what
    slurm.roles.resolve answers first then (no notes, no bundle read), without loading that module
    (its readers and records) in a preview of such a cluster. None: resolve decides (an EKS
    cluster, or a group whose role has to be learnt)."""
    roles: dict[str, str] = {}
    for spec in specs:
        if spec is None:
            continue
        if getattr(spec, "orchestrator_kind", "Slurm") == "Eks":
            return None
        for group in getattr(spec, "instance_groups", None) or getattr(spec, "groups", None) or ():
            node_type = getattr(group, "node_type", None)
            if not node_type:
                return None
            roles.setdefault(getattr(group, "name", None), node_type)  # type: ignore[arg-type]
    return roles
