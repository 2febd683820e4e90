"""The simulated S3's objects (fake/s3.py, fake/s3_bodies.py): their bytes are kept beside the world,
not in the meta values every request fingerprints and every process decodes, and what S3 holds is
bounded per object and in total (EntityTooLarge, S3's XML error)."""

from __future__ import annotations

import base64
import binascii
import sqlite3

import pytest
from botocore.exceptions import ClientError

from pulumi_hyperpod.sim.aws import Simulator, s3

BUCKET = "bundles-s3-store"


def _s3(sim: Simulator):
    client = sim.client("s3")
    client.create_bucket(Bucket=BUCKET, CreateBucketConfiguration={"LocationConstraint": "us-west-2"})
    return client


def test_object_bytes_are_not_in_the_worlds_meta_values(tmp_path):
    path = tmp_path / "world.sqlite"
    client = _s3(Simulator(path))
    body = bytes(range(256)) * 1024  # 256 KiB
    client.put_object(Bucket=BUCKET, Key="src/big.bin", Body=body)
    with sqlite3.connect(path) as conn:
        (stored,) = conn.execute("SELECT length(value) FROM meta WHERE key = 's3'").fetchone()
    assert stored < 2048, "the object's bytes went into the meta value every request fingerprints"
    fresh = Simulator(path)  # another process's view: a store of its own
    assert fresh.client("s3").get_object(Bucket=BUCKET, Key="src/big.bin")["Body"].read() == body
    listed = fresh.client("s3").list_objects_v2(Bucket=BUCKET)["Contents"]
    assert [(item["Key"], item["Size"]) for item in listed] == [("src/big.bin", len(body))]
    with fresh._store.transaction() as world:
        assert s3.bundle_file(world, f"s3://{BUCKET}/src/", "big.bin") == body


def test_deleted_and_replaced_objects_leave_no_bytes_behind(tmp_path):
    path = tmp_path / "world.sqlite"
    client = _s3(Simulator(path))
    client.put_object(Bucket=BUCKET, Key="a", Body=b"first")
    client.put_object(Bucket=BUCKET, Key="a", Body=b"second")
    assert client.get_object(Bucket=BUCKET, Key="a")["Body"].read() == b"second"
    client.delete_object(Bucket=BUCKET, Key="a")
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT COUNT(*) FROM s3_objects").fetchone() == (0,)
    with pytest.raises(ClientError) as raised:
        client.get_object(Bucket=BUCKET, Key="a")
    assert raised.value.response["Error"]["Code"] == "NoSuchKey"


def test_an_object_stored_inline_by_an_older_world_is_still_read(tmp_path):
    sim = Simulator(tmp_path / "world.sqlite")
    _s3(sim)
    with sim._store.transaction() as world:  # the shape worlds had before the bytes moved out
        world.s3[BUCKET]["objects"]["old.sh"] = {
            "body": base64.b64encode(b"#!/bin/sh\n").decode(),
            "etag": '"x"',
            "crc32": base64.b64encode(binascii.crc32(b"#!/bin/sh\n").to_bytes(4, "big")).decode(),
            "last_modified": world.now,
            "content_type": "text/x-sh",
        }
    client = sim.client("s3")
    assert client.get_object(Bucket=BUCKET, Key="old.sh")["Body"].read() == b"#!/bin/sh\n"
    assert client.head_object(Bucket=BUCKET, Key="old.sh")["ContentLength"] == 10
    assert client.list_objects_v2(Bucket=BUCKET)["Contents"][0]["Size"] == 10


def test_an_object_over_the_per_object_bound_is_entity_too_large(monkeypatch):
    monkeypatch.setattr(s3, "MAX_OBJECT_BYTES", 1000)
    client = _s3(Simulator())
    client.put_object(Bucket=BUCKET, Key="fits", Body=b"x" * 1000)
    with pytest.raises(ClientError) as raised:
        client.put_object(Bucket=BUCKET, Key="too-big", Body=b"x" * 1001)
    error = raised.value.response["Error"]
    assert (error["Code"], raised.value.response["ResponseMetadata"]["HTTPStatusCode"]) == ("EntityTooLarge", 400)
    assert error["MaxSizeAllowed"] == "1000" and error["ProposedSize"] == "1001"
    assert [item["Key"] for item in client.list_objects_v2(Bucket=BUCKET)["Contents"]] == ["fits"]


def test_what_s3_holds_in_total_is_bounded_and_a_replacement_counts_once(monkeypatch):
    monkeypatch.setattr(s3, "MAX_TOTAL_BYTES", 2500)
    client = _s3(Simulator())
    client.put_object(Bucket=BUCKET, Key="a", Body=b"x" * 1000)
    client.put_object(Bucket=BUCKET, Key="b", Body=b"x" * 1000)
    client.put_object(Bucket=BUCKET, Key="a", Body=b"y" * 1500)  # replaces a: 2,500 in all
    with pytest.raises(ClientError) as raised:
        client.put_object(Bucket=BUCKET, Key="c", Body=b"z")
    error = raised.value.response["Error"]
    assert error["Code"] == "EntityTooLarge" and "2500 bytes in all" in error["Message"]
    client.delete_object(Bucket=BUCKET, Key="b")
    client.put_object(Bucket=BUCKET, Key="c", Body=b"z" * 1000)  # room again
