"""The runnable blocks of the documentation, and the rule that checks their shown output.

Which files: README.md, every `docs/**/*.md`, every `examples/*/README.md` and every other
top-level `*/README.md` (a new doc is picked up without touching the tests). Which blocks: fenced
```bash / ```sh / ```shell (run by bash) and ```python (run by the repo's .venv/bin/python). A
```text block right after one (only blank lines between) is the output the doc shows for it. The
line `<!-- docs-test: needs-credentials -->` right before a block (blank lines allowed) says it
needs real cloud credentials: it is run without any, and must fail with the one line its text
block shows. `<!-- docs-test: run-by tests/PATH.py -->` says that test runs the block (the
install guide's, whose builds and installs take minutes): the docs tier does not run it.
docs/CONTRIBUTING-docs.md is the convention for writers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

SHELL = ("bash", "sh", "shell")
PYTHON = ("python",)
RUNNABLE = SHELL + PYTHON
OUTPUT = "text"
NEEDS_CREDENTIALS = "<!-- docs-test: needs-credentials -->"
# `<!-- docs-test: pulumi-program DIR -->`: the Python block is DIR's __main__.py, run by `pulumi preview`
_PROGRAM = re.compile(r"^<!-- docs-test: pulumi-program (?P<dir>\S+) -->$")
_ANY_MARKER = re.compile(r"^<!-- docs-test:")
# `<!-- docs-test: timeout SECONDS -->`: a block that builds a toolchain's program (Go) gets its own budget
_TIMEOUT = re.compile(r"^<!-- docs-test: timeout (?P<seconds>[0-9]{2,4}) -->$")
# `<!-- docs-test: run-by tests/PATH.py -->`: that test (which must exist) runs the block, the docs tier does not
_RUN_BY = re.compile(r"^<!-- docs-test: run-by (?P<test>tests/\S+\.py) -->$")
REPO = Path(__file__).resolve().parents[2]
ELLIPSIS = "..."  # a text-block line of its own: any output may stand there

_FENCE = re.compile(r"^(?P<indent>[ \t]*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")


@dataclass(frozen=True)
class Block:
    """One fenced block: `line` is the 1-based line of its opening fence."""

    path: Path
    line: int
    lang: str
    code: str
    needs_credentials: bool = False
    expected: str | None = None  # the ```text block after it
    expected_line: int | None = None
    program_dir: str | None = None  # a Pulumi program: the project folder it is the __main__.py of
    timeout: float | None = None  # its own time budget (seconds); None: session.BLOCK_TIMEOUT
    run_by: str | None = None  # the test that runs it instead of the docs tier

    @property
    def runnable(self) -> bool:
        return self.lang in RUNNABLE and self.run_by is None

    def where(self, root: Path) -> str:
        return f"{self.path.relative_to(root)}:{self.line}"


def doc_files(root: Path) -> list[Path]:
    """The documentation the docs test runs, in a stable order."""
    found = {root / "README.md"} if (root / "README.md").exists() else set()
    found.update(root.glob("docs/**/*.md"))
    found.update(root.glob("examples/*/README.md"))
    found.update(p for p in root.glob("*/README.md") if p.parts[-2] not in ("tests", "node_modules"))
    return sorted(p for p in found if ".venv" not in p.parts)


_LINK = re.compile(r"\]\((?P<target>[^)#\s]+\.md)(?:#[^)]*)?\)")


def reading_order(root: Path) -> list[Path]:
    """The documentation in the order a reader follows it: README.md, then the docs its
    "Documentation" list links to, in that order, then any other doc, then each example's README
    (by name), then the other top-level READMEs. Every file of `doc_files` once."""
    files = doc_files(root)
    readme = root / "README.md"
    listed: list[Path] = []
    if readme in files:
        section = re.search(r"^## Documentation\n(?P<body>.*?)(?=^## |\Z)", readme.read_text(encoding="utf-8"), re.MULTILINE | re.DOTALL)
        for match in _LINK.finditer(section["body"] if section else ""):
            target = root / match["target"]
            if target in files and target not in listed:
                listed.append(target)
    docs = [p for p in files if p.is_relative_to(root / "docs") and p not in listed]
    examples = [p for p in files if p.is_relative_to(root / "examples")]
    head = [readme] if readme in files else []
    rest = [p for p in files if p not in {*head, *listed, *docs, *examples}]
    return [*head, *listed, *docs, *examples, *rest]


def _fenced(path: Path, text: str) -> list[tuple[int, str, str, int]]:
    """(opening line, info string, body, closing line) of every fenced block, markdown's rules:
    a fence closes on a line of the same character, at least as long, with no info string."""
    lines = text.splitlines()
    out: list[tuple[int, str, str, int]] = []
    i = 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match:
            i += 1
            continue
        fence, info, indent = match["fence"], match["info"].strip(), len(match["indent"])
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            stripped = lines[j].strip()
            if stripped.startswith(fence[0] * len(fence)) and set(stripped) == {fence[0]}:
                break
            # a fence indented in a list item: its body is indented the same way
            body.append(lines[j][indent:] if lines[j][:indent].strip() == "" else lines[j])
            j += 1
        if j == len(lines):
            raise ValueError(f"{path}:{i + 1}: a ``` block that is never closed")
        out.append((i + 1, info.split()[0].lower() if info else "", "\n".join(body) + "\n", j + 1))
        i = j + 1
    return out


def blocks_in(path: Path) -> list[Block]:
    """Every fenced block of `path`, each runnable one with its marker and its shown output."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    fenced = _fenced(path, text)
    blocks: list[Block] = []
    for index, (start, lang, body, _end) in enumerate(fenced):
        if (
            lang == OUTPUT
            and blocks
            and blocks[-1].runnable
            and blocks[-1].expected is None
            and _only_blank(lines, _end_of(fenced, index - 1), start - 1)
        ):
            previous = blocks[-1]
            blocks[-1] = Block(
                previous.path,
                previous.line,
                previous.lang,
                previous.code,
                previous.needs_credentials,
                body,
                start,
                previous.program_dir,
                previous.timeout,
                previous.run_by,
            )
            continue
        marker = _marker_before(lines, start - 1)
        program = _PROGRAM.match(marker or "")
        budget = _TIMEOUT.match(marker or "")
        run_by = _RUN_BY.match(marker or "")
        if run_by and not (REPO / run_by["test"]).is_file():
            raise ValueError(f"{path}:{start - 1}: the run-by marker names {run_by['test']}, which does not exist")
        if marker and marker != NEEDS_CREDENTIALS and not program and not budget and not run_by:
            raise ValueError(f"{path}:{start - 1}: unknown docs-test marker {marker!r} (docs/CONTRIBUTING-docs.md)")
        if program and lang not in PYTHON:
            raise ValueError(f"{path}:{start}: the pulumi-program marker is for ```python blocks")
        blocks.append(
            Block(
                path,
                start,
                lang,
                body,
                needs_credentials=marker == NEEDS_CREDENTIALS,
                program_dir=program["dir"] if program else None,
                timeout=float(budget["seconds"]) if budget else None,
                run_by=run_by["test"] if run_by else None,
            )
        )
    return blocks


def _end_of(fenced: list[tuple[int, str, str, int]], index: int) -> int:
    return fenced[index][3] if index >= 0 else 0


def _only_blank(lines: list[str], after: int, before: int) -> bool:
    """Lines after line `after` and before line `before` (1-based, exclusive) are all blank."""
    return all(not lines[k].strip() for k in range(after, before - 1))


def _marker_before(lines: list[str], fence_index: int) -> str | None:
    """The `<!-- docs-test: … -->` line right before the fence at `fence_index` (0-based), if any."""
    k = fence_index - 1
    while k >= 0 and not lines[k].strip():
        k -= 1
    return lines[k].strip() if k >= 0 and _ANY_MARKER.match(lines[k].strip()) else None


def runnable_blocks(root: Path) -> dict[Path, list[Block]]:
    return {path: [b for b in blocks_in(path) if b.runnable] for path in doc_files(root)}


# -- the output rule ---------------------------------------------------------------------------


def _normal(text: str) -> str:
    return " ".join(text.split())


def missing_output(expected: str, output: str) -> str | None:
    """The rule for a shown ```text block: every non-blank line of it that is not `...` must appear
    in the output, in the same order (each after the previous one's match), with runs of spaces
    counted as one space (tables pad their columns). A line may be part of a longer output line.
    Returns the first expected line not found, or None."""
    haystack = "\n".join(_normal(line) for line in output.splitlines())
    position = 0
    for line in expected.splitlines():
        wanted = _normal(line)
        if not wanted or wanted == ELLIPSIS:
            continue
        found = haystack.find(wanted, position)
        if found < 0:
            return line.strip()
        position = found + len(wanted)
    return None


def credential_error_line(expected: str | None) -> str | None:
    """The one documented error line of a needs-credentials block (None if the doc shows not exactly one)."""
    if expected is None:
        return None
    lines = [line.strip() for line in expected.splitlines() if line.strip() and line.strip() != ELLIPSIS]
    return lines[0] if len(lines) == 1 else None
