"""The one error renderer (core/messages.py): what the user reads for each error a front end words,
with its label and exit code; None for a bug. Importing it loads no click, rich, pulumi or cloud."""

from __future__ import annotations

import subprocess
import sys

from types import SimpleNamespace

import pytest

from pulumi_hyperpod.core.messages import (
    AWS_ERRORS,
    CLUSTER_NAME_TAKEN,
    EXIT_INTERRUPTED,
    NO_AWS_CREDENTIALS,
    NO_AWS_REGION,
    Rendered,
    render,
)
from tests.support.paths import REPO


def _contract(name: str, *args):
    from pulumi_hyperpod.core import contract

    return getattr(contract, name)(*args)


PLAN = SimpleNamespace(cluster_name="c", refusals=[SimpleNamespace(rule="protected_nodes", reason="would remove node-1")])


def _client_error():
    from botocore.exceptions import ClientError

    return ClientError({"Error": {"Code": "ValidationException", "Message": "bad [/x] name"}}, "DescribeCluster")


def _input_error():
    from pulumi_hyperpod.core.errors import SpecError, Violation

    return SpecError([Violation("a", "must be 1"), Violation("b", "must be 2")], source="spec.json")


def _gcp_error():
    from pulumi_hyperpod.gcp.client import GcpApiError

    return GcpApiError("GetModelDevelopmentCluster", 403, "PERMISSION_DENIED", "no access")


@pytest.mark.parametrize(
    "make, label, code",
    [
        (lambda: _contract("PlanRefused", PLAN), "refused", 2),
        (lambda: _contract("PlanStale", PLAN, ["group workers grew"]), "stale plan", 1),
        (lambda: _contract("ApplyInterrupted", "c", ["UpdateCluster"], "during step 1/1 (UpdateCluster)"), "interrupted", EXIT_INTERRUPTED),
        (lambda: _contract("ConcurrentChange", "c", ["a group was added"], []), "error", 1),
        (lambda: _contract("ApplyError", "UpdateCluster failed", ["CreateCluster"]), "error", 1),
        (lambda: _contract("PlanInvalid", "step 1 names another cluster"), "error", 1),
        (_client_error, "error", 1),
        (_gcp_error, "error", 1),
        (_input_error, "error", 1),
        (lambda: FileNotFoundError(2, "No such file or directory"), "error", 1),
        (lambda: LookupError("no cluster c in us-west-2"), "error", 1),
    ],
)
def test_each_error_a_user_can_act_on_has_its_label_and_exit_code(make, label, code):
    rendered = render(make())
    assert isinstance(rendered, Rendered)
    assert (rendered.label, rendered.exit_code) == (label, code)
    assert rendered.lines and all(rendered.lines)
    assert rendered.message  # what a provider reports


def test_the_lines_say_file_field_rule_and_what_was_done():
    assert render(_input_error()).lines == ("spec.json: a: must be 1", "spec.json: b: must be 2")
    assert render(_client_error()).lines == ("DescribeCluster: ValidationException: bad [/x] name",)
    failed = render(_contract("ApplyError", "UpdateCluster failed", ["CreateCluster"]))
    assert failed.lines == (
        "UpdateCluster failed (calls made: CreateCluster); re-run the same command: it plans again from what is there now",
    )
    assert failed.message == "UpdateCluster failed"  # the advice names a command: the providers report the error itself
    interrupted = render(_contract("ApplyInterrupted", "c", ["UpdateCluster"], "during step 1/1 (UpdateCluster)"))
    assert not interrupted.lines[0].startswith("interrupted ")


@pytest.mark.parametrize("error", [RuntimeError("a bug"), TypeError("x"), KeyboardInterrupt(), SystemExit(3)])
def test_anything_else_is_not_worded(error):
    assert render(error) is None


def test_importing_the_renderer_loads_no_front_end_or_cloud_library():
    code = (
        "import sys; import pulumi_hyperpod.core.messages; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('click', 'rich', 'pulumi', 'botocore', 'boto3') "
        "or m.startswith(('pulumi_hyperpod.aws', 'pulumi_hyperpod.gcp'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "[]"


# ---- the AWS path's error lines (issue 39): one table, its hints per front end --------------------
def test_no_region_and_no_credentials_are_the_tables_lines_never_botocores_text():
    from botocore.exceptions import NoCredentialsError, NoRegionError

    for error, row in ((NoRegionError(), NO_AWS_REGION), (NoCredentialsError(), NO_AWS_CREDENTIALS)):
        rendered = render(error)
        assert rendered.lines == (row.text("cli"),)  # what `hyperpod` prints after `error:`
        assert rendered.message == row.text("native") == row.text("python")  # what a provider reports
        assert str(error) not in rendered.message  # "You must specify a region.", "Unable to locate credentials"


def test_a_line_is_its_fields_filled_then_the_fronts_hint():
    text = CLUSTER_NAME_TAKEN.text("python", name="c{x}", where="us-west-2 (AWS)", arn="arn:c", status="InService")
    assert text.startswith("a cluster named c{x} already exists in us-west-2 (AWS) (arn:c, InService): set adopt=True")
    native = CLUSTER_NAME_TAKEN.text("native", name="c", where="w", arn="a", status="s")
    assert "adopt: true in TypeScript and YAML, Adopt: pulumi.Bool(true) in Go, adopt=True in Python" in native


FRONTS = {"cli": "`hyperpod`", "python": "the dynamic `Cluster`", "native": "the native provider", "python+native": "both providers"}


def documented_rows() -> list[tuple[str, str, str]]:
    """The rows of docs/provider.md's table "Errors before and at create (AWS)"."""
    text = (REPO / "docs" / "provider.md").read_text(encoding="utf-8")
    section = text.split("## Errors before and at create (AWS)", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert rows[0] == "| line | said by | hint |", rows[:1]
    return [tuple(cell.strip() for cell in row.strip("|").split(" | ")) for row in rows[2:]]  # type: ignore[misc]  # after the rule


def test_the_documented_table_is_the_codes_table():
    expected = []
    for row in AWS_ERRORS:
        hints = {front: getattr(row, front) for front in ("cli", "python", "native")}
        if hints["python"] == hints["native"]:
            hints = {"cli": hints["cli"], "python+native": hints["python"]}
        expected += [(row.line, FRONTS[front], hint) for front, hint in hints.items() if hint]
    assert documented_rows() == expected
