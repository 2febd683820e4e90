"""The docs harness's own rules: which blocks run, what output a doc shows, how it is matched."""

from __future__ import annotations

from pathlib import Path

import pytest

from .blocks import blocks_in, credential_error_line, doc_files, missing_output, reading_order
from .session import as_committed, left_in_tree

DOC = """# Title

```bash
source scripts/env.sh
hyperpod --help
```

```text
Usage: hyperpod
...
```

<!-- docs-test: needs-credentials -->

```sh
hyperpod --region us-west-2 status x
```

```text
error: no AWS credentials found
```

```json
{"not": "run"}
```

```text
a text block after a json block is not output
```

- a list item:

   <!-- docs-test: pulumi-program examples/scale-walkthrough -->
   ```python
   import pulumi
   ```
"""


def _blocks(tmp_path: Path, text: str = DOC):
    path = tmp_path / "doc.md"
    path.write_text(text)
    return blocks_in(path)


def test_blocks_their_output_and_markers(tmp_path: Path) -> None:
    blocks = _blocks(tmp_path)
    runnable = [b for b in blocks if b.runnable]
    assert [(b.lang, b.line) for b in runnable] == [("bash", 3), ("sh", 15), ("python", 34)]
    first, credentials, program = runnable
    assert first.code == "source scripts/env.sh\nhyperpod --help\n"
    assert first.expected == "Usage: hyperpod\n...\n" and first.expected_line == 8
    assert not first.needs_credentials and first.program_dir is None
    assert credentials.needs_credentials and credentials.expected == "error: no AWS credentials found\n"
    assert program.program_dir == "examples/scale-walkthrough" and program.code == "import pulumi\n"
    # the text block after the json block is a block of its own, nobody's output
    assert [b.lang for b in blocks if not b.runnable] == ["json", "text"]


def test_text_block_separated_by_prose_is_not_output(tmp_path: Path) -> None:
    (block,) = [b for b in _blocks(tmp_path, "```bash\necho hi\n```\n\nsome prose\n\n```text\nhi\n```\n") if b.runnable]
    assert block.expected is None


def test_unknown_marker_and_unclosed_fence_are_errors(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown docs-test marker"):
        _blocks(tmp_path, "<!-- docs-test: skip -->\n```bash\necho\n```\n")
    with pytest.raises(ValueError, match="never closed"):
        _blocks(tmp_path, "```bash\necho\n")
    with pytest.raises(ValueError, match="for ```python blocks"):
        _blocks(tmp_path, "<!-- docs-test: pulumi-program . -->\n```bash\necho\n```\n")


@pytest.mark.parametrize(
    "expected, output, missing",
    [
        ("a\nb\n", "a\nb\n", None),
        ("b\na\n", "a\nb\n", "a"),  # order counts
        ("│ a4*   │ up │\n", "│ a4*       │ up    │ infinite │\n", None),  # runs of spaces are one
        ("a\n...\nc\n", "a\nb\nc\n", None),  # ... stands for any lines
        ("  \nc\n", "c\n", None),  # blank lines say nothing
        ("['ml.p5.48xlarge']\n", "['ml.p5.48xlarge', 'ml.p4d.24xlarge']\n", "['ml.p5.48xlarge']"),
        ("x\n", "", "x"),
    ],
)
def test_output_rule(expected: str, output: str, missing: str | None) -> None:
    assert missing_output(expected, output) == missing


def test_credential_error_is_one_line() -> None:
    assert credential_error_line("error: no AWS credentials\n") == "error: no AWS credentials"
    assert credential_error_line("...\nerror: x\n") == "error: x"
    assert credential_error_line("error: x\nerror: y\n") is None
    assert credential_error_line(None) is None


def _docs_at(root: Path, names: tuple[str, ...]) -> None:
    for name in names:
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("# doc\n")


def test_doc_files_pick_up_new_docs(tmp_path: Path) -> None:
    _docs_at(
        tmp_path,
        (
            "README.md",
            "docs/new-topic.md",
            "docs/deep/more.md",
            "examples/x/README.md",
            "policies/README.md",
            "tests/badinput/README.md",
            "examples/x/notes.md",
        ),
    )
    found = [str(p.relative_to(tmp_path)) for p in doc_files(tmp_path)]
    assert found == sorted(["README.md", "docs/deep/more.md", "docs/new-topic.md", "examples/x/README.md", "policies/README.md"])


def test_reading_order_follows_the_readme_list(tmp_path: Path) -> None:
    readme = """# Project

## Quick start

[docs/zeta.md](docs/zeta.md) is linked here, before the list: the list decides.

## Documentation

- [docs/zeta.md](docs/zeta.md) — first; [CHANGELOG.md](CHANGELOG.md) — not a doc the test runs
- [docs/alpha.md](docs/alpha.md#a-section), [docs/zeta.md](docs/zeta.md) again

## Tests

[docs/beta.md](docs/beta.md) is linked after the list.
"""
    _docs_at(
        tmp_path,
        (
            "docs/alpha.md",
            "docs/beta.md",
            "docs/zeta.md",
            "docs/deep/more.md",
            "examples/b/README.md",
            "examples/a/README.md",
            "policies/README.md",
        ),
    )
    (tmp_path / "README.md").write_text(readme)
    (tmp_path / "CHANGELOG.md").write_text("# changes\n")
    order = [str(p.relative_to(tmp_path)) for p in reading_order(tmp_path)]
    assert order == [
        "README.md",
        "docs/zeta.md",
        "docs/alpha.md",
        "docs/beta.md",  # not in the list: after it, by name
        "docs/deep/more.md",
        "examples/a/README.md",
        "examples/b/README.md",
        "policies/README.md",
    ]
    assert sorted(order) == [str(p.relative_to(tmp_path)) for p in doc_files(tmp_path)]


def test_the_tree_check_sees_changed_and_new_files_not_ignored_ones(tmp_path: Path) -> None:
    (tmp_path / ".gitignore").write_text("/state/\n")
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {}\n")
    as_committed(tmp_path)
    assert left_in_tree(tmp_path) == []
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "stack.json").write_text("{}")
    assert left_in_tree(tmp_path) == []  # ignored
    (tmp_path / "Pulumi.dev.yaml").write_text("config: {workerCount: 3}\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "refused.txt").write_text("refused\n")
    assert left_in_tree(tmp_path) == [" M Pulumi.dev.yaml", "?? docs/refused.txt"]


def test_a_block_can_take_its_own_time_budget(tmp_path):
    [block] = [b for b in _blocks(tmp_path, "<!-- docs-test: timeout 900 -->\n```bash\necho slow\n```\n")]
    assert block.timeout == 900.0
    [default] = _blocks(tmp_path, "```bash\necho\n```\n")
    assert default.timeout is None


def test_a_block_run_by_another_test_is_not_run_here(tmp_path: Path) -> None:
    [block] = _blocks(tmp_path, "<!-- docs-test: run-by tests/engine/test_artifacts.py -->\n```bash\nbash scripts/build-artifacts\n```\n")
    assert block.run_by == "tests/engine/test_artifacts.py" and not block.runnable
    with pytest.raises(ValueError, match=r"names tests/engine/test_nothing\.py, which does not exist"):
        _blocks(tmp_path, "<!-- docs-test: run-by tests/engine/test_nothing.py -->\n```bash\necho\n```\n")
