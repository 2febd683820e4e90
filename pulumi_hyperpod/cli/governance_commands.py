"""`hyperpod plan | apply | delete -f SPEC` for a task governance spec: a compute quota
(`create-compute-quota --cli-input-json`) or the cluster's scheduler configuration
(`create-cluster-scheduler-config --cli-input-json`), found by the document's shape
(core/detect.py's `governance_resource`) and planned and applied by `aws/governance` (docs/capacity.md,
"Task governance"). The cluster commands' options that plan nodes (a policy, protected nodes, a
lifecycle bundle, a workload, a snapshot, a saved plan) are refused in one line, never dropped.
"""

from __future__ import annotations

import sys
from typing import Any

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.common import EXIT_ERROR, EXIT_REFUSED, client_from, emit_json, print_error
from pulumi_hyperpod.core.contract import ApplyOptions
from pulumi_hyperpod.core.detect import governance_resource
from pulumi_hyperpod.core.errors import SpecError
from pulumi_hyperpod.plans import plan_renderable

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
    "out_file",
    "plan_file",
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
    if given:
        flags = ", ".join(param.opts[0] for param in ctx.command.params if param.name in given)
        raise ValueError(
            f"{flags}: for cluster specs; {params['spec_file']} is a task governance spec (a compute quota or a scheduler configuration)"
        )
    if params.get("cloud") == "gcp":
        raise ValueError(f"--cloud gcp: {params['spec_file']} is a HyperPod task governance spec")


def _prepared(ctx: click.Context, params: dict[str, Any], *, delete: bool = False) -> tuple[Any, Any]:
    from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore's model: only a governance spec loads it (tests/cli_startup)

    _refuse_cluster_options(ctx, params)
    spec = governance.load(params["spec_file"])  # every problem, before any call
    client = client_from(ctx)
    return client, governance.prepare(client, spec, delete=delete)


def _show(the_plan: Any, as_json: bool) -> None:
    if as_json:
        click.echo(the_plan.to_json())
    else:
        common.out.print(plan_renderable(the_plan))


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
    _client, the_plan = _prepared(ctx, params)
    _show(the_plan, params["as_json"])
    common.exit_for_plan(the_plan, params["detailed_exitcode"])


def apply(ctx: click.Context, params: dict[str, Any], *, delete: bool = False) -> None:
    """Plan (of the deletion, with `delete`), show, confirm, apply, wait as --wait says."""
    from pulumi_hyperpod.aws import governance  # noqa: PLC0415 - botocore's model: only a governance spec loads it (tests/cli_startup)

    wait = "none" if params.get("no_wait") or params.get("wait_policy") == "none" else "InService"
    timeout = common.check_timeout(params["timeout"] if params.get("timeout") is not None else 1800.0)
    client, the_plan = _prepared(ctx, params, delete=delete)
    as_json = params["as_json"]
    if not as_json:
        _show(the_plan, False)
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
