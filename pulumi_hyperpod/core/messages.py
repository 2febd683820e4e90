"""What the user reads when something they can act on goes wrong, said once for every front end.

`render(error)` turns an exception into a `Rendered`: the line(s) to show (file, field, rule: one
line per problem), the label before them (`error`, `refused`, `stale plan`, `interrupted`) and the
exit code a command ends with (1; 2 for a guard's refusal; 130 for Ctrl-C during an apply). It
answers None for anything else — a bug keeps its traceback. The CLI prints the lines
(cli/common.handle_errors); a provider reports `Rendered.message`, one string.

The error classes are looked up in `sys.modules`, never imported: an error of a module that was
never imported cannot have been raised, and importing botocore or the Google Cloud client only to
say so would cost every command (and a HyperPod provider process) its import. So nothing here
imports click, rich, pulumi or a cloud at module level.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from typing import Any, Literal

EXIT_ERROR, EXIT_REFUSED, EXIT_INTERRUPTED = 1, 2, 130  # as core/contract.py and cli/common.py say them
Front = Literal["cli", "python", "native"]  # whose words a hint is in (ErrorLine)


@dataclass(frozen=True, slots=True)
class ErrorLine:
    """One error of the AWS path: the line that says what is wrong, then what to do in the terms of
    each front end — `hyperpod` (`cli`), the dynamic `Cluster`, whose program is Python (`python`),
    and the native provider (`native`), which cannot know its program's language: the engine's
    requests do not carry it, so its hint names the input in the schema's terms and each SDK's
    spelling. '' where a front end never meets the error. The table in docs/provider.md ("Errors
    before and at create") is this one (tests/unit/core/test_messages.py compares them)."""

    line: str  # a template: `{name}`-style fields filled by `text`
    cli: str
    python: str
    native: str

    def text(self, front: Front, **values: str) -> str:
        """`line: hint` for `front` ("cli", "python" or "native"), the fields filled in."""
        hint: str = getattr(self, front)
        return f"{self.line.format(**values)}: {hint}"


_PULUMI_REGION = (
    "set the resource's region input, or `pulumi config set hyperpod:region REGION` (or aws:region), "
    "or AWS_REGION (or AWS_DEFAULT_REGION), or region in the AWS profile's config"
)
_PULUMI_CREDENTIALS = (
    "set AWS_PROFILE, or the resource's profile input, or `pulumi config set hyperpod:profile NAME`; "
    "to try without AWS, `pulumi config set hyperpod:backend fake`"
)

NO_AWS_REGION = ErrorLine(
    "no AWS region",
    cli="give --region, or set AWS_REGION (or AWS_DEFAULT_REGION), or region in the AWS profile's config",
    python=_PULUMI_REGION,
    native=_PULUMI_REGION,
)
NO_AWS_CREDENTIALS = ErrorLine(
    "no AWS credentials found",
    cli="set AWS_PROFILE or use --profile; to try without AWS, use --backend fake",
    python=_PULUMI_CREDENTIALS,
    native=_PULUMI_CREDENTIALS,
)
CLUSTER_NAME_TAKEN = ErrorLine(
    "a cluster named {name} already exists in {where} ({arn}, {status})",
    cli="",  # `hyperpod plan`/`apply` plan against the cluster there: nothing to adopt
    python="set adopt=True to bring it under this stack (it is then updated to match the spec), or choose another cluster name",
    native=(
        "set the resource's adopt input to true to bring it under this stack (it is then updated to match the spec): "
        "adopt: true in TypeScript and YAML, Adopt: pulumi.Bool(true) in Go, adopt=True in Python; or choose another cluster name"
    ),
)
AWS_ERRORS = (NO_AWS_REGION, NO_AWS_CREDENTIALS, CLUSTER_NAME_TAKEN)  # the table, in its order


@dataclass(frozen=True, slots=True)
class Rendered:
    """An error as the user reads it: `lines` after `label:`, then exit `exit_code`."""

    lines: tuple[str, ...]
    label: str = "error"
    exit_code: int = EXIT_ERROR
    summary: str | None = None  # the one string a provider reports, when not the lines joined

    @property
    def message(self) -> str:
        """The whole message as one string (a provider's failure, a native check failure)."""
        if self.summary is not None:
            return self.summary
        text = "\n".join(self.lines)
        return text if self.label == "error" else f"{self.label}: {text}"


def apply_failed(error: BaseException) -> str:
    """A call failed for good: what was done, and what to do."""
    done = getattr(error, "done", None) or []
    return f"{error} (calls made: {', '.join(done) or 'none'}); re-run the same command: it plans again from what is there now"


def _loaded(module: str, *names: str) -> tuple[type, ...]:
    """The classes `names` of `module` when it is imported (none otherwise)."""
    found = sys.modules.get(module)
    if found is None:
        return ()
    return tuple(cls for cls in (getattr(found, name, None) for name in names) if isinstance(cls, type))


def _is(error: BaseException, module: str, *names: str) -> bool:
    classes = _loaded(module, *names)
    return bool(classes) and isinstance(error, classes)


def render(error: BaseException) -> Rendered | None:
    """How `error` is said to the user, or None when it is not an error a user can act on (a bug, a
    plain KeyboardInterrupt, click's own exceptions: the caller lets them go on).

    The order matters where classes nest: an InputError first (bad input: one line per problem),
    the apply contract (ApplyInterrupted is a KeyboardInterrupt; ConcurrentChange an ApplyError;
    PlanInvalid a ValueError), the clouds' service errors, then OSError/ValueError/LookupError."""
    if _is(error, "pulumi_hyperpod.core.errors", "InputError"):
        return Rendered(tuple(error.lines()), summary=str(error))  # type: ignore[attr-defined]
    contract = "pulumi_hyperpod.core.contract"
    if _is(error, contract, "PlanRefused"):
        return Rendered((str(error),), "refused", EXIT_REFUSED, summary=str(error))
    if _is(error, contract, "PlanStale"):  # the cluster moved: re-plan (1), not a guard's refusal (2)
        return Rendered((str(error),), "stale plan", summary=str(error))
    if _is(error, contract, "ApplyInterrupted"):  # Ctrl-C: what was sent, what was under way, how to resume
        return Rendered((str(error).removeprefix("interrupted "),), "interrupted", EXIT_INTERRUPTED, summary=str(error))
    if _is(error, contract, "ConcurrentChange"):  # says already what was done and what to do
        return Rendered((str(error),))
    if _is(error, contract, "ApplyError"):
        return Rendered((apply_failed(error),), summary=str(error))  # the advice is the CLI's: re-run the command
    if not isinstance(error, Exception):
        return None  # KeyboardInterrupt, SystemExit, GeneratorExit: not ours to word
    said = _botocore(error)
    if said is not None:
        return said
    gcp = _is(error, "pulumi_hyperpod.gcp.client", "GcpApiError", "OperationTimeout", "CredentialsMissing")
    if gcp or _is(error, "pulumi_hyperpod.core.extras", "MissingExtra"):  # MissingExtra: an optional part not installed
        return Rendered((str(error),))
    if _is(error, "pulumi_hyperpod.provider.errors", "ProviderError"):
        return Rendered((str(error) or type(error).__name__,))
    if isinstance(error, (OSError, ValueError, LookupError)):  # SavedPlanError and PlanInvalid are ValueErrors
        return Rendered((str(error),))
    return None


def _botocore(error: Exception) -> Rendered | None:
    """botocore's errors, when botocore is loaded: a missing region or credentials as the table's line
    (the CLI's hint on the line it prints, a provider's — Python and native alike — as its message)."""
    botocore = sys.modules.get("botocore.exceptions")
    if botocore is None:
        return None
    if isinstance(error, botocore.NoCredentialsError):
        return Rendered((NO_AWS_CREDENTIALS.text("cli"),), summary=NO_AWS_CREDENTIALS.text("native"))
    if isinstance(error, botocore.NoRegionError):
        return Rendered((NO_AWS_REGION.text("cli"),), summary=NO_AWS_REGION.text("native"))
    if isinstance(error, botocore.ClientError):
        detail: dict[str, Any] = error.response.get("Error", {})
        return Rendered((f"{error.operation_name}: {detail.get('Code')}: {detail.get('Message')}",), summary=str(error))
    if isinstance(error, botocore.BotoCoreError):
        return Rendered((str(error),))
    return None
