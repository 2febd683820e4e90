"""Files written for someone to read back (files.py): whole or not at all, the old file kept on a
failure, errors naming the file asked for."""

from __future__ import annotations

import os
import stat

import pytest

from pulumi_hyperpod import files


def leftovers(directory) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.endswith(".tmp"))


def test_text_and_bytes_are_written_and_the_path_returned(tmp_path):
    assert files.write_whole(tmp_path / "a.json", "{\"é\": 1}\n") == tmp_path / "a.json"
    assert (tmp_path / "a.json").read_text(encoding="utf-8") == "{\"é\": 1}\n"
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
