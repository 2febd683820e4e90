"""Files written for someone to read back (core/files.py): whole or not at all, the old file kept on a
failure, errors naming the file asked for."""

from __future__ import annotations

import os
import stat

import pytest

from pulumi_hyperpod.core import files


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_text_and_bytes_are_written_and_the_path_returned(tmp_path):
    assert files.write_whole(tmp_path / "a.json", '{"é": 1}\n') == tmp_path / "a.json"
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == '{"é": 1}\n'
    files.write_whole(tmp_path / "b.bin", b"\x00\x01")
    assert (tmp_path / "b.bin").read_bytes() == b"\x00\x01" and leftovers(tmp_path) == []


def test_a_new_file_gets_what_open_would_give_it_or_the_mode_asked(tmp_path):
    umask = os.umask(0o027)
    try:
        files.write_whole(tmp_path / "plain", "x")
        files.write_whole(tmp_path / "private", "x", mode=0o600)
    finally:
        os.umask(umask)
    assert stat.S_IMODE((tmp_path / "plain").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "private").stat().st_mode) == 0o600


def test_a_replaced_file_keeps_its_mode(tmp_path):
    target = tmp_path / "plan.json"
    target.write_text("old")
    target.chmod(0o604)
    files.write_whole(target, "new", mode=0o600)
    assert target.read_text() == "new" and stat.S_IMODE(target.stat().st_mode) == 0o604


def test_a_failure_keeps_the_old_file_leaves_nothing_and_names_the_target(tmp_path, monkeypatch):
    target = tmp_path / "plan.json"
    target.write_text("the plan that was there")

    def full_disk(*_args, **_kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(files.os, "replace", full_disk)
    with pytest.raises(OSError) as raised:
        files.write_whole(target, "a new plan")
    assert raised.value.errno == 28 and raised.value.filename == str(target)
    assert str(target) in str(raised.value) and ".tmp" not in str(raised.value)
    assert target.read_text() == "the plan that was there" and leftovers(tmp_path) == []


def test_an_interrupt_midway_leaves_nothing_either(tmp_path, monkeypatch):
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_whole(tmp_path / "plan.json", "x")
    assert list(tmp_path.iterdir()) == []


def test_a_missing_directory_is_named_as_the_file_asked_for(tmp_path):
    target = tmp_path / "no-such-dir" / "plan.json"
    with pytest.raises(FileNotFoundError) as raised:
        files.write_whole(target, "x")
    assert raised.value.filename == str(target)


# ---- written only where asked ----------------------------------------------------------------------
def _device(path) -> None:
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))  # a /dev/null of our own
    except (PermissionError, OSError) as error:
        pytest.skip(f"cannot make a device node here: {error}")


@pytest.mark.parametrize("kind", ["fifo", "directory", "device", "symlink", "dangling symlink"])
def test_what_is_not_a_regular_file_is_refused_and_never_replaced(tmp_path, kind):
    target = tmp_path / "out.json"
    elsewhere = tmp_path / "elsewhere.txt"
    elsewhere.write_text("someone else's file")
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "directory":
        target.mkdir()
    elif kind == "device":
        _device(target)
    elif kind == "symlink":
        target.symlink_to(elsewhere)
    else:
        target.symlink_to(tmp_path / "nowhere.json")
    before = os.lstat(target)

    with pytest.raises(files.UnsafeTarget) as raised:
        files.write_whole(target, "a plan")

    after = os.lstat(target)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)  # the very same thing is there
    assert elsewhere.read_text() == "someone else's file" and leftovers(tmp_path) == []
    assert raised.value.filename == str(target) and "refused" in str(raised.value)
    assert files.why_unwritable(target) is not None


def test_the_input_file_is_never_the_output(tmp_path):
    spec = tmp_path / "spec.json"
    spec.write_text("{}")
    link = tmp_path / "same.json"
    os.link(spec, link)  # the same file under another name

    for target in (spec, tmp_path / "." / "spec.json", link):
        with pytest.raises(files.UnsafeTarget, match="input"):
            files.write_whole(target, "a plan", inputs=[spec])
        assert "input" in files.why_unwritable(target, inputs=[str(spec)])
    assert spec.read_text() == "{}"


def test_a_regular_file_or_a_new_path_is_written(tmp_path):
    assert files.why_unwritable(tmp_path / "new.json", inputs=[tmp_path / "spec.json"]) is None
    files.write_whole(tmp_path / "new.json", "x", inputs=[tmp_path / "spec.json"])
    (tmp_path / "old.json").write_text("old")
    files.write_whole(tmp_path / "old.json", "new")
    assert (tmp_path / "old.json").read_text() == "new"
