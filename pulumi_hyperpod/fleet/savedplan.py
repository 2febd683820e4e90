"""A saved fleet plan (`fleet plan FLEET --out FLEET_PLAN.json`) and applying exactly it (`fleet apply
FLEET --plan FLEET_PLAN.json`), docs/fleet.md "Saved fleet plans".

The file is the `hyperpod-fleet-plan/1` document `--json` prints plus a `pinned` section — the fleet
file's content digest, the tool's version and, per stack, the whole `hyperpod-plan/3` plans its
preview showed — sealed by an integrity hash over all of it (core/planfile.py's `digest`: it
detects edits, it does not authenticate).

Before any `up`, `refusals` says in one line each what no longer holds: the fleet file changed, a
stack's fresh preview makes another plan than the pinned one (aws/saved.py's `plan_difference`,
through provider/pinned.py), or a pinned step's premise no longer holds on the cluster as it is now
(premise.py's `stale_reasons`, what `hyperpod apply --plan` checks) — both aws/pinned.py's. Then each stack's `up` runs with
$HYPERPOD_PINNED_PLAN_DIR, so its provider applies those plans and nothing else.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pulumi_hyperpod.core.errors import InputError, Violation
from pulumi_hyperpod.core.files import write_whole
from pulumi_hyperpod.core.planfile import digest, tool_version
from pulumi_hyperpod.fleet.spec import FleetStack
from pulumi_hyperpod.fleet.summary import FLEET_PLAN_FORMAT, StackPlans
from pulumi_hyperpod.core.plandir import PINNED_DIR_ENV, plan_path

Observe = Callable[[FleetStack, str], Any]  # (stack, cluster name) → the cluster as it is now (ClusterState), or None


class FleetPlanError(InputError):
    """A saved fleet plan file that cannot be applied (one line naming the file, the field and why)."""

    kind = "saved plan"


def fleet_digest(fleet_file: str | Path) -> str:
    """The fleet file's content digest: a byte changed is another fleet file."""
    import hashlib  # noqa: PLC0415 - only a saved fleet plan needs it

    return "sha256:" + hashlib.sha256(Path(fleet_file).read_bytes()).hexdigest()


def saved_document(document: Mapping[str, Any], stacks: Sequence[StackPlans], fleet_file: str | Path) -> dict[str, Any]:
    """The file's content: the fleet plan, the pinned plans, then the integrity hash over both."""
    pinned = {
        "fleet_file": Path(fleet_file).name,
        "fleet_digest": fleet_digest(fleet_file),
        "tool_version": tool_version(),
        "stacks": [{"stack": s.stack, "plans": [dict(p) for p in s.plans]} for s in stacks],
    }
    body = {**document, "pinned": pinned}
    return {**body, "integrity": digest(body)}


def save(path: str | Path, document: Mapping[str, Any], stacks: Sequence[StackPlans], fleet_file: str | Path) -> None:
    """Written whole or not at all; never over the fleet file."""
    content = json.dumps(saved_document(document, stacks, fleet_file), indent=2, sort_keys=True, default=str) + "\n"
    write_whole(path, content, inputs=(fleet_file,))


def load(path: str | Path, fleet_file: str | Path) -> dict[str, list[dict[str, Any]]]:
    """The pinned plans of a saved fleet plan, by stack name; FleetPlanError naming the file and what is
    wrong: not a saved fleet plan, edited since it was saved, made by another version, or made from
    another fleet file (or this one before it changed)."""
    from pulumi_hyperpod.core.documents import read_document  # noqa: PLC0415 - yaml: only when a file is read

    where = str(path)

    def refuse(field: str, rule: str) -> FleetPlanError:
        return FleetPlanError([Violation(field, rule)], source=where)

    if not Path(path).suffix:  # the one reader picks its parser by the suffix
        raise refuse("", "a saved fleet plan is a .json file (`hyperpod fleet plan FLEET --out FLEET_PLAN.json`)")
    data = read_document(path, FleetPlanError)
    if not isinstance(data, dict) or "format" not in data:
        raise refuse("format", f"not a saved fleet plan (no format); make one with `hyperpod fleet plan FLEET --out {where}`")
    if data["format"] != FLEET_PLAN_FORMAT:
        raise refuse(
            "format",
            f"{str(data['format'])[:80]!r} is not a saved fleet plan; this version reads {FLEET_PLAN_FORMAT} with a pinned section",
        )
    pinned = data.get("pinned")
    if not isinstance(pinned, dict):
        raise refuse(
            "pinned",
            f"the fleet plan pins no plan (printed by --json, not saved by --out); save one with `hyperpod fleet plan FLEET --out {where}`",
        )
    if data.get("integrity") != digest({k: v for k, v in data.items() if k != "integrity"}):
        raise refuse(
            "integrity",
            "the file was changed after it was saved; a saved fleet plan is applied exactly as reviewed: make the fleet plan again",
        )
    if pinned.get("fleet_digest") != fleet_digest(fleet_file):
        raise refuse(
            "pinned.fleet_digest",
            f"made from the fleet file {str(pinned.get('fleet_file'))[:80]!r} as it was then; {fleet_file} is not that file "
            "(another fleet, or changed since): make the fleet plan again",
        )
    if pinned.get("tool_version") != tool_version():
        raise refuse(
            "pinned.tool_version",
            f"made by pulumi-hyperpod {str(pinned.get('tool_version'))[:40]}, this is {tool_version()}; make the fleet plan again with this version",
        )
    stacks = pinned.get("stacks")
    if not isinstance(stacks, list) or not all(
        isinstance(s, dict)
        and isinstance(s.get("stack"), str)
        and isinstance(s.get("plans"), list)
        and all(isinstance(p, dict) and isinstance(p.get("cluster_name"), str) for p in s["plans"])
        for s in stacks
    ):
        raise refuse("pinned.stacks", "a list of {stack, plans}, each plan naming its cluster_name")
    return {s["stack"]: list(s["plans"]) for s in stacks}


def refusals(
    pinned: Mapping[str, Sequence[Mapping[str, Any]]], fresh: Sequence[StackPlans], stacks: Sequence[FleetStack], observe: Observe
) -> list[str]:
    """What no longer holds, one line each naming the stack, the cluster and what differs: a stack's
    fresh preview whose plans are not the pinned ones, a pinned plan whose premises moved."""
    from pulumi_hyperpod.aws.pinned import difference, moved, read_plan  # noqa: PLC0415 - the planner's premises: only a pinned apply loads them

    lines: list[str] = []
    by_name = {s.name: s for s in stacks}
    now = {s.stack: s for s in fresh}
    for name in [s.name for s in stacks if s.name not in pinned]:
        lines.append(f"stack {name}: not in the saved fleet plan")
    for name, plans in pinned.items():
        if name not in by_name:
            lines.append(f"stack {name}: in the saved fleet plan, not in the fleet file")
            continue
        mine = {str(p.get("cluster_name")): p for p in plans}
        theirs = {str(p.get("cluster_name")): p for p in now[name].plans} if name in now else {}
        for cluster in mine.keys() - theirs.keys():
            lines.append(f"stack {name}, cluster {cluster}: pinned, but its preview now shows no plan of it")
        for cluster in theirs.keys() - mine.keys():
            lines.append(
                f"stack {name}, cluster {cluster}: its preview now shows a plan ({theirs[cluster].get('action')}) the saved fleet plan does not pin"
            )
        for cluster in sorted(mine.keys() & theirs.keys()):
            saved = read_plan(mine[cluster])
            changed = moved(saved, observe(by_name[name], cluster)) if saved.basis is not None else []
            if changed:
                lines.append(f"stack {name}, cluster {cluster}: the cluster moved since the plan was made: {'; '.join(changed)}")
                continue
            found = difference(saved, read_plan(theirs[cluster]))
            if found:
                lines.append(f"stack {name}, cluster {cluster}: its preview now makes another plan than the pinned one: {found}")
    return sorted(lines)


def pin(stack: FleetStack, plans: Sequence[Mapping[str, Any]], directory: Path) -> FleetStack:
    """The stack with its pinned plans written to `directory` and $HYPERPOD_PINNED_PLAN_DIR set to it
    in its environment (the stack's own `env` names it last, so it wins over the runner's)."""
    directory.mkdir(parents=True, exist_ok=True)
    for plan in plans:
        plan_path(directory, str(plan.get("cluster_name"))).write_text(json.dumps(plan), encoding="utf-8")
    return stack.model_copy(update={"env": {**stack.env, PINNED_DIR_ENV: str(directory)}})
