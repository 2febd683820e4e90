"""Generates the TypeScript and Go SDKs of the native provider (`sdk/nodejs`, `sdk/go`) from
schema.json, the way a provider repository does: `pulumi package gen-sdk` (the engine's own
generators, through scripts/install-pulumi's language hosts), then `tsc` builds the Node.js
package into `sdk/nodejs/bin` (JavaScript and typings, with its package.json: the directory a
program installs). tests/engine/test_sdks.py regenerates both and fails on any difference.

    python -m pulumi_hyperpod.native.sdkgen            # rewrite sdk/ in this repository
    python -m pulumi_hyperpod.native.sdkgen --out DIR  # write DIR/nodejs and DIR/go instead

The TypeScript compiler and the typings it builds against are installed once with npm into a
directory outside the repository ($PULUMI_HYPERPOD_CACHE, default ~/.cache/pulumi-hyperpod),
keyed by the exact versions below: the built JavaScript changes only when they do.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from pulumi_hyperpod.native import provider

REPO = Path(__file__).resolve().parents[2]
SCHEMA = provider.SCHEMA_PATH
# Exact versions: the build's output depends on them (a range would let it drift).
BUILD_TOOLS = {"typescript": "5.9.3", "@pulumi/pulumi": "3.276.0", "@types/node": "20.19.43"}


class SdkGenError(RuntimeError):
    """A step failed; the message names the command and its output."""


def _run(argv: list[str], cwd: Path | None = None) -> None:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True)
    if proc.returncode != 0:
        raise SdkGenError(f"`{' '.join(argv)}` failed (exit {proc.returncode}):\n{proc.stdout}{proc.stderr}")


def cache_root() -> Path:
    return Path(os.environ.get("PULUMI_HYPERPOD_CACHE") or Path.home() / ".cache" / "pulumi-hyperpod")


def build_tools() -> Path:
    """node_modules holding BUILD_TOOLS, installed once (npm, from the registry npm is set up for)
    into a temporary directory renamed into place whole."""
    key = hashlib.sha256(json.dumps(BUILD_TOOLS, sort_keys=True).encode()).hexdigest()[:16]
    home = cache_root() / f"sdk-build-tools-{key}"
    if (home / "node_modules" / ".bin" / "tsc").exists():
        return home / "node_modules"
    home.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=".sdk-build-tools-", dir=home.parent))
    try:
        (work / "package.json").write_text(json.dumps({"name": "sdk-build-tools", "private": True, "dependencies": BUILD_TOOLS}))
        _run(["npm", "install", "--no-audit", "--no-fund", "--prefer-offline", "--no-package-lock"], cwd=work)
        try:
            work.rename(home)
        except OSError:  # another run finished first: use its copy
            if not (home / "node_modules" / ".bin" / "tsc").exists():
                raise
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return home / "node_modules"


def gen_sdk(language: str, out: Path) -> None:
    _run(["pulumi", "package", "gen-sdk", str(SCHEMA), "--language", language, "--out", str(out)])


def build_nodejs(sdk: Path) -> None:
    """`tsc` over the generated sources into sdk/bin, then package.json (and the README) beside
    the output, as provider repositories publish it."""
    tools = build_tools()
    link = sdk / "node_modules"
    link.symlink_to(tools, target_is_directory=True)
    try:
        _run([str(tools / ".bin" / "tsc"), "-p", str(sdk)], cwd=sdk)
    finally:
        link.unlink()
    for name in ("package.json", "README.md"):
        if (sdk / name).exists():
            shutil.copy(sdk / name, sdk / "bin" / name)
    # The generator's .gitignore leaves bin/ out (a provider repository publishes it to a
    # registry); here bin/ is the package programs install, so it is committed.
    (sdk / ".gitignore").write_text("node_modules/\n")


def generate(out: Path) -> None:
    """Writes out/nodejs (sources and bin/) and out/go, replacing what was there."""
    with tempfile.TemporaryDirectory(prefix="hyperpod-sdkgen-") as tmp:
        staging = Path(tmp)
        gen_sdk("nodejs", staging)
        gen_sdk("go", staging)
        build_nodejs(staging / "nodejs")
        out.mkdir(parents=True, exist_ok=True)
        for language in ("nodejs", "go"):
            shutil.rmtree(out / language, ignore_errors=True)
            shutil.copytree(staging / language, out / language)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pulumi_hyperpod.native.sdkgen", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=REPO / "sdk", help="where nodejs/ and go/ go (default: the repository's sdk/)")
    args = parser.parse_args(argv)
    try:
        generate(args.out)
    except SdkGenError as error:
        print(f"sdkgen: {error}", file=sys.stderr)
        return 1
    print(f"sdkgen: wrote {args.out / 'nodejs'} and {args.out / 'go'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
