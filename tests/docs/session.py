"""A newcomer's session with one doc file: a scratch copy of the repository, a fresh shell per block.

The scratch copy holds the files git tracks, plus new files not yet committed (not the ignored
ones: no `.hyperpod/` world, no `state/`, no stacks), with the repository's `.venv` linked in, so
running the docs never dirties the checkout and every file starts from a clean tree. Each block
runs in a new `bash` (no profile, no rc file) or `.venv/bin/python`, from the scratch root, with the
environment of a fresh login: a minimal PATH, a fresh HOME (no ~/.aws, no gcloud credentials, no
Pulumi login; only the engine cache scripts/install built is linked in), a UTF-8 locale, and none
of the project's variables. The `.venv` is the repository's own, so a block may not run
scripts/install (it would reinstall the package from the scratch copy): such a block fails.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from .blocks import PYTHON, Block

_INSTALLS = re.compile(r"^[^#\n]*\bscripts/install(-pulumi)?(?![\w-])", re.MULTILINE)  # not install-opa
SYSTEM_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
BLOCK_TIMEOUT = 240.0


@dataclass
class Outcome:
    block: Block
    returncode: int
    output: str  # stdout and stderr, interleaved as written
    seconds: float


def tracked_files(repo: Path) -> list[str]:
    listing = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=repo, capture_output=True, check=True
    ).stdout.decode()
    return [name for name in listing.split("\0") if name]


def scratch_copy(repo: Path, dest: Path) -> Path:
    """The working tree's files (tracked and new, not ignored) under `dest`, `.venv` linked."""
    dest.mkdir(parents=True)
    for name in tracked_files(repo):
        if name == ".venv":  # a linked venv (.gitignore's `.venv/` matches a directory only)
            continue
        source = repo / name
        if not source.exists():  # deleted in the working tree, not yet committed
            continue
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target, follow_symlinks=False)
    (dest / ".venv").symlink_to(repo / ".venv")
    return dest


_GIT = ["git", "-c", "user.name=docs-test", "-c", "user.email=docs-test@localhost", "-c", "commit.gpgsign=false"]


def as_committed(root: Path) -> None:
    """Make the scratch copy a git repository with every file committed, so `git status` tells
    what the reading changed and left (the repository's .gitignore decides what is ignored)."""
    for argv in (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-verify", "-m", "before the reading"]):
        subprocess.run([*_GIT, *argv], cwd=root, check=True, capture_output=True)


def left_in_tree(root: Path) -> list[str]:
    """`git status --porcelain` of the copy: changed tracked files and new files git does not ignore."""
    status = subprocess.run(
        [*_GIT, "status", "--porcelain", "--untracked-files=all"], cwd=root, check=True, capture_output=True, text=True
    ).stdout
    return [line for line in status.splitlines() if line.strip()]


def newcomer_home(base: Path) -> Path:
    """An empty HOME, but for the engine a newcomer built with scripts/install: its cache
    (`~/.cache/pulumi-hyperpod`, or $PULUMI_HYPERPOD_CACHE) is linked in, so nothing rebuilds it."""
    home = base / "home"
    (home / ".cache").mkdir(parents=True)
    cache = Path(os.environ.get("PULUMI_HYPERPOD_CACHE") or Path.home() / ".cache" / "pulumi-hyperpod")
    (home / ".cache" / "pulumi-hyperpod").symlink_to(cache)
    # the Go and npm caches a newcomer's own machine has once scripts/install and a first build ran:
    # linked, so a Go or TypeScript example does not download every module again in each docs run
    for kept in ("go", ".npm", ".cache/go-build"):
        if (Path.home() / kept).is_dir():
            (home / kept).symlink_to(Path.home() / kept)
    return home


def engine_missing(repo: Path) -> str | None:
    """Why the docs cannot run here (they run `pulumi`), or None: the engine must be installed."""
    marker = repo / ".venv" / "pulumi-bin-dir"
    if not marker.exists():
        return "the docs run `pulumi`: install the engine first (bash scripts/install); .venv/pulumi-bin-dir is missing"
    if not (Path(marker.read_text().strip()) / "pulumi").exists():
        return f"no pulumi in {marker.read_text().strip()} (.venv/pulumi-bin-dir): run bash scripts/install"
    return None


def fresh_env(home: Path) -> dict[str, str]:
    """What a new terminal has: nothing of this project's, nothing of the test run's."""
    return {
        "PATH": SYSTEM_PATH,
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "USER": os.environ.get("USER", "newcomer"),
        "SHELL": "/bin/bash",
    }


def _child_setup() -> None:
    # a background job's children inherit SIGINT ignored; the engine stops its plugins with SIGINT
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def run_block(block: Block, root: Path, home: Path, timeout: float = BLOCK_TIMEOUT) -> Outcome:
    """Run `block` as written: shell blocks with `bash -e -o pipefail` (a failing command fails the
    block, as a reader would stop there), Python blocks with the repository's `.venv/bin/python`."""
    if block.program_dir is not None:
        return _run_program(block, root, home, timeout)
    if _INSTALLS.search(block.code):
        return Outcome(
            block,
            1,
            "[docs test: a block must not run scripts/install: it would reinstall the shared "
            ".venv from the scratch copy (bash scripts/demo installs only what is missing)]",
            0.0,
        )
    if block.lang in PYTHON:
        argv = [str(root / ".venv" / "bin" / "python"), "-c", block.code]
    else:
        argv = ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", block.code, "docs-block"]
    return _run(block, argv, root, home, timeout)


def _run(block: Block, argv: list[str], root: Path, home: Path, timeout: float) -> Outcome:
    started = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=root,
        env=fresh_env(home),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        start_new_session=True,
        preexec_fn=_child_setup,
    )
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        output, _ = proc.communicate()
        output += f"\n[docs test: killed after {timeout:.0f}s]"
    return Outcome(block, proc.returncode, output, time.monotonic() - started)


def _run_program(block: Block, root: Path, home: Path, timeout: float) -> Outcome:
    """A Pulumi program block: in place of DIR/__main__.py, previewed on a stack of its own (the
    engine runs it and the provider checks what it declares), then DIR's own program is put back."""
    project = (root / block.program_dir).resolve()
    if not (project / "Pulumi.yaml").exists():
        return Outcome(block, 1, f"[docs test: {block.program_dir} is not a Pulumi project folder]", 0.0)
    main = project / "__main__.py"
    original = main.read_bytes() if main.exists() else None
    main.write_text(block.code)
    stack = f"docs-program-{block.line}"
    script = (
        f"source scripts/env.sh && cd {shlex.quote(str(project))} && "
        f"pulumi stack select --create {stack} --non-interactive >/dev/null && "
        f"pulumi preview --non-interactive --stack {stack}"
    )
    try:
        return _run(block, ["bash", "--noprofile", "--norc", "-e", "-o", "pipefail", "-c", script], root, home, timeout)
    finally:
        if original is None:
            main.unlink()
        else:
            main.write_bytes(original)
