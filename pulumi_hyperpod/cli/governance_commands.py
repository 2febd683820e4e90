"""`hyperpod plan | apply | delete -f SPEC` for a task governance spec: a compute quota
(`create-compute-quota --cli-input-json`) or the cluster's scheduler configuration
(`create-cluster-scheduler-config --cli-input-json`), found by the document's shape
(core/detect.py's `governance_resource`) and planned and applied by `aws/governance` (docs/capacity.md,
"Task governance"). The cluster commands' options that plan nodes (a policy, protected nodes, a
lifecycle bundle, a workload, a snapshot) are refused in one line, never dropped. A plan saved with
`--out` is the `hyperpod-plan/3` envelope (core/planfile.py) holding the plan, the spec and where it
was made; `apply --plan` makes the plan again from the spec and applies the saved one only when they
are the same (the version it read is still the resource's), else it is stale and nothing is called.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import EXIT_ERROR, EXIT_REFUSED, client_from, emit_json, print_error
from pulumi_hyperpod.core.contract import ApplyOptions
from pulumi_hyperpod.core import planfile
from pulumi_hyperpod.core.detect import governance_resource
from pulumi_hyperpod.core.errors import SpecError
from pulumi_hyperpod.plans import plan_renderable

SAVED = "governance"  # a saved plan's member holding the spec and where the plan was made
# options of the cluster commands that mean nothing for a compute quota or a scheduler configuration
_CLUSTER_ONLY = (
    "policy_file",
    "protect",
    "no_preflight",
    "reboot",
    "replace",
    "lifecycle",
    "slurm_file",
    "workload_files",
    "read_workload",
    "workload_command",
    "kubeconfig",
    "kube_context",
    "snapshot",
    "project",
    "location",
    "cluster_id",
)


def declares(spec_file: str | None) -> bool:
    """Whether -f SPEC is a task governance spec (read again by its loader)."""
    from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - YAML: only a command given a file reads one (tests/cli_startup)

    return bool(spec_file) and governance_resource(read_document(str(spec_file), SpecError)) is not None


def _refuse_cluster_options(ctx: click.Context, params: dict[str, Any]) -> None:
    given = [
        name for name in _CLUSTER_ONLY if params.get(name) and ctx.get_parameter_source(name) == click.core.ParameterSource.COMMANDLINE
    ]
    what = params.get("spec_file") or params.get("plan_file")
    if given:
        flags = ", ".join(param.opts[0] for param in ctx.command.params if param.name in given)
        raise ValueError(
            f"{flags}: for cluster specs; {what} is a task governance spec or plan (a compute quota or a scheduler configuration)"
        )
    if params.get("cloud") == "gcp":
        raise ValueError(f"--cloud gcp: {what} is a HyperPod task governance spec or plan")


def _prepared(ctx: click.Context, params: dict[str, Any], *, delete: bool = False) -> tuple[Any, Any, str]:
    """(the client, the plan, what it is for: the plan's header and last line name the resource, not its cluster)."""
    from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore's model: only a governance spec loads it (tests/cli_startup)

    _refuse_cluster_options(ctx, params)
    spec = governance.load(params["spec_file"])  # every problem, before any call
    client = client_from(ctx)
    return client, governance.prepare(client, spec, delete=delete), spec.label


def _show(the_plan: Any, as_json: bool, label: str) -> None:
    if as_json:
        click.echo(the_plan.to_json())
    else:
        common.out.print(plan_renderable(the_plan, subject=f"{label} on cluster {the_plan.cluster_name}"))


def status(ctx: click.Context, params: dict[str, Any]) -> None:
    """The resource as Describe* answers it: a line, or its JSON; exit 1 when there is none."""
    from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore's model: only a governance spec loads it (tests/cli_startup)

    _refuse_cluster_options(ctx, params)
    spec = governance.load(params["spec_file"])
    found = governance.observe.read(client_from(ctx), spec)
    resource = found.resource
    if params["as_json"]:
        emit_json(resource if resource is not None else {"exists": False})
    elif resource is not None:
        version = resource[spec.kind.version_member]
        common.print_line(
            f"{spec.label} on cluster {found.cluster.name}: {resource['Status']}, version {version} ({resource[spec.kind.arn_member]})"
        )
    if resource is None:
        if not params["as_json"]:
            raise LookupError(f"no {spec.label} on cluster {found.cluster.name}")
        sys.exit(EXIT_ERROR)


def plan(ctx: click.Context, params: dict[str, Any]) -> None:
    """The plan; with --out, saved for `apply --plan` (the spec and where it was made, the plan)."""
    from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore's model: only a governance spec loads it (tests/cli_startup)
    from pulumi_hyperpod.cli.clouds import front  # noqa: PLC0415 - the cluster fronts: only a saved plan needs the target
    from pulumi_hyperpod.cli.outputs import command_inputs  # noqa: PLC0415 - with the target

    inputs = command_inputs(ctx)
    client, the_plan, label = _prepared(ctx, params)
    _show(the_plan, params["as_json"], label)
    out_file = params.get("out_file")
    if out_file:
        spec = governance.load(params["spec_file"])
        body = {"plan": the_plan.to_dict(), SAVED: {"spec": spec.request, "target": front("aws").target(ctx, client)}}
        try:
            planfile.write(out_file, planfile.seal("aws", body), inputs=inputs)
        except OSError as error:
            print_error(f"{out_file}: the plan cannot be saved ({error.strerror or error})")
            sys.exit(EXIT_ERROR)
        if not params["as_json"]:
            common.print_line(f"plan saved to {out_file}: apply it with `hyperpod apply --plan {out_file}`", console=common.err)
    common.exit_for_plan(the_plan, params["detailed_exitcode"])


def saved(plan_file: str | None) -> bool:
    """Whether --plan FILE is a saved task governance plan (any other file: the cluster loader says what it is)."""
    if not plan_file:
        return False
    try:
        return SAVED in planfile.read(plan_file)
    except (ValueError, OSError):
        return False


def _saved_plan(ctx: click.Context, params: dict[str, Any]) -> tuple[Any, Any, str]:
    """The saved plan, once it is the plan made again now from its spec: a plan made before the resource
    moved (another writer's update, a new version) is stale, and nothing is called."""
    from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore's model: only a governance plan loads it
    from pulumi_hyperpod.aws.governance.apply import stale_reasons  # noqa: PLC0415 - with the model
    from pulumi_hyperpod.cli.clouds import front  # noqa: PLC0415 - the cluster fronts: the target's check
    from pulumi_hyperpod.core.contract import PlanStale  # noqa: PLC0415 - with the model
    from pulumi_hyperpod.plans.model import Plan  # noqa: PLC0415 - with the model

    _refuse_cluster_options(ctx, params)
    path = params["plan_file"]
    data = planfile.read(path, cloud="aws")
    client = client_from(ctx)
    made_at, here = data[SAVED].get("target"), front("aws").target(ctx, client)
    if made_at != here:
        raise planfile.SavedPlanError(f"{path}: made for {made_at}, applied to {here}; make the plan again there")
    the_plan = Plan.from_dict(data["plan"])
    spec = governance.from_dict(data[SAVED]["spec"])
    now = governance.prepare(client, spec)
    if (now.action, now.steps, now.refusals) != (the_plan.action, the_plan.steps, the_plan.refusals):
        moved = stale_reasons(client, the_plan, the_plan.steps[0]) if the_plan.steps else []
        raise PlanStale(the_plan, moved or [f"the plan made again now is to {now.action}, not {the_plan.action}"])
    return client, the_plan, spec.label


def apply(ctx: click.Context, params: dict[str, Any], *, delete: bool = False) -> None:
    """Plan (of the deletion, with `delete`), show, confirm, apply, wait as --wait says."""
    from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore's model: only a governance spec loads it (tests/cli_startup)

    wait = "none" if params.get("no_wait") or params.get("wait_policy") == "none" else "InService"
    timeout = common.check_timeout(params["timeout"] if params.get("timeout") is not None else 1800.0)
    client, the_plan, label = _saved_plan(ctx, params) if params.get("plan_file") else _prepared(ctx, params, delete=delete)
    as_json = params["as_json"]
    if not as_json:
        _show(the_plan, False, label)
    if the_plan.refused:
        if as_json:
            emit_json({"plan": the_plan.to_dict(), "result": None})
        print_error("nothing was changed.", label="refused")
        sys.exit(EXIT_REFUSED)
    if not the_plan.empty and not params["yes"]:
        if not sys.stdin.isatty():
            raise ValueError(
                f"refusing to {'delete' if delete else 'apply'} without confirmation: pass --yes (there is no terminal to ask on)"
            )
        click.confirm("Delete it?" if delete else "Apply this plan?", abort=True, err=as_json)
    say = (lambda _message: None) if as_json else (lambda message: common.print_line(f"• {message}", console=common.err))
    options = ApplyOptions(wait=wait, timeout=timeout, poll_seconds=_poll(ctx), progress=say)
    result = governance.execute(client, the_plan, options)
    if as_json:
        emit_json(
            {
                "plan": the_plan.to_dict(),
                "result": {"outcome": result.outcome, "calls": result.calls, "failures": result.failures, "messages": result.messages},
            }
        )
    else:
        for failure in result.failures:
            print_error(failure, label="failed")
        common.print_line(f"outcome: {result.outcome}; calls: {', '.join(result.calls) or 'none'}")
    if result.failures or result.outcome == "timeout":
        sys.exit(EXIT_ERROR)


def _poll(ctx: click.Context) -> float:
    from pulumi_hyperpod.aws.client import default_poll_seconds  # noqa: PLC0415 - botocore: only an apply loads it (tests/cli_startup)

    return default_poll_seconds(ctx.find_root().obj["backend"])
