"""An identity-based IAM policy, as `hyperpod fake serve --iam-policy FILE` enforces it: each request's
action and resource against the policy's statements, and AWS's AccessDenied message for a refusal.

It is not AWS's policy engine; it honours this much of the policy language (docs/iam.md):
`Version` ("2012-10-17" or "2008-10-17"), `Statement` (one object or a list), and in each statement
`Sid`, `Effect` (Allow or Deny), `Action` or `NotAction`, and `Resource` (a string or a list of
strings). Actions match case-insensitively, resources case-sensitively; `*` matches any run of
characters (colons and slashes too) and `?` any one, as IAM's wildcards do. An explicit Deny wins
over any Allow; a request no Allow matches is refused (the implicit deny). A policy that uses
anything else — `Condition`, `NotResource`, `Principal`, policy variables (`${aws:username}`) — is
refused when it is loaded, in one line naming the field, rather than evaluated as if it were absent.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from collections.abc import Callable, Sequence
from urllib.parse import unquote, urlsplit

from pulumi_hyperpod.aws.iam import Scope, action_of, resource_kind
from pulumi_hyperpod.core.terminal import shown

VERSIONS = ("2012-10-17", "2008-10-17")
STATEMENT_FIELDS = ("Sid", "Effect", "Action", "NotAction", "Resource")
_UNSUPPORTED = {
    "Condition": "conditions are not evaluated here: test a policy with conditions on AWS (IAM's policy simulator)",
    "NotResource": "only Resource is evaluated here: name the resources the statement applies to",
    "Principal": "an identity-based policy names no principal (that is a resource policy's field)",
    "NotPrincipal": "an identity-based policy names no principal (that is a resource policy's field)",
}
_ACTION = re.compile(r"\*|[a-zA-Z0-9-]+:[a-zA-Z0-9*?]+")
ALLOW, EXPLICIT_DENY, IMPLICIT_DENY = "allow", "explicit deny", "implicit deny"


class PolicyError(ValueError):
    """A policy file the evaluator will not use: one line naming the file, the field and the rule."""


def _pattern(text: str, *, ignore_case: bool) -> re.Pattern[str]:
    body = "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in text)
    return re.compile(body, re.DOTALL | (re.IGNORECASE if ignore_case else 0))


@dataclass(frozen=True)
class Statement:
    sid: str
    allow: bool
    actions: tuple[re.Pattern[str], ...]
    negated: bool  # NotAction: every action but these
    resources: tuple[re.Pattern[str], ...]

    def applies(self, action: str, resource: str) -> bool:
        named = any(p.fullmatch(action) for p in self.actions)
        return named != self.negated and any(p.fullmatch(resource) for p in self.resources)


@dataclass(frozen=True)
class Policy:
    statements: tuple[Statement, ...]
    scoped: bool  # some Resource is not "*": a request's resource must be known to decide

    def decide(self, action: str, resource: str = "*") -> str:
        """ALLOW, EXPLICIT_DENY or IMPLICIT_DENY for `action` ("sagemaker:UpdateCluster") on `resource` (an ARN, or "*")."""
        matching = [s for s in self.statements if s.applies(action, resource)]
        if any(not s.allow for s in matching):
            return EXPLICIT_DENY
        return ALLOW if matching else IMPLICIT_DENY


def _strings(value: Any, where: str) -> list[str]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(item, str) and item for item in items):
        raise PolicyError(f"{where}: must be a non-empty string or a non-empty list of non-empty strings")
    return items


def _statement(raw: Any, where: str) -> Statement:
    if not isinstance(raw, dict):
        raise PolicyError(f"{where}: a statement is a JSON object")
    for field in raw:
        if field in _UNSUPPORTED:
            raise PolicyError(f"{where}.{field}: {_UNSUPPORTED[field]}")
        if field not in STATEMENT_FIELDS:
            raise PolicyError(f"{where}.{field}: not a statement field (one of {', '.join(STATEMENT_FIELDS)})")
    if raw.get("Effect") not in ("Allow", "Deny"):
        raise PolicyError(f'{where}.Effect: must be "Allow" or "Deny"')
    if ("Action" in raw) == ("NotAction" in raw):
        raise PolicyError(f"{where}: give exactly one of Action and NotAction")
    if "Resource" not in raw:
        raise PolicyError(f'{where}.Resource: missing: an identity-based statement names its resources ("*" for all)')
    key = "Action" if "Action" in raw else "NotAction"
    actions = _strings(raw[key], f"{where}.{key}")
    for action in actions:
        if not _ACTION.fullmatch(action):
            raise PolicyError(f"{where}.{key}: {action!r} is not an action (service:Action, wildcards * and ?, or *)")
    resources = _strings(raw["Resource"], f"{where}.Resource")
    for resource in resources:
        if "${" in resource:
            raise PolicyError(f"{where}.Resource: {resource!r}: policy variables are not evaluated here")
        if resource != "*" and not resource.startswith("arn:"):
            raise PolicyError(f'{where}.Resource: {resource!r} is not an ARN or "*"')
    sid = raw.get("Sid", "")
    if not isinstance(sid, str):
        raise PolicyError(f"{where}.Sid: must be a string")
    return Statement(
        sid,
        raw["Effect"] == "Allow",
        tuple(_pattern(a, ignore_case=True) for a in actions),
        key == "NotAction",
        tuple(_pattern(r, ignore_case=False) for r in resources),
    )


def parse_policy(document: Any, source: str) -> Policy:
    """The Policy of a parsed JSON document; a PolicyError names `source` and the field."""
    if not isinstance(document, dict):
        raise PolicyError(f"{source}: an IAM policy is a JSON object with Version and Statement")
    for field in document:
        if field not in ("Version", "Id", "Statement"):
            raise PolicyError(f"{source}: {field}: not a policy field (Version, Id, Statement)")
    if document.get("Version") not in VERSIONS:
        raise PolicyError(f'{source}: Version: must be "2012-10-17" (or the older "2008-10-17")')
    raw = document.get("Statement")
    statements = raw if isinstance(raw, list) else [raw] if isinstance(raw, dict) else None
    if not statements:
        raise PolicyError(f"{source}: Statement: must be a statement object or a non-empty list of them")
    single = isinstance(raw, dict)  # one statement object: its fields are Statement.FIELD
    parsed = tuple(_statement(s, f"{source}: Statement" + ("" if single else f"[{i}]")) for i, s in enumerate(statements))
    scoped = any(p.pattern != ".*" for s in parsed for p in s.resources)
    return Policy(parsed, scoped)


def load_policy(path: str | Path) -> Policy:
    """The policy in the JSON file `path`; a PolicyError (one line) when it cannot be used."""
    source = shown(str(path), one_line=True)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise PolicyError(f"{source}: cannot read the policy: {getattr(error, 'strerror', None) or error}") from None
    try:
        document = json.loads(text)
    except ValueError as error:
        raise PolicyError(f"{source}: not JSON: {error}") from None
    return parse_policy(document, source)


def denied_message(principal: str, action: str, resource: str, decision: str) -> str:
    """AWS's AccessDenied message for a refused request, in its words."""
    why = (
        "with an explicit deny in an identity-based policy"
        if decision == EXPLICIT_DENY
        else f"because no identity-based policy allows the {action} action"
    )
    return f"User: {principal} is not authorized to perform: {action} on resource: {resource} {why}"


def principal(account: str, name: str = "simulated") -> str:
    """The caller AccessDenied names: the simulator checks no signature, so it knows no one better."""
    return f"arn:aws:iam::{account}:user/{name}"


def first_denied(policy: Policy, requests: Sequence[tuple[str, str]]) -> tuple[str, str, str] | None:
    """(action, resource, decision) of the first of `requests` (action, resource) the policy refuses."""
    for action, resource in requests:
        decision = policy.decide(action, resource)
        if decision != ALLOW:
            return action, resource, decision
    return None


def s3_requested(method: str, url: str) -> list[tuple[str, str]]:
    """The (action, resource) a path-style S3 request needs, by the operation the simulator's S3
    answers it with: an object's on arn:aws:s3:::BUCKET/KEY, a bucket's on arn:aws:s3:::BUCKET."""
    parts = urlsplit(url)
    bucket, _, key = unquote(parts.path).lstrip("/").partition("/")
    if key:
        operation = {"GET": "GetObject", "HEAD": "HeadObject", "PUT": "PutObject", "DELETE": "DeleteObject"}.get(method, method)
        return [(action_of("s3", operation), f"arn:aws:s3:::{bucket}/{key}")]
    listing = "ListObjectsV2" if "list-type=2" in parts.query else "ListObjects"
    operation = {"GET": listing, "HEAD": "HeadBucket", "PUT": "CreateBucket", "DELETE": "DeleteBucket"}.get(method, method)
    return [(action_of("s3", operation), f"arn:aws:s3:::{bucket}")]


def requested(
    service: str, operation: str, params: dict[str, Any], *, region: str, account: str, cluster_arn: Callable[[str], str | None]
) -> list[tuple[str, str]]:
    """The (action, resource) pairs a SageMaker or Service Quotas request needs: its operation's action
    on the resource it names (a cluster's ARN; `cluster_arn(name)` finds a name's, None when there is
    no such cluster), and iam:PassRole on each execution role it passes."""
    action = action_of(service, operation)
    kind = resource_kind(service, operation)
    where = Scope(region=region, account=account)
    if kind == "cluster":
        named = str(params.get("ClusterName") or params.get("ResourceArn") or "")
        resource = named if named.startswith("arn:") else (cluster_arn(named) if named else None) or where.arns("new-cluster")[0]
    elif kind == "training-plan":
        resource = f"arn:{where.partition}:sagemaker:{region}:{account}:training-plan/{params.get('TrainingPlanName') or '*'}"
    else:
        resource = where.arns(kind)[0]
    needs = [(action, resource)]
    for group in [*(params.get("InstanceGroups") or ()), *(params.get("RestrictedInstanceGroups") or ())]:
        role = group.get("ExecutionRole") if isinstance(group, dict) else None
        if isinstance(role, str) and role:
            needs.append(("iam:PassRole", role))
    return needs
