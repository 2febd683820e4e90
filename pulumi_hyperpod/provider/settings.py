"""How the provider reaches and waits on a cluster: everything in the inputs besides the spec.

`Settings` is read from the checked inputs (`backend`, `region`, `profile`, `policy`, `wait`,
`timeout`, `adopt`); `Defaults` from the stack configuration the engine hands to `configure`.
`Location` is the resolved (backend, region, profile) a cluster lives in: it is recorded in the
outputs so `read` and `delete` reach the cluster where it is, even after the config moved on.

Nothing here holds a client or a credential: a profile is a name, resolved by boto3 at call time.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Mapping

from pulumi_hyperpod.aws.client import BACKENDS, DEFAULT_REGION
import dataclasses

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.plans.policy import Policy

# The program process imports this module (through the resource) to declare a cluster; botocore (the
# waiters) loads in the provider process, with the first check, and pydantic only for a Policy other than
# the defaults (plans/policy.py).

# The engine gives up on a provider call after 30 minutes (and dynamic providers ignore
# `custom_timeouts`), so every wait is bounded by the provider's own clock, well inside that.
ENGINE_CALL_LIMIT = 30 * 60
MAX_TIMEOUT = 28 * 60
DEFAULT_TIMEOUT = 20 * 60
DEFAULT_WAIT = "InService"
SETTING_KEYS = ("backend", "region", "profile", "policy", "wait", "timeout", "adopt", "roles")
SLURM_ROLES = ("Controller", "Login", "Compute")


@dataclass(frozen=True, slots=True)
class Defaults:
    """Stack configuration: `hyperpod:backend|region|profile`, else `aws:region|profile`.

    Pickled into every stack's state inside the provider (`ClusterProvider.defaults`): a state
    written by an earlier release holds it as a dict of its fields, which `__setstate__` reads by
    name (a slots dataclass's own reads a tuple by position, and would take the dict's keys for
    the values)."""

    backend: str | None = None
    region: str | None = None
    profile: str | None = None

    def __getstate__(self) -> dict[str, str | None]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    def __setstate__(self, state: Mapping[str, Any] | tuple[Any, ...]) -> None:
        values = dict(state) if isinstance(state, Mapping) else dict(zip((f.name for f in fields(self)), state, strict=False))
        for f in fields(self):
            object.__setattr__(self, f.name, values.get(f.name))

    @classmethod
    def from_config(cls, config: Any) -> Defaults:
        def first(*keys: str) -> str | None:
            for key in keys:
                value = config.get(key)
                if isinstance(value, str) and value:
                    return value
            return None

        return cls(
            backend=first("hyperpod:backend"),
            region=first("hyperpod:region", "aws:region"),
            profile=first("hyperpod:profile", "aws:profile"),
        )


@dataclass(frozen=True, slots=True)
class Location:
    backend: str
    region: str
    profile: str | None = None

    def where(self) -> tuple[str, str]:
        """What decides which cluster a name refers to (a profile may point at another account,
        but that cannot be known without credentials, so it is not compared)."""
        return (self.backend, self.region)

    def to_outputs(self) -> dict[str, Any]:
        data = {"backend": self.backend, "region": self.region}
        if self.profile:
            data["profile"] = self.profile
        return data

    @classmethod
    def from_outputs(cls, data: Any) -> Location | None:
        if not isinstance(data, Mapping) or not data.get("backend") or not data.get("region"):
            return None
        return cls(data["backend"], data["region"], data.get("profile"))

    def __str__(self) -> str:
        return f"{self.region} ({'simulator' if self.backend == 'fake' else 'AWS'})"


@dataclass(frozen=True, slots=True)
class Settings:
    backend: str | None = None
    region: str | None = None
    profile: str | None = None
    policy: Policy = field(default_factory=lambda: _policy({}))
    wait: str = DEFAULT_WAIT
    timeout: float = DEFAULT_TIMEOUT
    adopt: bool = False
    roles: Mapping[str, str] = field(default_factory=dict)  # Slurm role by group, for groups without NodeType

    @classmethod
    def from_inputs(cls, inputs: Mapping[str, Any]) -> Settings:
        """From inputs that passed `check_settings` (so no error handling here)."""
        return cls(
            backend=inputs.get("backend") or None,
            region=inputs.get("region") or None,
            profile=inputs.get("profile") or None,
            policy=_policy(inputs.get("policy") or {}),
            wait=inputs.get("wait") or DEFAULT_WAIT,
            timeout=float(inputs.get("timeout") or DEFAULT_TIMEOUT),
            adopt=bool(inputs.get("adopt")),
            roles=dict(inputs.get("roles") or {}),
        )

    def acting_once(self, olds: Mapping[str, Any] | None) -> Settings:
        """The settings with policy.replace_node_ids / reboot_node_ids reduced to the ids the previous
        inputs did not have: like pulumi-command's `triggers`, a repair acts once per new value, and an
        unchanged value (a node already replaced or rebooted) does nothing more (docs/lifecycle.md)."""
        before = _policy((olds or {}).get("policy") or {}) if olds else None
        if before is None:
            return self

        policy = self.policy.model_copy(
            update={
                "replace_node_ids": self.policy.replace_node_ids - before.replace_node_ids,
                "reboot_node_ids": self.policy.reboot_node_ids - before.reboot_node_ids,
            }
        )
        return dataclasses.replace(self, policy=policy)

    def locate(self, defaults: Defaults) -> Location:
        return _location(self.backend, self.region, self.profile, defaults)


# Read from checked inputs without making the Settings (and its Policy, validated by pydantic when it
# is not the defaults): a `check` asks only these two questions, and needs no pydantic to answer them.
def locate_inputs(inputs: Mapping[str, Any], defaults: Defaults) -> Location:
    """`Settings.from_inputs(inputs).locate(defaults)`."""
    return _location(inputs.get("backend") or None, inputs.get("region") or None, inputs.get("profile") or None, defaults)


def allows_replacement(inputs: Mapping[str, Any]) -> bool:
    """`Settings.from_inputs(inputs).policy.allow_replacement`: checked inputs hold the policy's
    fields that differ from the defaults (`policy_inputs`), so the setting is there when it is on."""
    policy = inputs.get("policy")
    return isinstance(policy, Mapping) and policy.get("allow_replacement") is True


def _location(backend: str | None, region: str | None, profile: str | None, defaults: Defaults) -> Location:
    backend = backend or defaults.backend or "aws"
    profile = profile or defaults.profile
    region = region or defaults.region
    if region is None:
        region = DEFAULT_REGION if backend == "fake" else _boto_region(profile)
    return Location(backend, region, profile)


def _boto_region(profile: str | None) -> str:
    """The region boto3 would use (environment, then the profile's config file); no credentials
    are read to find it. None found: botocore's own NoRegionError, which the one renderer words
    (core/messages.py, NO_AWS_REGION) as the CLI's client would have raised it."""
    for variable in ("AWS_REGION", "AWS_DEFAULT_REGION"):
        if os.environ.get(variable):
            return os.environ[variable]
    import botocore.session  # noqa: PLC0415 - botocore: only a region left to the AWS profile loads it
    from botocore.exceptions import BotoCoreError, NoRegionError  # noqa: PLC0415 - botocore: only a region left to the AWS profile loads it

    try:
        region = botocore.session.Session(profile=profile).get_config_variable("region")
    except BotoCoreError:
        region = None
    if not region:
        raise NoRegionError()
    return str(region)


def _policy(data: Mapping[str, Any]) -> Policy:
    from pulumi_hyperpod.plans.policy import Policy  # noqa: PLC0415 - the Policy model: check's, never loaded when the provider is unpickled

    return Policy.model_validate(data)


def policy_inputs(policy: Policy) -> dict[str, Any]:
    """The policy as stored in the inputs: only what differs from the defaults, sorted, so the
    same policy always serializes the same way."""
    data = policy.model_dump(mode="json", exclude_defaults=True)
    for key in ("protected_node_ids", "replace_node_ids", "reboot_node_ids"):
        if key in data:
            data[key] = sorted(data[key])
    return data


Failures = list[tuple[str, str]]


def check_settings(news: Mapping[str, Any], is_unknown: Callable[[Any], bool]) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The settings part of the inputs, canonical, and the failures as (property, reason)."""
    inputs: dict[str, Any] = {}
    failures: Failures = []
    _check_location(news, is_unknown, inputs, failures)
    _check_wait(news.get("wait"), is_unknown, inputs, failures)
    _check_timeout(news.get("timeout"), is_unknown, inputs, failures)
    _check_adopt(news.get("adopt"), is_unknown, inputs, failures)
    _check_roles(news.get("roles"), is_unknown, inputs, failures)
    _check_policy(news.get("policy"), is_unknown, inputs, failures)
    return inputs, failures


def _check_location(news: Mapping[str, Any], is_unknown: Callable[[Any], bool], inputs: dict[str, Any], failures: Failures) -> None:
    """backend, region and profile: strings when given; a known backend and a known region."""
    for key in ("backend", "region", "profile"):
        value = news.get(key)
        if value is None or value == "":
            continue
        if not is_unknown(value) and not isinstance(value, str):
            failures.append((key, f"must be a string, got {type(value).__name__}"))
            continue
        inputs[key] = value
    backend = inputs.get("backend")
    if backend is not None and not is_unknown(backend) and backend not in BACKENDS:
        failures.append(("backend", f"must be one of {', '.join(BACKENDS)}; got {backend!r}"))
    region = inputs.get("region")
    if region is not None and not is_unknown(region):
        from pulumi_hyperpod.aws.regions import is_region, not_a_region  # noqa: PLC0415 - the region table: checked in check, never loaded when the provider is unpickled (test_program_lean)

        if not is_region(region):
            failures.append(("region", f"must be an AWS region: {not_a_region(region)}"))


def _check_wait(wait: Any, is_unknown: Callable[[Any], bool], inputs: dict[str, Any], failures: Failures) -> None:
    from pulumi_hyperpod.aws.apply.wait_policies import WAIT_POLICIES  # noqa: PLC0415 - aws.apply: check's, never loaded when the provider is unpickled (test_program_lean)

    if wait is not None and not is_unknown(wait) and wait not in WAIT_POLICIES:
        failures.append(("wait", f"must be one of {', '.join(WAIT_POLICIES)}; got {wait!r}"))
    inputs["wait"] = DEFAULT_WAIT if wait is None else wait


def _check_timeout(timeout: Any, is_unknown: Callable[[Any], bool], inputs: dict[str, Any], failures: Failures) -> None:
    if timeout is None:
        inputs["timeout"] = DEFAULT_TIMEOUT
    elif is_unknown(timeout):
        inputs["timeout"] = timeout
    elif isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT:
        failures.append(
            (
                "timeout",
                f"must be a number of seconds in (0, {MAX_TIMEOUT}]; got {timeout!r} (the engine abandons a "
                f"provider call after {ENGINE_CALL_LIMIT // 60} minutes; a longer provisioning keeps going and "
                "the next `pulumi up` or `pulumi refresh` picks it up)",
            )
        )
    else:
        inputs["timeout"] = timeout


def _check_adopt(adopt: Any, is_unknown: Callable[[Any], bool], inputs: dict[str, Any], failures: Failures) -> None:
    if adopt is not None and not is_unknown(adopt) and not isinstance(adopt, bool):
        failures.append(("adopt", f"must be true or false, got {adopt!r}"))
    inputs["adopt"] = bool(adopt) if not is_unknown(adopt) else adopt


def _check_roles(roles: Any, is_unknown: Callable[[Any], bool], inputs: dict[str, Any], failures: Failures) -> None:
    if is_unknown(roles):
        inputs["roles"] = roles
    elif roles is not None:
        if not isinstance(roles, Mapping):
            failures.append(("roles", f"must be an object of instance group name → Slurm role, got {type(roles).__name__}"))
        else:
            for group, role in roles.items():
                if role not in SLURM_ROLES and not is_unknown(role):
                    failures.append((f"roles.{group}", f"must be one of {', '.join(SLURM_ROLES)}; got {role!r}"))
            inputs["roles"] = dict(sorted(roles.items()))


def _check_policy(policy: Any, is_unknown: Callable[[Any], bool], inputs: dict[str, Any], failures: Failures) -> None:
    if is_unknown(policy):
        inputs["policy"] = policy
    elif policy is not None and not isinstance(policy, Mapping):
        failures.append(("policy", f"must be an object of Policy fields, got {type(policy).__name__}"))
    elif not policy:
        inputs["policy"] = {}  # the defaults, stored as nothing (policy_inputs): no Policy to build
    else:
        try:
            inputs["policy"] = policy_inputs(_policy(dict(policy)))
        except ValueError as error:  # pydantic loads only for a policy other than the defaults (plans/policy.py)
            from pydantic import ValidationError  # noqa: PLC0415 - pydantic: only a policy other than the defaults loads it (test_policy_defaults_lean)

            if not isinstance(error, ValidationError):
                raise
            for problem in error.errors():
                where = ".".join(str(part) for part in problem["loc"])
                failures.append((f"policy.{where}" if where else "policy", problem["msg"]))
