"""Every input read with bounds: provisioning_parameters.json (a --lifecycle folder or file, or the
bundle in S3) is read like a spec — a regular file, a size limit, a depth limit, a key given
twice refused — and every problem is one LifecycleError naming the file or object, never a
traceback, a hang or gigabytes of memory."""

from __future__ import annotations

import json
import os
import threading

import pytest

from pulumi_hyperpod.aws.client import connect
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.aws.slurm.roles import FILE_NAME, LifecycleError, read_lifecycle_dir, read_s3
from pulumi_hyperpod.aws.slurm.upload import upload_bundle

URI = "s3://lifecycle-bucket/base-config/"
GOOD = {
    "version": "1.0.0",
    "workload_manager": "slurm",
    "controller_group": "controller-machine",
    "login_group": "login-group",
    "worker_groups": [{"instance_group_name": "worker-group-1", "partition_name": "p1"}],
}
DEEP = "[" * 100_000 + "]" * 100_000
TWICE = '{"controller_group": "a", "controller_group": "b", "worker_groups": []}'
HUGE = json.dumps(GOOD) + " " * (2 * 1024 * 1024)


def _refused(call, *where: str) -> str:
    with pytest.raises(LifecycleError) as raised:
        call()
    text = str(raised.value)
    assert all(part in text for part in where), text
    return text


@pytest.mark.parametrize("content, rule", [(DEEP, "nested too deeply"), (TWICE, "appears twice"), (HUGE, "larger than")])
def test_a_lifecycle_folder_file_is_read_with_the_spec_rules(tmp_path, content, rule):
    (tmp_path / FILE_NAME).write_text(content)

    _refused(lambda: read_lifecycle_dir(tmp_path), FILE_NAME, rule)


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path):
    os.mkfifo(tmp_path / FILE_NAME)
    outcome: list = []

    def read() -> None:
        try:
            read_lifecycle_dir(tmp_path)
        except LifecycleError as error:
            outcome.append(error)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():  # unblock the reader, then fail
        with open(tmp_path / FILE_NAME, "w"):
            pass
        pytest.fail("reading a FIFO waited for a writer")
    assert outcome and "not a regular file" in str(outcome[0])


def test_dev_zero_is_refused_at_once(tmp_path):
    (tmp_path / FILE_NAME).symlink_to("/dev/zero")

    _refused(lambda: read_lifecycle_dir(tmp_path), "not a regular file")


@pytest.fixture
def s3():
    return connect("fake", simulator=Simulator(seed=11), service="s3")


@pytest.mark.parametrize("content, rule", [(DEEP, "nested too deeply"), (TWICE, "appears twice"), (HUGE, "larger than")])
def test_the_bundle_in_s3_is_read_with_the_same_rules(s3, content, rule):
    upload_bundle(s3, {FILE_NAME: content.encode()}, URI, create_bucket=True)

    _refused(lambda: read_s3(s3, URI), f"{URI}{FILE_NAME}", rule)


def test_a_good_file_still_reads(tmp_path, s3):
    (tmp_path / FILE_NAME).write_text(json.dumps(GOOD))
    upload_bundle(s3, {FILE_NAME: json.dumps(GOOD).encode()}, URI, create_bucket=True)

    for found in (read_lifecycle_dir(tmp_path), read_s3(s3, URI)):
        assert found.roles_for(["controller-machine", "login-group"]) == {"controller-machine": "Controller", "login-group": "Login"}


# ---- through the CLI: one line, no traceback -------------------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ("apply", "--plan", "deep.json", "--yes"),
        ("gcp", "plan", "-f", "gcp-cluster.json", "--observed", "deep.json"),
        ("plan", "-f", "spec.json", "--lifecycle", "bundle"),
    ],
)
def test_deeply_nested_json_is_one_line_naming_the_file(world, tmp_path, args):
    import shutil

    from tests.support.gcp import EXAMPLE
    from tests.support.input_cli import SPECS, run

    (tmp_path / "deep.json").write_text(DEEP)
    (tmp_path / "bundle").mkdir()
    (tmp_path / "bundle" / FILE_NAME).write_text(DEEP)
    shutil.copy(EXAMPLE, tmp_path / "gcp-cluster.json")
    shutil.copy(SPECS / "seed004-initial.json", tmp_path / "spec.json")

    result = run(*args)

    errors = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert result.code == 1 and len(errors) == 1, result.output
    assert "nested too deeply" in errors[0] and ("deep.json" in errors[0] or FILE_NAME in errors[0])
