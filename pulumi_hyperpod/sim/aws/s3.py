"""S3, as much as lifecycle bundles need: buckets and objects the HyperPod simulator keeps.

A real boto3 `s3` client's requests arrive here from botocore's `before-send` like the sagemaker
ones, in S3's REST-XML protocol: CreateBucket, HeadBucket, PutObject (aws-chunked bodies with a
trailing checksum, as botocore sends them; a wrong checksum is BadDigest), GetObject, HeadObject,
DeleteObject and ListObjectsV2 (paginated with continuation tokens). Errors are S3's XML errors
(NoSuchBucket, NoSuchKey, BucketAlreadyOwnedByYou…), so botocore raises the ClientError it would
raise against AWS.

The world keeps them in `world.s3`: bucket -> {"region", "created", "objects": key -> metadata}; the
objects' bytes are kept beside it (`world.s3_bodies`, sim/aws/s3_bodies.py), so that what S3 holds does
not weigh on every other request. What it holds is bounded: `MAX_OBJECT_BYTES` per object (a larger
PutObject is S3's EntityTooLarge) and `MAX_TOTAL_BYTES` in all (EntityTooLarge too, saying so).
The simulator reads bundles from there: a Slurm cluster's roles and partitions follow the
`provisioning_parameters.json` under its groups' LifeCycleConfig.SourceS3Uri (see `bundle_file`).
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import hashlib
import re
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote, unquote, urlsplit


if TYPE_CHECKING:  # pragma: no cover
    from botocore.awsrequest import AWSResponse

from pulumi_hyperpod.sim.aws.body import RawBody
from xml.sax.saxutils import escape as xml_escape

_NS = "http://s3.amazonaws.com/doc/2006-03-01/"
_BUCKET_NAME = re.compile(r"[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]")
_MAX_KEYS = 1000
_CHUNK_SIZE = re.compile(rb"[0-9a-fA-F]{1,16}")
# Bounds on what the simulated S3 holds: lifecycle bundles are scripts and a few JSON files (kilobytes);
# these leave room for a bundle with binaries in it, and keep a world file, and a process that opens it,
# at a size a laptop does not notice. Documented in docs/simulator.md.
MAX_OBJECT_BYTES = 16 * 1024 * 1024
MAX_TOTAL_BYTES = 256 * 1024 * 1024


class S3Error(Exception):
    def __init__(self, status: int, code: str, message: str, **extra: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.extra = status, code, message, extra


# ---- the wire ------------------------------------------------------------------------------------


def answer(world: Any, region: str, request: Any) -> AWSResponse:
    """One S3 request against the world: the HTTP response S3 would give."""
    from botocore.awsrequest import AWSResponse  # noqa: PLC0415 - botocore in the preview's provider path: the S3 wire loads with the first S3 request

    try:
        status, headers, body = _dispatch(world, region, request)
    except S3Error as error:
        status, headers = error.status, {"Content-Type": "application/xml"}
        body = b"" if request.method == "HEAD" else error_xml(error)
    headers = {"x-amz-request-id": _request_id(world), "Content-Length": str(len(body)), **headers}
    return AWSResponse(request.url, status, headers, RawBody(body))


def escape(text: str) -> str:
    """XML character data (xml.sax.saxutils', loaded with the first S3 answer that needs it)."""
    return xml_escape(text)


def _request_id(world: Any) -> str:
    return "".join(world.fault_rng.choice("0123456789ABCDEF") for _ in range(16))


def error_xml(error: S3Error) -> bytes:
    extra = "".join(f"<{k}>{escape(v)}</{k}>" for k, v in error.extra.items())
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{error.code}</Code><Message>{escape(error.message)}</Message>{extra}</Error>'
    ).encode()


def _locate(request: Any) -> tuple[str, str, dict[str, list[str]]]:
    """(bucket, key, query) from a virtual-hosted (bkt.s3.region.amazonaws.com/key) or path-style URL."""
    parts = urlsplit(request.url)
    host = parts.hostname or ""
    path = parts.path
    if host.startswith("s3.") or host.startswith("s3-") or ".s3." not in host:
        bucket, _, key = path.lstrip("/").partition("/")
    else:
        bucket, key = host.split(".s3.", 1)[0], path.lstrip("/")
    return unquote(bucket), unquote(key), parse_qs(parts.query, keep_blank_values=True)


def _dispatch(world: Any, region: str, request: Any) -> tuple[int, dict, bytes]:
    bucket, key, query = _locate(request)
    method = request.method
    if not bucket:
        raise S3Error(400, "NotImplemented", "The HyperPod simulator's S3 answers bucket and object requests only.")
    if not key:
        if method == "PUT" and not query:
            return create_bucket(world, region, bucket)
        if method == "HEAD":
            _bucket(world, bucket)
            return 200, {"x-amz-bucket-region": world.s3[bucket]["region"]}, b""
        if method == "GET" and query.get("list-type") == ["2"]:
            return list_objects_v2(world, bucket, query)
    elif not query or set(query) <= {"x-id"}:
        if method == "PUT":
            return put_object(world, bucket, key, request)
        if method in ("GET", "HEAD"):
            return get_object(world, bucket, key, head=method == "HEAD")
        if method == "DELETE":
            return delete_object(world, bucket, key)
    raise S3Error(
        501,
        "NotImplemented",
        f"{method} {request.url} is not simulated by the HyperPod simulator's S3 "
        "(CreateBucket, HeadBucket, PutObject, GetObject, HeadObject, DeleteObject, ListObjectsV2 are).",
    )


# ---- operations ----------------------------------------------------------------------------------


def _bucket(world: Any, name: str) -> dict:
    bucket = world.s3.get(name)
    if bucket is None:
        raise S3Error(404, "NoSuchBucket", "The specified bucket does not exist", BucketName=name)
    return bucket


def create_bucket(world: Any, region: str, name: str) -> tuple[int, dict, bytes]:
    if not _BUCKET_NAME.fullmatch(name) or ".." in name:
        raise S3Error(400, "InvalidBucketName", "The specified bucket is not valid.", BucketName=name)
    if name in world.s3:
        raise S3Error(
            409,
            "BucketAlreadyOwnedByYou",
            "Your previous request to create the named bucket succeeded and you already own it.",
            BucketName=name,
        )
    world.s3[name] = {"region": region, "created": world.now, "objects": {}}
    return 200, {"Location": f"/{name}"}, b""


def put_object(world: Any, bucket_name: str, key: str, request: Any) -> tuple[int, dict, bytes]:
    bucket = _bucket(world, bucket_name)
    if len(key.encode()) > 1024:
        raise S3Error(400, "KeyTooLongError", "Your key is too long")
    body, checksum = _request_body(request)
    _check_room(world, bucket_name, key, len(body))
    crc = _crc32(body)
    if checksum is not None and checksum != crc:
        raise S3Error(400, "BadDigest", "The CRC32 you specified did not match the calculated checksum.")
    etag = f'"{hashlib.md5(body).hexdigest()}"'
    content_type = _header(request, "Content-Type") or "binary/octet-stream"
    world.s3_bodies.put(bucket_name, key, body)
    bucket["objects"][key] = {
        "size": len(body),
        "etag": etag,
        "crc32": crc,
        "last_modified": world.now,
        "content_type": content_type,
    }
    return 200, {"ETag": etag, "x-amz-checksum-crc32": crc}, b""


def _check_room(world: Any, bucket_name: str, key: str, size: int) -> None:
    """EntityTooLarge when an object of `size` bytes at bucket/key would pass a bound."""
    if size > MAX_OBJECT_BYTES:
        raise S3Error(
            400,
            "EntityTooLarge",
            f"Your proposed upload exceeds the maximum allowed size: the HyperPod simulator's S3 keeps objects of at most {MAX_OBJECT_BYTES} bytes.",
            ProposedSize=str(size),
            MaxSizeAllowed=str(MAX_OBJECT_BYTES),
        )
    held = sum(
        _size(stored)
        for name, bucket in world.s3.items()
        for object_key, stored in bucket["objects"].items()
        if (name, object_key) != (bucket_name, key)  # the object this one replaces
    )
    if held + size > MAX_TOTAL_BYTES:
        raise S3Error(
            400,
            "EntityTooLarge",
            f"Your proposed upload exceeds the room left: the HyperPod simulator's S3 holds at most {MAX_TOTAL_BYTES} bytes in all "
            f"and holds {held}; delete objects (or `hyperpod fake reset`) first.",
            ProposedSize=str(size),
            MaxSizeAllowed=str(max(MAX_TOTAL_BYTES - held, 0)),
        )


def _size(stored: dict) -> int:
    return stored["size"] if "size" in stored else len(base64.b64decode(stored["body"]))


def _body(world: Any, bucket_name: str, key: str, stored: dict) -> bytes:
    """An object's bytes: beside the world, or (a world stored before they were) in its metadata."""
    if "body" in stored:
        return base64.b64decode(stored["body"])
    return world.s3_bodies.get(bucket_name, key) or b""


def delete_object(world: Any, bucket_name: str, key: str) -> tuple[int, dict, bytes]:
    _bucket(world, bucket_name)["objects"].pop(key, None)
    world.s3_bodies.delete(bucket_name, key)
    return 204, {}, b""


def get_object(world: Any, bucket_name: str, key: str, head: bool = False) -> tuple[int, dict, bytes]:
    stored = _bucket(world, bucket_name)["objects"].get(key)
    if stored is None:
        raise S3Error(404, "NoSuchKey", "The specified key does not exist.", Key=key)
    headers = {
        "ETag": stored["etag"],
        "Content-Type": stored["content_type"],
        "Last-Modified": _http_date(stored["last_modified"]),
        "x-amz-checksum-crc32": stored["crc32"],
        "Accept-Ranges": "bytes",
    }
    if head:
        return 200, {**headers, "Content-Length": str(_size(stored))}, b""
    return 200, headers, _body(world, bucket_name, key, stored)


def list_objects_v2(world: Any, bucket_name: str, query: dict[str, list[str]]) -> tuple[int, dict, bytes]:
    bucket = _bucket(world, bucket_name)
    prefix = (query.get("prefix") or [""])[0]
    start_after = (query.get("start-after") or [""])[0]
    token = (query.get("continuation-token") or [""])[0]
    max_keys = _max_keys(query)
    keys = sorted(k for k in bucket["objects"] if k.startswith(prefix) and k > start_after)
    if token:
        after = _decode_token(token)
        keys = [k for k in keys if k > after]
    page, rest = keys[:max_keys], keys[max_keys:]
    url_encoded = query.get("encoding-type") == ["url"]
    contents = "".join(_content_xml(k, bucket["objects"][k], url_encoded) for k in page)
    parts = [
        f'<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="{_NS}"><Name>{escape(bucket_name)}</Name>',
        f"<Prefix>{escape(_encode_key(prefix, url_encoded))}</Prefix><KeyCount>{len(page)}</KeyCount>",
        f"<MaxKeys>{max_keys}</MaxKeys><IsTruncated>{'true' if rest else 'false'}</IsTruncated>",
    ]
    if url_encoded:
        parts.append("<EncodingType>url</EncodingType>")
    if token:
        parts.append(f"<ContinuationToken>{escape(token)}</ContinuationToken>")
    if rest:
        parts.append(f"<NextContinuationToken>{_encode_token(page[-1])}</NextContinuationToken>")
    parts.append(contents + "</ListBucketResult>")
    return 200, {"Content-Type": "application/xml"}, "".join(parts).encode()


def _max_keys(query: dict[str, list[str]]) -> int:
    value = (query.get("max-keys") or [str(_MAX_KEYS)])[0]
    if not value.isdigit():
        raise S3Error(400, "InvalidArgument", "Provided max-keys not an integer or within integer range")
    return min(int(value), _MAX_KEYS)


def _content_xml(key: str, stored: dict, url_encoded: bool) -> str:
    size = _size(stored)
    return (
        f"<Contents><Key>{escape(_encode_key(key, url_encoded))}</Key><LastModified>{_iso(stored['last_modified'])}"
        f"</LastModified><ETag>{escape(stored['etag'])}</ETag><ChecksumAlgorithm>CRC32</ChecksumAlgorithm>"
        f"<Size>{size}</Size><StorageClass>STANDARD</StorageClass></Contents>"
    )


def _encode_key(key: str, url_encoded: bool) -> str:
    return quote(key, safe="/~") if url_encoded else key


def _encode_token(key: str) -> str:
    return base64.urlsafe_b64encode(key.encode()).decode()


def _decode_token(token: str) -> str:
    try:
        return base64.urlsafe_b64decode(token.encode()).decode()
    except (binascii.Error, UnicodeDecodeError):
        raise S3Error(400, "InvalidArgument", "The continuation token provided is incorrect") from None


# ---- bodies and checksums ------------------------------------------------------------------------


def _header(request: Any, name: str) -> str | None:
    for key, value in request.headers.items():
        if key.lower() == name.lower():
            return value.decode() if isinstance(value, bytes) else str(value)
    return None


def _request_body(request: Any) -> tuple[bytes, str | None]:
    """The object's bytes and the CRC32 the client sent (header or aws-chunked trailer), if any."""
    body = request.body
    if hasattr(body, "read"):
        body = body.read()
    if isinstance(body, str):
        body = body.encode()
    body = body or b""
    checksum = _header(request, "x-amz-checksum-crc32")
    if "aws-chunked" in (_header(request, "Content-Encoding") or ""):
        body, trailer = _decode_chunked(body)
        checksum = trailer.get("x-amz-checksum-crc32", checksum)
    return body, checksum


def _decode_chunked(raw: bytes) -> tuple[bytes, dict[str, str]]:
    """aws-chunked: `<hex size>[;ext]\\r\\n<data>\\r\\n` … `0\\r\\n` then `name:value\\r\\n` trailers."""
    data, position = bytearray(), 0
    while True:
        end = raw.find(b"\r\n", position)
        if end < 0:
            raise S3Error(400, "IncompleteBody", "The request body terminated unexpectedly")
        size_text = raw[position:end].split(b";")[0].strip()
        if not _CHUNK_SIZE.fullmatch(size_text):
            raise S3Error(400, "InvalidArgument", "A chunk size of the aws-chunked body is not a hexadecimal number.")
        size = int(size_text, 16)
        position = end + 2
        if size == 0:
            break
        data += raw[position : position + size]
        position += size + 2
    trailers = {}
    for line in raw[position:].split(b"\r\n"):
        name, sep, value = line.partition(b":")
        if sep:
            trailers[name.decode().strip().lower()] = value.decode().strip()
    return bytes(data), trailers


def _crc32(body: bytes) -> str:
    return base64.b64encode(binascii.crc32(body).to_bytes(4, "big")).decode()


def _http_date(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%a, %d %b %Y %H:%M:%S GMT")


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.000Z")


# ---- what the simulator reads --------------------------------------------------------------------


def bundle_file(world: Any, uri: str | None, name: str) -> bytes | None:
    """The file `name` of the lifecycle bundle at `uri` (s3://bucket/prefix/), or None."""
    if not uri or not uri.startswith("s3://"):
        return None
    bucket_name, _, prefix = uri[5:].partition("/")
    bucket = (getattr(world, "s3", None) or {}).get(bucket_name)
    if bucket is None:
        return None
    key = f"{prefix.rstrip('/')}/{name}" if prefix.strip("/") else name
    stored = bucket["objects"].get(key)
    return _body(world, bucket_name, key, stored) if stored is not None else None
