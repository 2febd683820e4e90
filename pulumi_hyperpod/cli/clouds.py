"""What `hyperpod plan | apply | status | delete` (plan_commands.py) need from each cloud beyond the
`Cloud` interface (core/cloud.py): its client from the command-line options, how it reads a spec
and names a cluster, its context for plan and apply, where a saved plan is for, and how its
cluster is shown. One adapter per cloud, the commands written once over them.

Every module of a cloud is imported in the method that uses it: a HyperPod command never loads the
Google Cloud package, and the other way round.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

import click

from pulumi_hyperpod.cli.common import check_cluster_name, client_from, load_policy, region_of
from pulumi_hyperpod.aws.client import DEFAULT_REGION, default_poll_seconds
from pulumi_hyperpod.core.errors import SnapshotError
from pulumi_hyperpod.cli.workload_commands import workload_source
from pulumi_hyperpod.aws.context import AwsContext
from pulumi_hyperpod.cli.tables import status_table
from pulumi_hyperpod.core import cloud, planfile

if TYPE_CHECKING:  # pragma: no cover
    from rich.console import RenderableType

    from pulumi_hyperpod.core.cloud import Prepared

Options = Mapping[str, Any]  # the command's parameters (click's ctx.params)

OFFLINE = "planned offline from a snapshot (--observed): no API call, so service quotas and node build configurations were not read"
NO_PREFLIGHT = "--no-preflight: service quotas and node build configurations were not read"
GCP_OFFLINE = "offline: planned from a snapshot"
GCP_NO_PREFLIGHT = "--no-preflight: machine types, reservations and Compute Engine quotas were not read"

_WORKLOAD_KEY = "hyperpod.workload"  # ctx.meta: the workload source a plan was made with, for its apply


class CloudFront(Protocol):
    """A cloud as the four commands drive it."""

    cloud: str  # the registry's name (core/cloud.py)
    title: str  # as options and messages name it: "HyperPod", "Google Cloud"
    timeout: float  # apply's and delete's --timeout default, in seconds
    delete_wait: str  # what delete waits for by default

    def client(self, ctx: click.Context) -> Any: ...

    def target(self, ctx: click.Context, client: Any) -> dict[str, Any]: ...

    def planned(self, ctx: click.Context, options: Options, *, saved: bool) -> Prepared[Any, Any, Any]: ...

    def saved(self, ctx: click.Context, options: Options, client: Any) -> Prepared[Any, Any, Any]: ...

    def apply_context(self, ctx: click.Context, options: Options, prepared: Prepared[Any, Any, Any]) -> Any: ...

    def poll_seconds(self, ctx: click.Context) -> float | None: ...

    def cluster_name(self, ctx: click.Context, spec_file: str | None, name: str | None) -> str: ...

    def missing(self, name: str, client: Any) -> str: ...

    def deletion_context(self) -> Any: ...

    def status_json(self, state: Any) -> dict[str, Any]: ...

    def status_table(self, state: Any) -> RenderableType: ...


def front(cloud: str) -> CloudFront:
    return AWS if cloud == "aws" else GCP


# ---- Amazon SageMaker HyperPod -----------------------------------------------------------------------
class AwsFront:
    cloud = "aws"
    title = "HyperPod"
    timeout = 1800.0
    delete_wait = "none"  # DeleteCluster's step completes when the cluster is gone

    def client(self, ctx: click.Context) -> Any:
        return client_from(ctx)

    def target(self, ctx: click.Context, client: Any) -> dict[str, Any]:
        """Where plans are made and applied: the backend, and the region (--region, else the client's;
        a plan made from a cluster takes the region and account from its ARN)."""
        obj = ctx.find_root().obj
        region = obj.get("region")
        if region is None and client is not None:
            region = getattr(client.meta, "region_name", None)
        if region is None and obj["backend"] == "fake":
            region = DEFAULT_REGION
        return {"backend": obj["backend"], "region": region}

    def planned(self, ctx: click.Context, options: Options, *, saved: bool) -> Prepared[Any, Any, Any]:
        """`lifecycle`: a local lifecycle bundle whose provisioning_parameters.json gives the Slurm roles of
        groups without SlurmConfig.NodeType; without it they are read from the groups' SourceS3Uri.
        `slurm_file`: a Slurm spec whose changes against the cluster's bundle the plan shows per key."""

        slurm_file, lifecycle = options.get("slurm_file"), options.get("lifecycle")
        spec = _aws_spec(options["spec_file"], slurm_file)
        policy = load_policy(options.get("policy_file"), options["protect"], replace=options["replace"], reboot=options["reboot"])
        workload = workload_source(
            ctx,
            spec.name,
            options["workload_files"],
            options["read_workload"],
            options["workload_command"],
            options["kubeconfig"],
            options["kube_context"],
        )
        ctx.meta[_WORKLOAD_KEY] = workload
        slurm = None
        if slurm_file:
            from pulumi_hyperpod.aws.slurm.hyperpod import partition_names  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
            from pulumi_hyperpod.slurm import check_references  # noqa: PLC0415 - the Slurm layer (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
            from pulumi_hyperpod.slurm.spec import SlurmSpec  # noqa: PLC0415 - the Slurm layer (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)

            slurm = SlurmSpec.from_file(slurm_file, partition_names=partition_names())
            # partitions name groups of the cluster planned, as `slurm check` requires: before any call
            check_references(slurm, [g.name for g in spec.instance_groups], kind="instance group", source=slurm_file)
        aws = cloud.get("aws")
        snapshot = options.get("snapshot")
        if snapshot:
            from pulumi_hyperpod.aws.observe import load_snapshot  # noqa: PLC0415 - aws.observe (botocore's shapes): only a command that reads a cluster loads it (tests/cli_startup)

            context = AwsContext(region=ctx.find_root().obj.get("region"), lifecycle_dir=lifecycle, slurm=slurm, workload=workload)
            observed = load_snapshot(snapshot, spec.name)  # checked: shapes, consistency, the spec's cluster
            return cloud.prepare(aws, None, spec, policy, observed=observed, skip_preflight=OFFLINE, context=context)
        client = client_from(ctx)
        no_preflight = options.get("no_preflight", False)
        # made only for a plan that adds instances (preflight calls it): no second client otherwise
        quotas = None if no_preflight else (lambda: client_from(ctx, "service-quotas"))
        context = AwsContext(
            quotas=quotas, s3=lambda: client_from(ctx, "s3"), lifecycle_dir=lifecycle, slurm=slurm, workload=workload, events=saved
        )
        return cloud.prepare(aws, client, spec, policy, skip_preflight=NO_PREFLIGHT if no_preflight else None, context=context)

    def saved(self, ctx: click.Context, options: Options, client: Any) -> Prepared[Any, Any, Any]:
        """A saved plan, with its account checks run again now (quotas, lifecycle consistency): what is
        shown is what holds at apply, not what the file says. One saved as skipped (offline,
        --no-preflight) stays so."""
        if options["workload_files"]:
            raise ValueError("--workload files were read when the plan was made; to drain, give --read-workload or --workload-command")
        prepared = planfile.load(options["plan_file"], cloud="aws", target=self.target(ctx, client))
        saved = prepared.plan.preflight
        if prepared.plan.refused or saved is None or saved.skipped is not None:
            return prepared
        the_plan = dataclasses.replace(prepared.plan, preflight=None)
        assert prepared.context is not None  # a HyperPod plan file always carries its context (aws/saved.py)
        context = dataclasses.replace(prepared.context, quotas=lambda: client_from(ctx, "service-quotas"))
        request = cloud.PlanRequest(prepared.desired, prepared.observed, prepared.policy, context)
        checked = cloud.get("aws").preflight(the_plan, request, client)
        return dataclasses.replace(prepared, plan=checked)

    def apply_context(self, ctx: click.Context, options: Options, prepared: Prepared[Any, Any, Any]) -> Any:

        workload = ctx.meta.get(_WORKLOAD_KEY)
        if options.get("plan_file"):  # a saved plan: the workload is read now, to drain through
            workload = workload_source(
                ctx,
                prepared.plan.cluster_name,
                (),
                options["read_workload"],
                options["workload_command"],
                options["kubeconfig"],
                options["kube_context"],
            )
        roles = prepared.context.role_map() if prepared.context is not None else {}
        return AwsContext(roles=roles, workload=workload)

    def poll_seconds(self, ctx: click.Context) -> float | None:

        poll: float | None = default_poll_seconds(ctx.find_root().obj["backend"])  # $HYPERPOD_POLL_SECONDS, checked before any call
        return poll

    def cluster_name(self, ctx: click.Context, spec_file: str | None, name: str | None) -> str:

        if name is not None:
            return check_cluster_name(name)
        if spec_file:
            return str(_aws_spec(spec_file, None).name)
        raise ValueError("give the cluster's NAME (or -f SPEC)")

    def missing(self, name: str, client: Any) -> str:

        return f"no cluster {name} in {region_of(client)}"

    def deletion_context(self) -> Any:

        return AwsContext(cost=False)  # the plan as `hyperpod delete` has always shown it: without a cost section

    def status_json(self, state: Any) -> dict[str, Any]:
        return {
            "name": state.name,
            "arn": state.arn,
            "status": state.status,
            "failure_message": state.failure_message,
            "node_provisioning_mode": state.node_provisioning_mode,
            "groups": [
                {
                    "name": g.name,
                    "node_type": g.node_type,
                    "status": g.status,
                    "current": g.current_count,
                    "target": g.target_count,
                    "min": g.min_count,
                    "instance_types": list(g.instance_types),
                    "restricted": g.restricted,
                }
                for g in state.groups
            ],
            "nodes": len(state.nodes),
        }

    def status_table(self, state: Any) -> RenderableType:

        return status_table(state)


def _aws_spec(spec_file: str, slurm_file: str | None) -> Any:
    """The cluster spec. With --slurm, groups without SlurmConfig get their role from the Slurm spec,
    as `slurm render` fills them in: a cluster.json written for render plans as it is."""
    from pulumi_hyperpod.aws.spec import ClusterSpec, SpecError  # noqa: PLC0415 - the AWS spec's models: only a command given a spec or policy loads them (tests/cli_startup)

    if not slurm_file:
        return ClusterSpec.from_file(spec_file)
    from pulumi_hyperpod.aws.slurm.hyperpod import partition_names  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
    from pulumi_hyperpod.aws.slurm.render import load_cluster  # noqa: PLC0415 - the HyperPod Slurm rendering (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)
    from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML: only a command given a file reads one (tests/cli_startup)
    from pulumi_hyperpod.slurm.spec import SlurmSpec, SlurmSpecError  # noqa: PLC0415 - the Slurm layer (pydantic, YAML): only a Slurm spec loads it (tests/cli_startup)

    data = read_document(spec_file, SpecError)
    if not isinstance(data, dict):
        return ClusterSpec.from_file(spec_file)  # the spec's own one-line error
    try:
        return load_cluster(data, SlurmSpec.from_file(slurm_file, partition_names=partition_names()), source=spec_file)
    except SlurmSpecError as error:  # a partition or role the Slurm spec gets wrong: named in that file
        raise SlurmSpecError(error.violations, source=slurm_file) from None


# ---- Google Cloud training clusters ------------------------------------------------------------------
class GcpFront:
    cloud = "gcp"
    title = "Google Cloud"
    timeout = 7200.0
    delete_wait = "InService"  # on the delete's long-running operation

    def backend(self, ctx: click.Context) -> str:
        """`hyperpod gcp --backend`, else the simulator when `hyperpod --backend fake`, else the service."""
        gcp_group = ctx.find_root().meta.get(GCP_GROUP_KEY, {})
        chosen = gcp_group.get("backend")
        if chosen:
            return str(chosen)
        return "fake" if ctx.find_root().obj.get("backend") == "fake" else "gcp"

    def client(self, ctx: click.Context) -> Any:
        from pulumi_hyperpod.gcp.client import connect  # noqa: PLC0415 - the GCP packages (pydantic): only a GCP command loads them (tests/cli_startup)

        return connect(self.backend(ctx))

    def target(self, ctx: click.Context, client: Any) -> dict[str, Any]:
        return {"backend": self.backend(ctx)}

    def _spec(self, ctx: click.Context, spec_file: str) -> Any:
        from pulumi_hyperpod.gcp.spec import ClusterSpec  # noqa: PLC0415 - the GCP packages (pydantic): only a GCP command loads them (tests/cli_startup)

        return ClusterSpec.from_file(spec_file, *gcp_option(ctx, "project", "location", "cluster_id"))

    def planned(self, ctx: click.Context, options: Options, *, saved: bool) -> Prepared[Any, Any, Any]:
        """Against `--observed` (no call) or the live cluster, through the one pipeline."""

        gcp = cloud.get("gcp")
        spec = self._spec(ctx, options["spec_file"])
        policy = load_policy(options.get("policy_file"), options["protect"])
        snapshot = options.get("snapshot")
        if snapshot:
            observed = _gcp_snapshot(snapshot)
            if observed is not None and observed.name != spec.name:
                raise ValueError(f"{snapshot}: the snapshot is of {observed.name}, the spec is {spec.name}")
            return cloud.prepare(gcp, None, spec, policy, observed=observed, skip_preflight=GCP_OFFLINE)
        skipped = GCP_NO_PREFLIGHT if options.get("no_preflight") else None
        return cloud.prepare(gcp, self.client(ctx), spec, policy, skip_preflight=skipped)

    def saved(self, ctx: click.Context, options: Options, client: Any) -> Prepared[Any, Any, Any]:
        """Format, version, integrity, size and backend checked, the plan re-derived from its saved
        inputs and required to be the same (gcp/pipeline/saved.py), before any call."""
        return planfile.load(options["plan_file"], cloud="gcp", target=self.target(ctx, client))

    def apply_context(self, ctx: click.Context, options: Options, prepared: Prepared[Any, Any, Any]) -> Any:
        return None

    def poll_seconds(self, ctx: click.Context) -> float | None:
        return None  # the client's own (its operations' polling)

    def cluster_name(self, ctx: click.Context, spec_file: str | None, name: str | None) -> str:
        from pulumi_hyperpod.gcp.spec.names import parse_name  # noqa: PLC0415 - the GCP packages (pydantic): only a GCP command loads them (tests/cli_startup)

        if spec_file:
            return str(self._spec(ctx, spec_file).name)
        if name is not None:
            project, location = gcp_option(ctx, "project", "location")
            return str(parse_name(name, project, location).full)
        raise ValueError("give -f SPEC or --name NAME")

    def missing(self, name: str, client: Any) -> str:
        return f"no cluster {name} (check the name, --project and --location)"

    def deletion_context(self) -> Any:
        return None

    def status_json(self, state: Any) -> dict[str, Any]:
        from pulumi_hyperpod.gcp.status import status_of  # noqa: PLC0415 - the GCP packages (pydantic): only a GCP command loads them (tests/cli_startup)

        shown: dict[str, Any] = status_of(state)
        return shown

    def status_table(self, state: Any) -> RenderableType:
        from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)
        from rich.text import Text  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

        table = Table(title=Text(f"{state.name} [{state.state}]"), title_justify="left")
        for column in ("pool", "machine type", "model", "target", "running", "other nodes"):
            table.add_column(column)
        for pool in state.pools:
            others: dict[str, int] = {}
            for _id, _name, node_state in pool.nodes:
                if node_state != "RUNNING":
                    others[node_state] = others.get(node_state, 0) + 1
            target = f"{pool.minimum}-{pool.target} (autoscaled)" if pool.autoscaled else str(pool.target)
            table.add_row(
                Text(pool.id),
                Text(pool.machine_type),
                Text(pool.provisioning_model or "-"),
                target,
                str(pool.running),
                ", ".join(f"{n} {s}" for s, n in sorted(others.items())) or "-",
            )
        return table


GCP_GROUP_KEY = "hyperpod.gcp"  # root ctx.meta: the `hyperpod gcp` group's options (gcp_commands.py)


def gcp_option(ctx: click.Context, *names: str) -> tuple[str | None, ...]:
    """Google Cloud options: the command's own (`hyperpod plan --project P`), else the `hyperpod gcp`
    group's (`hyperpod gcp --project P plan`)."""
    group = ctx.find_root().meta.get(GCP_GROUP_KEY, {})
    return tuple(ctx.params.get(name) or group.get(name) for name in names)


def _gcp_snapshot(path: str) -> Any:
    """A GET response saved by `hyperpod gcp snapshot` (`{}`: there was no cluster)."""
    from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML: only a command given a file reads one (tests/cli_startup)
    from pulumi_hyperpod.gcp.observe import GcpClusterState  # noqa: PLC0415 - the GCP packages (pydantic): only a GCP command loads them (tests/cli_startup)

    data = read_document(path, SnapshotError)  # bounded: size, depth, YAML 1.2, one error naming the file
    if data == {}:
        return None
    if (
        not isinstance(data, dict)
        or not isinstance(data.get("name"), str)
        or not isinstance(data.get("nodePools", data.get("node_pools")), list)
    ):
        raise ValueError(f"{path}: not a saved cluster (the JSON a GET of modelDevelopmentClusters returns)")
    try:
        return GcpClusterState.from_api(data)
    except (KeyError, TypeError, AttributeError, ValueError, RecursionError) as error:
        raise ValueError(f"{path}: not a saved cluster: {error!r}") from None


AWS = AwsFront()
GCP = GcpFront()
