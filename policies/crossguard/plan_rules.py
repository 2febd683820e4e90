"""The pack's bridge to the Rego rules: the plan a cluster's preview returned, evaluated by the real
`opa` against policies/rego with the parameters given — the rules have one home, the Rego files,
and `hyperpod plan --json | opa eval …` in CI and this pack under `pulumi preview` answer alike.

No Pulumi import here, so the bridge can be tested on its own (tests/policies/).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REGO_DIR = HERE.parent / "rego"
PARAMS_FILE = HERE.parent / "params.json"
OPA_VERSION = "1.22.3"  # what scripts/install-opa builds by default
QUERY = "data.hyperpod.plan.deny"


class OpaError(RuntimeError):
    """opa is missing or failed: the plan was not checked, which is never reported as compliant."""


def find_opa() -> str:
    """$HYPERPOD_OPA, else `opa` on PATH, else the binary scripts/install-opa caches."""
    given = os.environ.get("HYPERPOD_OPA")
    if given:
        return given
    on_path = shutil.which("opa")
    if on_path:
        return on_path
    cache = Path(os.environ.get("PULUMI_HYPERPOD_CACHE") or Path.home() / ".cache" / "pulumi-hyperpod")
    cached = cache / f"opa-v{OPA_VERSION}" / "bin" / "opa"
    if cached.is_file():
        return str(cached)
    raise OpaError(f"no opa found (set HYPERPOD_OPA, put opa on PATH, or run scripts/install-opa, which builds {cached})")


def default_params() -> dict[str, Any]:
    """The parameters policies/params.json gives (the same file `opa eval -d` reads in CI)."""
    return dict(json.loads(PARAMS_FILE.read_text(encoding="utf-8"))["hyperpod"]["params"])


def violations(plan_text: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The Rego rules' violations ({code, group, message, nodes}) for one plan document."""
    return list(_evaluate(plan_text, json.dumps(params, sort_keys=True)))


@functools.lru_cache(maxsize=64)  # every policy of the pack asks about the same plans
def _evaluate(plan_text: str, params_json: str) -> tuple[dict[str, Any], ...]:
    with tempfile.TemporaryDirectory(prefix="hyperpod-policy-") as tmp:
        data = Path(tmp) / "params.json"
        data.write_text(json.dumps({"hyperpod": {"params": json.loads(params_json)}}), encoding="utf-8")
        command = [find_opa(), "eval", "--format", "raw", "--stdin-input", "-d", str(REGO_DIR), "-d", str(data), QUERY]
        try:
            done = subprocess.run(command, input=plan_text, capture_output=True, text=True, timeout=60, check=False)
        except OSError as error:
            raise OpaError(f"could not run {command[0]}: {error}") from None
    if done.returncode != 0:
        raise OpaError(f"opa eval failed (exit {done.returncode}): {done.stderr.strip() or done.stdout.strip()}")
    found = json.loads(done.stdout)
    return tuple(sorted(found, key=lambda v: (v["code"], v.get("group") or "", v["message"])))
