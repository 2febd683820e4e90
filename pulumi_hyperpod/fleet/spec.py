"""The fleet file (`fleet.yaml`, docs/fleet.md): its stacks and the waves they are rolled out in.

Read by the one document reader (core/documents.py: size, YAML 1.2, a key twice refused) and
validated by the models below; any problem is a `FleetError`, one line per broken rule naming the
file, the field and the rule, before any stack is touched.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from pulumi_hyperpod.core.documents import read_document
from pulumi_hyperpod.core.errors import InputError, Violation

NAME = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$"
# the Pulumi state backends a fleet's stacks can share (docs/fleet.md, "Runners and the state backend"):
# a self-managed bucket or directory, or Pulumi Cloud (https://)
STATE_SCHEMES = ("s3", "gs", "azblob", "file", "https")


class FleetError(InputError):
    """A fleet file that breaks one or more rules."""

    kind = "fleet"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, frozen=True)


class FleetStack(_Strict):
    """One Pulumi stack of the fleet: its project, stack name, and where it acts."""

    name: str = Field(pattern=NAME)
    project: str = Field(min_length=1)  # a directory holding Pulumi.yaml, relative to the fleet file
    stack: str = Field(min_length=1)
    account: str | None = Field(default=None, pattern=r"^\d{12}$")
    region: str = Field(min_length=1)
    backend: Literal["aws", "fake"] = "aws"
    config: dict[str, str] = Field(default_factory=dict)  # stack config set before the preview (key: value)
    env: dict[str, str] = Field(default_factory=dict)  # environment of the stack's engine and provider
    state: str | None = None  # this stack's Pulumi state backend URL; else the fleet's `state`
    secrets_provider: str | None = None  # this stack's secrets provider; else the fleet's

    @field_validator("state")
    @classmethod
    def _state(cls, value: str | None) -> str | None:
        return _state_url(value)

    @field_validator("region")
    @classmethod
    def _region(cls, value: str) -> str:
        from pulumi_hyperpod.aws.regions import is_region, not_a_region  # noqa: PLC0415 - botocore's partitions: only a fleet file loads them

        if not is_region(value):
            raise ValueError(not_a_region(value))
        return value


class Gates(_Strict):
    """What `fleet apply` checks of a wave: after it, before the next starts (gates.py); its policy before it starts (policy.py)."""

    in_service: bool = True  # every cluster of the wave InService
    no_failed_nodes: bool = True  # no failed or pending-replacement node
    no_error_events_minutes: int = Field(default=0, ge=0)  # no error event for this long (0: not checked)
    health_check: bool = False  # a deep health check of the wave's clusters
    policy: str | None = None  # Rego (a file or directory, relative to the fleet file) the wave's plans are judged by before it starts


class Wave(_Strict):
    name: str = Field(pattern=NAME)
    stacks: list[str] = Field(min_length=1)
    parallelism: int = Field(default=1, ge=1)
    gates: Gates = Field(default_factory=Gates)


class Fleet(_Strict):
    """A fleet: its stacks (names unique) and its waves (each stack in exactly one)."""

    stacks: list[FleetStack] = Field(min_length=1)
    waves: list[Wave] = Field(default_factory=list)
    state: str | None = None  # the Pulumi state backend URL the stacks share (PULUMI_BACKEND_URL); else the runner's
    secrets_provider: str | None = None  # e.g. passphrase (the default of a self-managed backend), awskms://…

    @field_validator("state")
    @classmethod
    def _state(cls, value: str | None) -> str | None:
        return _state_url(value)

    moves: bool = True  # fleet moves (fleet/moves.py): nodes one cluster deletes that another of its account and region adds, moved

    @model_validator(mode="after")
    def _names(self) -> Fleet:
        problems: list[Violation] = []
        names = [s.name for s in self.stacks]
        for name, count in Counter(names).items():
            if count > 1:
                problems.append(Violation("stacks", f"the stack name {name!r} is given {count} times; each stack's name is unique"))
        waves = [w.name for w in self.waves]
        for name, count in Counter(waves).items():
            if count > 1:
                problems.append(Violation("waves", f"the wave name {name!r} is given {count} times; each wave's name is unique"))
        placed: dict[str, str] = {}
        for index, wave in enumerate(self.waves):
            for name in wave.stacks:
                where = f"waves[{index}].stacks"
                if name not in names:
                    problems.append(Violation(where, f"names the stack {name!r}, which is not in stacks"))
                elif name in placed:
                    problems.append(
                        Violation(where, f"the stack {name!r} is in wave {placed[name]!r} already; each stack is in exactly one wave")
                    )
                else:
                    placed[name] = wave.name
        if self.waves:
            missing = [n for n in names if n not in placed]
            if missing:
                problems.append(
                    Violation("waves", f"the stacks {', '.join(map(repr, missing))} are in no wave; each stack is in exactly one wave")
                )
        if problems:
            raise FleetError(problems)
        return self


def _state_url(value: str | None) -> str | None:
    """A state backend URL: one of STATE_SCHEMES, and no credential in it (the fleet file is shown
    and logged; the backend's credentials come from the runner, e.g. `profile=` of an s3:// URL)."""
    if value is None:
        return None
    parts = urlsplit(value)
    if not parts.scheme or "://" not in value:
        raise ValueError(f"a state backend is a URL such as s3://bucket or file:///path; got {value!r}")
    if parts.scheme not in STATE_SCHEMES:
        raise ValueError(f"the state backend's scheme is one of {', '.join(STATE_SCHEMES)}; got {parts.scheme!r}")
    if parts.username or parts.password:
        raise ValueError("a state backend URL holds no credential (give the backend's profile as profile=NAME)")
    return value


def load_fleet(path: str | Path) -> tuple[Fleet, Path]:
    """The fleet file at `path` and the directory its projects are relative to."""
    path = Path(path)
    data = read_document(path, FleetError)
    return parse_fleet(data, str(path)), path.resolve().parent


def parse_fleet(data: Any, source: str) -> Fleet:
    if not isinstance(data, Mapping):
        raise FleetError([Violation("", f"a fleet file is a mapping with stacks and waves; got {type(data).__name__}")], source=source)
    try:
        return _inherit(Fleet.model_validate(data))
    except FleetError as error:
        raise FleetError(error.violations, source=source) from None
    except ValidationError as error:
        raise FleetError([_violation(problem) for problem in error.errors()], source=source) from None


def _inherit(fleet: Fleet) -> Fleet:
    """The fleet with each stack's `state` and `secrets_provider` its own, else the fleet's: what
    each stack's workspace is given (None: the runner's own login and default)."""
    stacks = [
        stack.model_copy(update={"state": stack.state or fleet.state, "secrets_provider": stack.secrets_provider or fleet.secrets_provider})
        for stack in fleet.stacks
    ]
    return fleet.model_copy(update={"stacks": stacks})


def _violation(problem: Mapping[str, Any]) -> Violation:
    path = "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in problem["loc"]).lstrip(".")
    kind = problem["type"]
    if kind == "extra_forbidden":
        return Violation(path, "is not a known field (docs/fleet.md lists them)")
    if kind == "missing":
        return Violation(path, "is required")
    if kind == "value_error":
        return Violation(path, str(problem["ctx"]["error"]))
    if kind == "string_pattern_mismatch" and path.endswith("account"):
        return Violation(path, f"an AWS account id is 12 digits; got {problem.get('input')!r}")
    message = problem["msg"]
    got = repr(problem.get("input"))
    return Violation(path, f"{message[0].lower()}{message[1:]}; got {got if len(got) <= 60 else got[:57] + '...'}")


def check_projects(fleet: Fleet, base: Path, source: str) -> None:
    """Each stack's project is a directory holding a Pulumi project (before any preview runs)."""
    problems = [
        Violation(f"stacks[{index}].project", f"{stack.project!r} is not a directory holding Pulumi.yaml (relative to the fleet file)")
        for index, stack in enumerate(fleet.stacks)
        if not any((base / stack.project / name).is_file() for name in ("Pulumi.yaml", "Pulumi.yml"))
    ]
    if problems:
        raise FleetError(problems, source=source)
