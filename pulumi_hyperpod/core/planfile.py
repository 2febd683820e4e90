"""The saved-plan file, one format for every cloud: `hyperpod-plan/3` (CHANGELOG.md has its history).

    {"format": "hyperpod-plan/3", "tool_version": "...", "cloud": "aws" | "gcp",
     "cluster_name": "...", "observed_fingerprint": "..." | null,
     ...what the cloud saves: the inputs the plan was made from (spec, policy, observation, …)
        and where it is for (backend, region/project, account)...,
     "plan": {...the plan, as `hyperpod plan --json` prints it...}, "integrity": "sha256:..."}

This module is the envelope, the same for both clouds: the size bound, the one JSON reader (depth,
keys given twice), the format, the integrity hash, the tool version and the cloud. A file of any
other format — the older `hyperpod-plan/1`, `/2` and `hyperpod-gcp-saved-plan/1`, `/2` included —
is refused: make the plan again. `integrity` detects edits; it does not authenticate (anyone can
recompute it), so each cloud's loader (aws/saved.py, gcp/pipeline/saved.py) then makes the plan
again from the saved inputs and accepts the file only when it is that plan.

`save(prepared, path)` and `load(path)` are what front ends call: the cloud's body is written and
read by the cloud the plan is for (`Cloud.save_plan` / `Cloud.load_plan`, found in the registry).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pulumi_hyperpod
from pulumi_hyperpod.plans.model import PLAN_FORMAT
from pulumi_hyperpod.core.errors import InputError
from pulumi_hyperpod.core.files import read_bounded, write_whole
from pulumi_hyperpod.core.cloud import DETECTION_ORDER, get

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.core.cloud import InputFiles, Prepared

FORMAT = PLAN_FORMAT  # the file's format is the plan's
MAX_BYTES = 64 * 1024 * 1024  # a plan of thousands of nodes, with the observation it was made from, is a few MB
TITLES = {"aws": "HyperPod (AWS)", "gcp": "Google Cloud"}


class SavedPlanError(ValueError):
    """A saved plan file that cannot be applied; the message names the file and says why."""


class _SavedPlanInput(InputError):
    kind = "saved plan"


def tool_version() -> str:
    return str(pulumi_hyperpod.__version__)  # read at call time: the version running


def digest(body: Mapping[str, Any]) -> str:
    """SHA-256 of the canonical JSON of everything but the hash itself."""
    canonical = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


def seal(cloud: str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The file's whole content: the envelope's fields, the cloud's `body`, then the hash."""
    sealed = {"format": FORMAT, "tool_version": tool_version(), "cloud": cloud, **body}
    return {**sealed, "integrity": digest(sealed)}


def write(path: str | Path, document: Mapping[str, Any], *, inputs: InputFiles = ()) -> None:
    """Written whole or not at all (files.write_whole); never over one of the plan's `inputs`."""
    write_whole(path, json.dumps(document, indent=2, sort_keys=True, default=str) + "\n", inputs=inputs)


def read(path: str | Path, *, cloud: str | None = None) -> dict[str, Any]:
    """The checked content of a saved plan file, or SavedPlanError naming the file and what is wrong.
    `cloud`: the one the caller applies to (a plan for another cloud is refused, saying which)."""
    from pulumi_hyperpod.core.documents import read_object_document  # noqa: PLC0415 - yaml: the document reader only when a saved plan is read

    where = str(path)
    file = Path(path)
    if not file.exists():
        raise SavedPlanError(f"{where}: no such file (save a plan with `hyperpod plan -f SPEC --out {where}`)")
    if file.is_dir():
        raise SavedPlanError(f"{where}: is a directory, not a saved plan file")
    try:
        raw = read_bounded(file, MAX_BYTES)
        if len(raw) > MAX_BYTES:
            raise SavedPlanError(f"{where}: larger than {MAX_BYTES // (1024 * 1024)} MB, not a saved plan")
        data = read_object_document(raw, where, _SavedPlanInput, ".json")  # the one reader: depth, keys twice
    except OSError as error:
        raise SavedPlanError(f"{where}: cannot be read ({error.strerror or error})") from None
    except InputError as error:
        rule = "; ".join(str(v.rule) for v in error.violations[:1])
        raise SavedPlanError(f"{where}: not a saved plan ({rule})") from None
    if not isinstance(data, dict) or "plan" not in data or "format" not in data:
        raise SavedPlanError(f"{where}: not a saved plan (no format/plan); make one with `hyperpod plan -f SPEC --out {where}`")
    if data["format"] != FORMAT:
        raise SavedPlanError(f"{where}: plan format {str(data['format'])[:80]!r}, this version reads {FORMAT}; make the plan again")
    if data.get("integrity") != digest({k: v for k, v in data.items() if k != "integrity"}):
        raise SavedPlanError(
            f"{where}: the file was changed after it was saved (integrity check failed); "
            "a saved plan is applied exactly as reviewed: make the plan again"
        )
    if data.get("tool_version") != tool_version():
        raise SavedPlanError(
            f"{where}: made by pulumi-hyperpod {str(data.get('tool_version'))[:40]}, this is "
            f"{tool_version()}; make the plan again with this version"
        )
    if data.get("cloud") not in TITLES:
        raise SavedPlanError(f"{where}: not a valid saved plan (cloud {str(data.get('cloud'))[:20]!r})")
    if cloud is not None and data["cloud"] != cloud:
        raise SavedPlanError(
            f"{where}: a {TITLES[data['cloud']]} plan, applied as a {TITLES[cloud]} one; apply it with `hyperpod apply --plan {where}`"
        )
    return data


def cloud_of(path: str | Path) -> str | None:
    """The cloud a saved plan file says it is for, or None when the file says nothing readable
    (the loader then gives the error)."""
    try:
        return str(read(path)["cloud"])
    except SavedPlanError:
        return None


def save(prepared: Prepared[Any, Any, Any], path: str | Path, *, target: Mapping[str, Any] | None = None, inputs: InputFiles = ()) -> None:
    """Save a prepared plan, for any cloud. `target`: where it was made (backend, region, …);
    `inputs`: the files it was made from, which the plan file must not overwrite."""
    get(prepared.cloud).save_plan(prepared, str(path), target=target, inputs=inputs)


def load(path: str | Path, *, cloud: str | None = None, target: Mapping[str, Any] | None = None) -> Prepared[Any, Any, Any]:
    """The Prepared plan saved in `path`, made again from its inputs by the cloud it is for (or
    SavedPlanError naming the file and what is wrong). `cloud`: the one the caller applies to
    (default: the one the file names; a file that names none is read by the last cloud of the
    detection order, whose loader says what is wrong). `target`: where it is to be applied."""
    name = cloud or cloud_of(path) or DETECTION_ORDER[-1]
    return get(name).load_plan(str(path), target=target)
