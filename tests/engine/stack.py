"""Helpers of the engine tests (tests/engine): the demo stack's simulated world, the rows of a preview's
provider output, and the language hosts the native SDK tests need."""

from __future__ import annotations

import re
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from pulumi_hyperpod import connect
from pulumi_hyperpod.sim.aws import Simulator

from .conftest import FAKE_CREDENTIALS, EngineProject


NODE_ID = re.compile(r"\bi-[0-9a-f]{8,17}\b")


# ---- looking at the simulator's world (the one the provider process uses) ----------------------
class World:
    def __init__(self, project: EngineProject) -> None:
        self.sim = Simulator(path=project.world_path)
        self.client = connect(backend="fake", simulator=self.sim)

    def clusters(self) -> list[dict[str, Any]]:
        return self.client.list_clusters()["ClusterSummaries"]

    def describe(self, name: str) -> dict[str, Any]:
        return self.client.describe_cluster(ClusterName=name)

    def targets(self, name: str) -> dict[str, int]:
        return {g["InstanceGroupName"]: g["TargetCount"] for g in self.describe(name)["InstanceGroups"]}

    def nodes(self, name: str) -> list[dict[str, Any]]:
        pages = self.client.get_paginator("list_cluster_nodes").paginate(ClusterName=name)
        return [node for page in pages for node in page["ClusterNodeSummaries"]]

    def node_ids(self, name: str, group: str) -> set[str]:
        """Nodes in the group; ShuttingDown ones are leaving it (the world follows the wall clock, so a
        removed node stays listed as ShuttingDown for the termination time)."""
        return {
            n["InstanceId"]
            for n in self.nodes(name)
            if n["InstanceGroupName"] == group and n.get("InstanceId") and n["InstanceStatus"]["Status"] != "ShuttingDown"
        }

    def wait_running(self, name: str, group: str, count: int, timeout: float = 90) -> set[str]:
        """Until `count` nodes of the group run (virtual time follows the wall clock)."""
        deadline = time.monotonic() + timeout
        while True:
            running = {
                n["InstanceId"] for n in self.nodes(name) if n["InstanceGroupName"] == group and n["InstanceStatus"]["Status"] == "Running"
            }
            if len(running) >= count or time.monotonic() > deadline:
                return running
            time.sleep(0.5)


def provider_lines(output: str) -> list[str]:
    """The provider's lines ("[hyperpod <cluster>] …"), without the engine's row prefixes; the
    Diagnostics section repeats them, so they are de-duplicated in order."""
    seen: dict[str, None] = {}
    for line in output.splitlines():
        at = line.find("[hyperpod ")
        if at >= 0:
            seen.setdefault(line[at:].rstrip(), None)
    return list(seen)


def diagnostics(output: str) -> list[tuple[str, list[str]]]:
    """The Diagnostics sections of a command's output (one per operation: a preview's, an update's),
    as (resource header, its lines) in order, e.g. ("pulumi-python:dynamic/hyperpod:Cluster (demo)", [...])."""
    found: list[tuple[str, list[str]]] = []
    inside = False
    for line in output.splitlines():
        if line == "Diagnostics:":
            inside = True
        elif inside and line.startswith("    "):
            found[-1][1].append(line[4:])
        elif inside and line.startswith("  ") and line.endswith(":"):
            found.append((line.strip()[:-1], []))
        elif inside and line.strip():
            inside = False
    return found


PLAN_TABLE = re.compile(r"┃ group\s+┃ type\s+┃ action")  # the plan's groups table, once per plan printed


def group_row(lines: list[str], group: str) -> str:
    rows = [line for line in lines if re.search(rf"│\s*{re.escape(group)}\s*│", line)]
    assert rows, f"no plan row for group {group!r} in:\n" + "\n".join(lines)
    return rows[0]


def victims_in(lines: list[str]) -> dict[str, str]:
    """Node id → why, from the 'Nodes that would be removed' table of the first plan printed."""
    try:
        start = next(i for i, line in enumerate(lines) if "Nodes that would be removed" in line)
    except StopIteration:
        raise AssertionError("no 'Nodes that would be removed' section in:\n" + "\n".join(lines)) from None
    found: dict[str, str] = {}
    current = None
    for line in lines[start + 1 :]:
        if "Plan for cluster" in line or "API calls" in line:
            break
        cells = [c.strip() for c in line.split("│")[1:-1]]
        if not cells:
            continue
        match = NODE_ID.fullmatch(cells[0]) if cells[0] else None
        if match:
            current = match.group(0)
            found[current] = cells[-1]
        elif current and not cells[0]:  # the why column wrapped onto the next row
            found[current] = (found[current] + " " + cells[-1]).strip()
    return found


# ---- 7. no credentials -----------------------------------------------------------------------
CREDENTIAL_PATTERNS = [re.escape(v) for v in FAKE_CREDENTIALS.values()] + [
    r"(?:AKIA|ASIA)[0-9A-Z]{16}",
    r"(?i)aws_secret_access_key",
    r"(?i)aws_session_token",
]


def _hits(text: str) -> list[str]:
    found = []
    for pattern in CREDENTIAL_PATTERNS:
        for match in re.finditer(pattern, text):
            found.append(f"{pattern!r}: …{text[max(0, match.start() - 60) : match.end() + 20]!r}…")
    return found


def require_host(pulumi: str, name: str) -> None:
    """The language host scripts/install-pulumi builds beside `pulumi`: missing means the
    install is incomplete, which is a failure, not a reason to skip."""
    if not (Path(pulumi).resolve().parent / name).exists() and shutil.which(name) is None:
        pytest.fail(f"no {name} beside {pulumi}: run scripts/install (scripts/install-pulumi builds it)")
