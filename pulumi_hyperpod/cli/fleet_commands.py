"""`hyperpod fleet`: many Pulumi stacks of clusters, across accounts and regions (docs/fleet.md).

`fleet plan FLEET` previews every stack of the fleet file through Pulumi's Automation API and shows
one fleet plan (pulumi_hyperpod/fleet/). `fleet apply FLEET --yes` gathers the same fleet plan, then
rolls the waves out (`pulumi up`), checking each wave's gates before the next.
"""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import click

from pulumi_hyperpod.cli import common
from pulumi_hyperpod.cli.outputs import OutputPath
from pulumi_hyperpod.cli.common import EXIT_CHANGES, EXIT_ERROR, EXIT_REFUSED, HyperpodGroup, cell, emit_json, handle_errors, print_error


@click.group("fleet", cls=HyperpodGroup)  # usage errors exit 1
def fleet_group() -> None:
    """Plan and apply many clusters' stacks, across accounts and regions, as one fleet."""


# --no-moves, on `fleet plan` and `fleet apply` alike
no_moves_option = click.option(
    "--no-moves",
    "no_moves",
    is_flag=True,
    help="Propose no fleet moves: nodes one cluster deletes and another of its account and region adds are deleted "
    "and added (as the fleet file's `moves: false`).",
)

# --policy, on `fleet plan` and `fleet apply` alike
policy_option = click.option(
    "--policy",
    "policies",
    multiple=True,
    metavar="REGO",
    type=click.Path(),  # read: `--out` is never written over it (cli/outputs.py)
    help="Rego over the whole fleet plan (package hyperpod.fleet, its `deny`; a .rego file, a directory, or a JSON "
    "data file of parameters; repeatable). A deny refuses (exit 2).",
)


@fleet_group.command("plan")
@click.argument("fleet_file", metavar="FLEET", type=click.Path(dir_okay=False))
@click.option("--parallel", type=click.IntRange(min=1), default=4, show_default=True, help="Previews run at once.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable fleet plan (format hyperpod-fleet-plan/1).")
@click.option("--detailed-exitcode", "detailed_exitcode", is_flag=True, help=common.DETAILED_EXITCODE_HELP)
@click.option(
    "--out",
    "out_file",
    type=OutputPath("the fleet plan", dir_okay=False),
    help="Save the fleet plan, every stack's plans pinned, for `hyperpod fleet apply FLEET --plan FILE`.",
)
@policy_option
@no_moves_option
@handle_errors
def fleet_plan_command(
    fleet_file: str, parallel: int, as_json: bool, detailed_exitcode: bool, out_file: str | None, policies: tuple[str, ...], no_moves: bool
) -> None:
    """Preview every stack of the fleet and show one fleet plan, with the fleet's quota preflight. Exit 1
    when a stack's preview fails, 2 when a guard, the fleet's quota or the fleet policy refuses (with
    --detailed-exitcode, 3 when it has changes)."""
    _check_policies(policies)
    fleet, _, stacks = _gather(fleet_file, parallel)
    moves, _, _ = _moves(fleet, stacks, not no_moves)
    document = _with_policy(_document(stacks, moves), stacks, policies)
    if as_json:
        emit_json(document)
    else:
        _show(document)
    if out_file and not document["errors"]:
        _save(out_file, document, stacks, fleet_file)
    _refuse(document)
    if detailed_exitcode and not document["empty"]:
        sys.exit(EXIT_CHANGES)


@fleet_group.command("apply")
@click.argument("fleet_file", metavar="FLEET", type=click.Path(dir_okay=False))
@click.option("--parallel", type=click.IntRange(min=1), default=4, show_default=True, help="Previews run at once (and ups, without waves).")
@click.option("--yes", "-y", is_flag=True, help="Apply; without it the fleet plan is shown and nothing is applied.")
@click.option(
    "--plan",
    "plan_file",
    type=click.Path(dir_okay=False),
    help="Apply exactly this saved fleet plan (`fleet plan --out`): refused when the fleet file, a stack's plan or a cluster moved since.",
)
@policy_option
@click.option(
    "--on-locked",
    type=click.Choice(["wait", "skip"]),
    default="wait",
    show_default=True,
    help="A stack locked by another update: wait for it (then run its up) or skip it (the fleet is then not complete: exit 1).",
)
@click.option("--lock-timeout", type=click.IntRange(min=0), default=600, show_default=True, help="Seconds to wait for a stack's lock.")
@click.option("--break-stale-locks", is_flag=True, help="Break a lock whose holder is a process of this host that is gone (pulumi cancel).")
@click.option(
    "--wave",
    "only_waves",
    multiple=True,
    metavar="NAME",
    help="Run only this wave (repeatable; in the file's order), e.g. one CI job per wave. The fleet plan still covers every stack.",
)
@no_moves_option
@handle_errors
def fleet_apply_command(
    fleet_file: str,
    parallel: int,
    yes: bool,
    plan_file: str | None,
    policies: tuple[str, ...],
    on_locked: str,
    lock_timeout: int,
    break_stale_locks: bool,
    only_waves: tuple[str, ...],
    no_moves: bool,
) -> None:
    """Show the fleet plan, then (with --yes) run each wave's `pulumi up`, at most its parallelism at
    once, and check its gates before the next wave. A stack locked by another update is waited for or
    skipped (--on-locked). Exit 1 when an up or a gate fails, a stack is skipped (later waves are not
    started) or a saved plan no longer holds, 2 when the fleet plan is refused (nothing applied), 130
    on Ctrl-C. Run it again to resume: stacks already at their spec have nothing to do. A wave's fleet
    moves are made right before its ups; a saved plan with moves is refused."""
    from pulumi_hyperpod.fleet import apply, gates  # noqa: PLC0415 - the Automation API: only this command loads it
    from pulumi_hyperpod.fleet.preview import run_stack  # noqa: PLC0415 - with the command
    from pulumi_hyperpod.fleet.spec import load_fleet  # noqa: PLC0415 - pydantic: only a fleet command loads it

    _check_policies(policies)
    pinned = _load_saved(plan_file, fleet_file) if plan_file else None
    waves = _selected_waves(fleet_file, parallel, only_waves)  # before any preview
    fleet, _ = load_fleet(fleet_file)
    _check_gate_policies(fleet, fleet_file)
    fleet, base, previews = _gather(fleet_file, parallel)
    # a saved plan's stacks apply their pinned plans, deletes and adds as reviewed: it moves nothing
    moves, observer, found = _moves(fleet, previews, not no_moves and pinned is None)
    document = _with_policy(_document(previews, moves), previews, policies)
    _show(document)
    if pinned is not None:  # what moved since the plan was saved comes first: it is why a fresh preview may differ
        _refuse_moved(pinned, previews, fleet)
    _refuse(document)
    if not yes:
        print_error("the fleet plan is shown; nothing was applied: pass --yes to apply it", label="note")
        return
    previewed = {p.stack: p for p in previews}

    def check(wave: Any, done: Any) -> Any:
        targets = [(stack, name) for stack, result in done for name in apply.clusters_of(result, previewed.get(stack.name))]
        return gates.check_gates(wave.gates, targets)

    stop = threading.Event()
    up = _locking_up(on_locked, lock_timeout, break_stale_locks, stop)
    with tempfile.TemporaryDirectory(prefix="hyperpod-fleet-pinned-") as pins:
        pinning = _pinner(pinned, Path(pins))
        before = _moves_first(_policy_gate(fleet_file, document, previews), found, observer)
        outcome = apply.apply_fleet(
            fleet, waves, lambda stack: run_stack(pinning(stack), base, "up", up), check, _progress(), stop, before=before
        )
    _say_outcome(outcome)
    if not outcome.ok:
        sys.exit(EXIT_ERROR)


def _selected_waves(fleet_file: str, parallel: int, names: tuple[str, ...]) -> list[Any]:
    """The waves `--wave` names, in the file's order (all without it); a name not in the file is an error."""
    from pulumi_hyperpod.fleet.apply import waves_of  # noqa: PLC0415 - with the command
    from pulumi_hyperpod.fleet.spec import load_fleet  # noqa: PLC0415 - pydantic: only a fleet command loads it

    waves = waves_of(load_fleet(fleet_file)[0], parallel)
    known = [wave.name for wave in waves]
    unknown = [name for name in names if name not in known]
    if unknown:
        raise click.UsageError(f"--wave: {fleet_file} has no wave {', '.join(map(repr, unknown))}; its waves: {', '.join(known)}")
    return [wave for wave in waves if not names or wave.name in names]


def _locking_up(on_locked: str, timeout: int, break_stale: bool, stop: threading.Event) -> Any:
    """Each stack's `up` under the lock policy of the command line; a line per lock met."""
    from pulumi_hyperpod.fleet.locks import LockPolicy  # noqa: PLC0415 - with the command
    from pulumi_hyperpod.fleet.preview import up_with  # noqa: PLC0415 - the Automation API: only a fleet command loads it

    policy = LockPolicy(on_locked="skip" if on_locked == "skip" else "wait", timeout=timeout, break_stale=break_stale)
    return up_with(policy, lambda stack, line: _line(("locked ", "yellow"), f"{stack.name}: {line}"), stop)


def _gather(fleet_file: str, parallel: int) -> tuple[Any, Path, Any]:
    """The fleet file, its projects' directory, and every stack's preview (`fleet plan`'s gathering)."""
    from pulumi_hyperpod.fleet.preview import preview_fleet  # noqa: PLC0415 - the Automation API: only a fleet command loads it
    from pulumi_hyperpod.fleet.spec import check_projects, load_fleet  # noqa: PLC0415 - pydantic: only a fleet command loads it

    fleet, base = load_fleet(fleet_file)
    check_projects(fleet, base, fleet_file)
    return fleet, base, preview_fleet(fleet.stacks, base, parallel)


def _document(previews: Any, moves: dict[str, Any]) -> dict[str, Any]:
    from pulumi_hyperpod.fleet.summary import fleet_plan  # noqa: PLC0415 - with the command

    return fleet_plan(previews, moves)


# ---- fleet moves (fleet/moves.py) -------------------------------------------------------------------
def _moves(fleet: Any, previews: Any, enabled: bool) -> tuple[dict[str, Any], Any, list[Any]]:
    """The fleet plan's `moves` section, the clusters as read for it (None when moves are off), and the moves."""
    from pulumi_hyperpod.fleet import moves  # noqa: PLC0415 - with the command

    if not (enabled and fleet.moves):
        return moves.section([], [], False), None, []
    observer = moves.Observer(fleet.stacks)
    found, notes = moves.pair(previews, moves.waves_by_stack(fleet), observer)
    return moves.section(found, notes, True), observer, found


def _moves_first(policy_gate: Any, found: list[Any], observer: Any) -> Any:
    """Before a wave: its policy gate, then (when it passed) the wave's fleet moves, a `moves` result each."""
    from pulumi_hyperpod.fleet import moves  # noqa: PLC0415 - with the command
    from pulumi_hyperpod.fleet.gates import FAILED  # noqa: PLC0415 - with the command

    def before(wave: Any) -> Any:
        results = list(policy_gate(wave))
        planned = [m for m in found if m.source.stack in wave.stacks]
        if planned and all(r.outcome != FAILED for r in results):
            results += moves.apply_moves(planned, observer)
        return results

    return before


# ---- saved fleet plans (fleet/savedplan.py) ---------------------------------------------------------
def _save(out_file: str, document: dict[str, Any], stacks: Any, fleet_file: str) -> None:
    from pulumi_hyperpod.fleet import savedplan  # noqa: PLC0415 - with the command

    savedplan.save(out_file, document, stacks, fleet_file)
    if document["moves"]["moves"]:
        print_error(
            "the saved plan has fleet moves, which `fleet apply --plan` refuses: save it with --no-moves to apply it pinned",
            label="note",
        )
    common.print_line(
        f"fleet plan saved to {out_file}: apply it with `hyperpod fleet apply {fleet_file} --plan {out_file} --yes`", console=common.err
    )


def _load_saved(plan_file: str, fleet_file: str) -> Any:
    """The saved fleet plan's pinned plans by stack (refused, before any preview, when it is not this fleet file's)."""
    from pulumi_hyperpod.fleet import moves, savedplan  # noqa: PLC0415 - with the command

    pinned = savedplan.load(plan_file, fleet_file)
    refusal = moves.saved_refusal(plan_file)
    if refusal:
        print_error(refusal, label="refused")
        sys.exit(EXIT_REFUSED)
    return pinned


def _refuse_moved(pinned: Any, previews: Any, fleet: Any) -> None:
    """Exit 1, one line each, when a stack's fresh preview or a cluster is not what the saved plan pinned."""
    from pulumi_hyperpod.aws.observe import observe  # noqa: PLC0415 - the observer: only a pinned apply reads clusters here
    from pulumi_hyperpod.fleet import savedplan  # noqa: PLC0415 - with the command
    from pulumi_hyperpod.fleet.gates import stack_client  # noqa: PLC0415 - with the command

    clients: dict[str, Any] = {}

    def now(stack: Any, name: str) -> Any:
        if stack.name not in clients:  # one client per stack
            clients[stack.name] = stack_client(stack)
        return observe(clients[stack.name], name)

    lines = savedplan.refusals(pinned, previews, fleet.stacks, now)
    for line in lines:
        print_error(line)
    if lines:
        print_error("the saved fleet plan no longer holds; nothing was applied: make the fleet plan again", label="refused")
        sys.exit(EXIT_ERROR)


def _pinner(pinned: Any, directory: Path) -> Any:
    """The stack as its `up` runs it: with a saved fleet plan, with its pinned plans
    ($HYPERPOD_PINNED_PLAN_DIR: its provider applies them and nothing else); else as it is."""
    from pulumi_hyperpod.fleet import savedplan  # noqa: PLC0415 - with the command

    if pinned is None:
        return lambda stack: stack
    return lambda stack: savedplan.pin(stack, pinned.get(stack.name, ()), directory / stack.name)


# ---- fleet policy (fleet/policy.py) ---------------------------------------------------------------------
def _policy_failure(error: Exception) -> None:
    print_error(str(error))
    sys.exit(EXIT_ERROR)


def _check_policies(policies: tuple[str, ...]) -> None:
    """Before any preview: each path is there, and opa is (one line when not)."""
    from pulumi_hyperpod.fleet.policy import PolicyError, check_paths  # noqa: PLC0415 - with the command

    if policies:
        try:
            check_paths(policies)
        except PolicyError as error:
            _policy_failure(error)


def _check_gate_policies(fleet: Any, fleet_file: str) -> None:
    """The waves' `gates.policy` files (relative to the fleet file), checked like --policy before any preview."""
    base = Path(fleet_file).resolve().parent
    _check_policies(tuple(str(base / w.gates.policy) for w in fleet.waves if w.gates.policy))


def _with_policy(document: dict[str, Any], stacks: Any, policies: tuple[str, ...]) -> dict[str, Any]:
    """The fleet plan with its `policy` section (null without --policy); a deny refuses it."""
    from pulumi_hyperpod.fleet.policy import PolicyError, judged  # noqa: PLC0415 - with the command

    try:
        return judged(document, stacks, policies)
    except PolicyError as error:
        _policy_failure(error)
        raise  # (not reached: _policy_failure exits)


def _policy_gate(fleet_file: str, document: dict[str, Any], previews: Any) -> Any:
    """The check a wave's `gates.policy` makes before the wave starts (fleet/policy.py's `wave_gate`)."""
    from pulumi_hyperpod.fleet.policy import wave_gate  # noqa: PLC0415 - with the command

    base = Path(fleet_file).resolve().parent
    return lambda wave: wave_gate(wave, base, document, previews)


def _refuse(document: dict[str, Any]) -> None:
    """Exit 1 when a stack's preview failed, 2 when the fleet plan is refused (its lines on stderr)."""
    for line in document["refusals"]:
        print_error(line, label="refused")
    if document["errors"]:
        sys.exit(EXIT_ERROR)
    if document["refused"]:
        sys.exit(EXIT_REFUSED)


def _line(*parts: tuple[str, str] | str) -> None:
    from rich.text import Text  # noqa: PLC0415 - rich: --help never loads it (tests/cli_startup)

    common.out.print(Text.assemble(*parts), highlight=False, soft_wrap=True)


def _progress() -> Any:
    """One line per wave, per stack's start and end, and per gate (user text never markup)."""
    from pulumi_hyperpod.fleet.apply import Events  # noqa: PLC0415 - with the command
    from pulumi_hyperpod.fleet.gates import FAILED, PASSED  # noqa: PLC0415 - with the command
    from pulumi_hyperpod.fleet.locks import SKIPPED  # noqa: PLC0415 - with the command

    def finished(result: Any) -> None:
        if result.error and result.error.startswith(SKIPPED):
            _line(("skipped ", "yellow"), f"{result.stack}: {result.error.removeprefix(SKIPPED)}")
        elif result.error:
            _line(("failed ", "red"), f"{result.stack}: {result.error}")
        elif result.changes:
            _line(("updated ", "green"), f"{result.stack}: " + ", ".join(f"{op} {n}" for op, n in sorted(result.changes.items())))
        else:
            _line(("no-op ", "dim"), f"{result.stack}: nothing to do (already at its spec)")
        for plan in result.plans:  # the plans its provider applied: each cluster's steps
            if plan.get("steps"):
                steps = ", ".join(str(step.get("operation")) for step in plan["steps"])
                _line(("  steps ", "dim"), f"{result.stack}, cluster {plan.get('cluster_name')}: {steps}")

    def gate(wave: Any, result: Any) -> None:
        style = {PASSED: "green", FAILED: "red"}.get(result.outcome, "yellow")
        detail = f": {result.detail}" if result.detail else ""
        _line((f"gate {result.outcome} ", style), f"wave {wave.name}, {result.gate}, {_gated(result)}{detail}")

    return Events(
        wave=lambda wave: _line(("wave ", "bold"), f"{wave.name}: {len(wave.stacks)} stack(s), {wave.parallelism} at once"),
        started=lambda stack: _line(("start ", "cyan"), f"{stack.name}: up ({stack.account or 'default'} {stack.region})"),
        finished=finished,
        gate=gate,
    )


def _gated(result: Any) -> str:
    """What a gate was checked on: a cluster of a stack, or (the policy gate, before the wave) its stacks."""
    return f"cluster {result.cluster} (stack {result.stack})" if result.cluster else f"stacks {result.stack} (before the wave)"


def _say_outcome(outcome: Any) -> None:
    for wave in outcome.waves:
        for result in wave.failed_stacks:
            print_error(f"wave {wave.wave}: the up of stack {result.stack} failed: {result.error}", label="failed")
        for gate in wave.failed_gates:
            print_error(f"wave {wave.wave}: gate {gate.gate} failed on {_gated(gate)}: {gate.detail}", label="failed")
    for wave in outcome.waves:
        for result in wave.skipped_stacks:
            print_error(f"wave {wave.wave}: stack {result.stack} was not updated: {result.error.partition(': ')[2]}", label="skipped")
    if outcome.not_started:
        print_error(f"later waves not started: {', '.join(outcome.not_started)}", label="stopped")
    noops = [s.stack for w in outcome.waves for s in w.stacks if not s.error and not s.changes]
    if outcome.ok:
        _line(("applied ", "green"), f"{len(outcome.waves)} wave(s)" + (f"; nothing to do for {', '.join(noops)}" if noops else ""))


def _show(document: dict[str, Any]) -> None:
    from rich.table import Table  # noqa: PLC0415 - rich: --help and --json output never load it (tests/cli_startup)

    table = Table(
        "stack", "account", "region", "cluster", "action", "steps", "victims", "cost/h", title=cell("fleet plan"), title_justify="left"
    )
    for row in document["stacks"]:
        where = (cell(row["stack"]), cell(row["account"] or "default"), cell(row["region"]))
        if row["error"]:
            table.add_row(*where, cell("-"), cell("error", "red"), cell(row["error"]), cell(""), cell(""))
        for cluster in row["clusters"]:
            steps = ", ".join(cluster["steps"]) or ("refused" if cluster["refusals"] else "no change")
            cost = cluster["cost_delta_per_hour"]
            table.add_row(
                *where,
                cell(cluster["cluster"]),
                cell(cluster["action"]),
                cell(steps),
                cell(len(cluster["victims"]) or ""),
                cell("" if cost is None else f"{cost:+,.2f} {cluster['currency'] or ''}".strip()),
            )
        if not row["error"] and not row["clusters"]:
            table.add_row(*where, cell("-"), cell("none"), cell("no cluster plan shown"), cell(""), cell(""))
    common.out.print(table)
    quotas = Table("account", "region", "instance type", "adds", "headroom", "stacks", title=cell("fleet quota"), title_justify="left")
    for draw in document["quotas"]:
        headroom = "?" if draw["headroom"] is None else f"{draw['headroom']:g}"
        quotas.add_row(
            cell(draw["account"]),
            cell(draw["region"]),
            cell(draw["instance_type"]),
            cell(draw["adds"]),
            cell(headroom, "red" if draw["over"] else ""),
            cell(", ".join(draw["stacks"])),
        )
    if document["quotas"]:
        common.out.print(quotas)
    _show_moves(document["moves"], Table)
    _show_policy(document.get("policy"), Table)


def _show_moves(section: dict[str, Any], table: Any) -> None:
    """The fleet moves: one row per node, the capacity they keep, and why a pair did not move."""
    rows = table("node", "from", "to", "why", title=cell("Nodes that would move between clusters"), title_justify="left")
    for move in section["moves"]:
        ends = [f"{e['stack']}/{e['cluster']}/{e['group']}" for e in (move["source"], move["target"])]
        for node in move["nodes"]:
            rows.add_row(cell(node["node_id"]), cell(ends[0]), cell(ends[1]), cell(node["reason"]))
    if section["moves"]:
        common.out.print(rows)
        for line in (*section["kept"], section["cost"], *dict.fromkeys(g for m in section["moves"] for g in m["guards"])):
            _line(("moves ", "cyan"), line)
        _line(
            ("moves ", "cyan"),
            "the stacks' plans above still list those nodes' deletes and adds: after the moves their ups do only the rest",
        )
    for note in section["notes"]:
        _line(("note ", "yellow"), note)


def _show_policy(policy: Any, table: Any) -> None:
    """The fleet policy's verdicts (with --policy): one row per violation, or that there is none."""
    if policy is None:
        return
    verdicts = table("verdict", "code", "stacks", "message", title=cell("fleet policy"), title_justify="left")
    for violation in policy["violations"]:
        verdicts.add_row(
            cell("deny", "red"),
            cell(violation.get("code")),
            cell(", ".join(map(str, violation.get("stacks") or ()))),
            cell(violation.get("message")),
        )
    if not policy["violations"]:
        verdicts.add_row(
            cell("allow", "green"), cell("-"), cell(""), cell(f"no rule of {', '.join(policy['paths'])} denies the fleet plan")
        )
    common.out.print(verdicts)


COMMANDS = (fleet_group,)
