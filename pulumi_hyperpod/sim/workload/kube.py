"""A simulator of the Kubernetes API subset the EKS workload uses, answering at the `kubernetes`
client's transport (its urllib3 pool manager), as the GCP simulator answers at `requests`'.

The subset: list/get/patch nodes (cordon is `spec.unschedulable`), list pods (field selectors
`spec.nodeName=`, `status.phase!=`), list PodDisruptionBudgets (policy/v1), and the pod `eviction`
subresource. Kept to Kubernetes' documented semantics
(kubernetes.io/docs/concepts/scheduling-eviction/api-eviction/ and
/docs/tasks/run-application/configure-pdb/):

- An eviction is allowed when every PodDisruptionBudget selecting the pod has disruptionsAllowed > 0;
  otherwise 429 TooManyRequests ("Cannot evict pod as it would violate the pod's disruption budget."),
  and the client is to retry later. A pod with more than one budget: 500. A missing pod: 404.
- An evicted pod is deleted gracefully: it shows a deletionTimestamp and goes after its
  terminationGracePeriodSeconds (30 by default) on the clock. Its controller (ReplicaSet,
  StatefulSet) makes a replacement on a schedulable node (not cordoned), Ready 10 s later.
- disruptionsAllowed = currentHealthy − desiredHealthy (never below 0): desiredHealthy is
  minAvailable (an integer or a percentage of the expected pods, rounded up) or expected −
  maxUnavailable; healthy pods are Running, Ready and not being deleted.
- Pods of a Job with activeDeadlineSeconds end (Failed, DeadlineExceeded) at start + deadline;
  pods given an `end` end Succeeded then. DaemonSet pods run on every node (HyperPod's
  health-monitoring-agent); they are listed like any pod.

State is a plain JSON-ready dict (the HyperPod simulator persists it with its world); times are
epoch seconds on the caller's clock.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
from typing import Any
from collections.abc import Callable, Mapping
from urllib.parse import parse_qs, unquote, urlsplit

from pulumi_hyperpod.core.extras import needed

GRACE_SECONDS = 30
READY_AFTER = 10.0
DAEMONSET = ("aws-hyperpod", "health-monitoring-agent")


def _iso(seconds: float) -> str:
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _status(code: int, reason: str, message: str, causes: list | None = None) -> tuple[int, dict]:
    body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message, "reason": reason, "code": code}
    if causes:
        body["details"] = {"causes": causes}
    return code, body


class KubeState:
    """The cluster's Kubernetes objects over `data` (mutated in place), at time `now`, with `nodes`
    (name → labels) the nodes that exist (HyperPod's instances registered as `hyperpod-i-…`)."""

    def __init__(self, data: dict, now: float, nodes: Mapping[str, Mapping[str, str]]) -> None:
        self.data, self.now, self.nodes = data, now, dict(nodes)
        data.setdefault("pods", [])
        data.setdefault("pdbs", [])
        data.setdefault("node_meta", {})
        data.setdefault("next_pod", 1)
        self._settle()

    # ---- the world moving ----------------------------------------------------------------------
    def _settle(self) -> None:
        kept = []
        for pod in self.data["pods"]:
            if pod.get("deleting_at") is not None and pod["deleting_at"] <= self.now:
                continue  # graceful deletion finished
            if pod.get("node") and pod["node"] not in self.nodes:
                continue  # its node is gone (deleted by HyperPod): the pod went with it
            if pod.get("phase") == "Running" and pod.get("end") is not None and pod["end"] <= self.now:
                pod["phase"] = "Succeeded" if not pod.get("deadline_exceeded") else "Failed"
            if pod.get("phase") == "Pending":
                self._schedule(pod)
            kept.append(pod)
        self.data["pods"] = kept

    def _schedulable(self, exclude: str = "") -> list[str]:
        meta = self.data["node_meta"]
        return sorted(name for name in self.nodes if name != exclude and not meta.get(name, {}).get("unschedulable"))

    def _schedule(self, pod: dict) -> None:
        counts = {name: 0 for name in self._schedulable(pod.get("evicted_from", ""))}
        if not counts:
            return
        for other in self.data["pods"]:
            if other.get("node") in counts:
                counts[other["node"]] += 1
        pod["node"] = min(counts, key=lambda name: (counts[name], name))
        pod["phase"], pod["start"], pod["ready_at"] = "Running", self.now, self.now + READY_AFTER

    # ---- changes a test or the demo makes --------------------------------------------------------
    def add_pod(
        self,
        node: str,
        namespace: str,
        owner_kind: str = "",
        owner_name: str = "",
        *,
        labels: Mapping[str, str] | None = None,
        end: float | None = None,
        deadline_seconds: float | None = None,
        name: str = "",
    ) -> dict:
        number = self.data["next_pod"]
        self.data["next_pod"] = number + 1
        pod = {
            "namespace": namespace,
            "name": name or f"{owner_name or 'pod'}-{number:05d}",
            "node": node,
            "labels": dict(labels or ({"app": owner_name} if owner_name else {})),
            "owner_kind": owner_kind,
            "owner_name": owner_name,
            "phase": "Running",
            "start": self.now,
            "ready_at": self.now,
            "end": end if end is not None else (self.now + deadline_seconds if deadline_seconds else None),
            "deadline_seconds": deadline_seconds,
            "deadline_exceeded": bool(deadline_seconds and end is None),
            "deleting_at": None,
        }
        self.data["pods"].append(pod)
        return pod

    def add_pdb(
        self,
        namespace: str,
        name: str,
        match_labels: Mapping[str, str],
        *,
        min_available: int | str | None = None,
        max_unavailable: int | str | None = None,
    ) -> None:
        if (min_available is None) == (max_unavailable is None):
            raise ValueError("a PodDisruptionBudget sets one of minAvailable and maxUnavailable")
        self.data["pdbs"].append(
            {
                "namespace": namespace,
                "name": name,
                "match_labels": dict(match_labels),
                "min_available": min_available,
                "max_unavailable": max_unavailable,
            }
        )

    # ---- objects as the API shows them ---------------------------------------------------------------
    def node_object(self, name: str) -> dict:
        meta = self.data["node_meta"].get(name, {})
        labels = dict(self.nodes[name])
        return {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": labels, "annotations": dict(meta.get("annotations") or {})},
            "spec": {"unschedulable": True} if meta.get("unschedulable") else {},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]},
        }

    def _daemon_pods(self) -> list[dict]:
        namespace, owner = DAEMONSET
        return [
            {
                "namespace": namespace,
                "name": f"{owner}-{name[-5:]}",
                "node": name,
                "labels": {"app": owner},
                "owner_kind": "DaemonSet",
                "owner_name": owner,
                "phase": "Running",
                "start": self.now,
                "ready_at": self.now,
                "end": None,
                "deadline_seconds": None,
                "deleting_at": None,
            }
            for name in sorted(self.nodes)
        ]

    def pod_object(self, pod: dict) -> dict:
        owner = []
        if pod.get("owner_kind"):
            kind, name = pod["owner_kind"], pod["owner_name"]
            if kind == "Deployment":  # a Deployment's pods belong to its ReplicaSet
                kind, name = "ReplicaSet", f"{name}-5d4f8b7c9"
            owner = [
                {
                    "apiVersion": "apps/v1" if kind != "Job" else "batch/v1",
                    "kind": kind,
                    "name": name,
                    "controller": True,
                    "uid": f"uid-{name}",
                }
            ]
        labels = dict(pod.get("labels") or {})
        if pod.get("owner_kind") == "Deployment":
            labels["pod-template-hash"] = "5d4f8b7c9"
        metadata: dict[str, Any] = {"name": pod["name"], "namespace": pod["namespace"], "labels": labels, "ownerReferences": owner}
        if pod.get("deleting_at") is not None:
            metadata["deletionTimestamp"] = _iso(pod["deleting_at"])
        spec: dict[str, Any] = {"nodeName": pod.get("node") or None, "terminationGracePeriodSeconds": GRACE_SECONDS}
        if pod.get("deadline_seconds"):
            spec["activeDeadlineSeconds"] = int(pod["deadline_seconds"])
        ready = pod.get("phase") == "Running" and (pod.get("ready_at") or 0) <= self.now
        status: dict[str, Any] = {
            "phase": pod.get("phase", "Running"),
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        }
        if pod.get("start") is not None:
            status["startTime"] = _iso(pod["start"])
        return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec, "status": status}

    def _matches(self, pdb: dict, pod: dict) -> bool:
        labels = pod.get("labels") or {}
        return pdb["namespace"] == pod["namespace"] and all(labels.get(k) == v for k, v in pdb["match_labels"].items())

    def _healthy(self, pod: dict) -> bool:
        return pod.get("phase") == "Running" and pod.get("deleting_at") is None and (pod.get("ready_at") or 0) <= self.now

    def budget_status(self, pdb: dict) -> dict:
        pods = [p for p in self.data["pods"] if self._matches(pdb, p) and p.get("phase") in ("Running", "Pending")]
        expected = sum(1 for p in pods if p.get("deleting_at") is None)
        healthy = sum(1 for p in pods if self._healthy(p))
        if pdb.get("min_available") is not None:
            desired = _amount(pdb["min_available"], expected)
        else:
            desired = max(expected - _amount(pdb["max_unavailable"], expected), 0)
        return {
            "currentHealthy": healthy,
            "desiredHealthy": desired,
            "expectedPods": expected,
            "disruptionsAllowed": max(healthy - desired, 0),
        }

    def pdb_object(self, pdb: dict) -> dict:
        spec: dict[str, Any] = {"selector": {"matchLabels": dict(pdb["match_labels"])}}
        if pdb.get("min_available") is not None:
            spec["minAvailable"] = pdb["min_available"]
        else:
            spec["maxUnavailable"] = pdb["max_unavailable"]
        return {
            "apiVersion": "policy/v1",
            "kind": "PodDisruptionBudget",
            "metadata": {"name": pdb["name"], "namespace": pdb["namespace"]},
            "spec": spec,
            "status": self.budget_status(pdb),
        }

    # ---- requests ------------------------------------------------------------------------------
    def handle(self, method: str, path: str, query: Mapping[str, list[str]], body: Any) -> tuple[int, dict]:
        parts = [unquote(p) for p in path.strip("/").split("/")]
        if parts[:2] == ["api", "v1"]:
            rest = parts[2:]
            if rest == ["nodes"] and method == "GET":
                return 200, self._list(
                    "NodeList", "v1", [self.node_object(n) for n in sorted(self.nodes) if _labels_match(self.nodes[n], query)]
                )
            if len(rest) == 2 and rest[0] == "nodes":
                return self._node(method, rest[1], body)
            if rest == ["pods"] and method == "GET":
                return self._pods(query)
            if len(rest) == 5 and rest[0] == "namespaces" and rest[2] == "pods" and rest[4] == "eviction" and method == "POST":
                return self.evict(rest[1], rest[3])
        if parts[:3] == ["apis", "policy", "v1"] and parts[3:] == ["poddisruptionbudgets"] and method == "GET":
            return 200, self._list("PodDisruptionBudgetList", "policy/v1", [self.pdb_object(p) for p in self.data["pdbs"]])
        return _status(404, "NotFound", f"the server could not find the requested resource ({method} {path})")

    @staticmethod
    def _list(kind: str, version: str, items: list) -> dict:
        return {"kind": kind, "apiVersion": version, "metadata": {"resourceVersion": "1"}, "items": items}

    def _node(self, method: str, name: str, body: Any) -> tuple[int, dict]:
        if name not in self.nodes:
            return _status(404, "NotFound", f'nodes "{name}" not found')
        if method == "GET":
            return 200, self.node_object(name)
        if method == "PATCH":
            if not isinstance(body, Mapping):
                return _status(415, "UnsupportedMediaType", "this simulator takes merge patches (a JSON object) on nodes")
            meta = self.data["node_meta"].setdefault(name, {})
            spec = body.get("spec") or {}
            if "unschedulable" in spec:
                meta["unschedulable"] = bool(spec["unschedulable"])
            annotations = (body.get("metadata") or {}).get("annotations") or {}
            current = meta.setdefault("annotations", {})
            for key, value in annotations.items():
                if value is None:
                    current.pop(key, None)
                else:
                    current[key] = str(value)
            return 200, self.node_object(name)
        return _status(405, "MethodNotAllowed", f"{method} is not allowed on nodes/{name}")

    def _pods(self, query: Mapping[str, list[str]]) -> tuple[int, dict]:
        selectors = []
        for text in query.get("fieldSelector", []):
            for term in filter(None, text.split(",")):
                match = re.fullmatch(r"(spec\.nodeName|status\.phase|metadata\.namespace)(!=|==|=)(.*)", term)
                if not match:
                    return _status(
                        400,
                        "BadRequest",
                        f'"{term}" is not a known field selector: only "spec.nodeName", "status.phase", "metadata.namespace" are supported',
                    )
                selectors.append(match.groups())
        pods = [self.pod_object(p) for p in self.data["pods"] + self._daemon_pods()]
        chosen = []
        for pod in pods:
            values = {
                "spec.nodeName": pod["spec"].get("nodeName") or "",
                "status.phase": pod["status"]["phase"],
                "metadata.namespace": pod["metadata"]["namespace"],
            }
            if all((values[field] != value) if op == "!=" else (values[field] == value) for field, op, value in selectors):
                chosen.append(pod)
        return 200, self._list("PodList", "v1", chosen)

    def evict(self, namespace: str, name: str) -> tuple[int, dict]:
        pod = next((p for p in self.data["pods"] if p["namespace"] == namespace and p["name"] == name), None)
        if pod is None:
            return _status(404, "NotFound", f'pods "{name}" not found')
        if pod.get("deleting_at") is not None:
            return 201, {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201}
        budgets = [b for b in self.data["pdbs"] if self._matches(b, pod)]
        if len(budgets) > 1:
            return _status(
                500, "InternalError", "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support."
            )
        if budgets and pod.get("phase") == "Running":
            status = self.budget_status(budgets[0])
            if status["disruptionsAllowed"] <= 0:
                return _status(
                    429,
                    "TooManyRequests",
                    "Cannot evict pod as it would violate the pod's disruption budget.",
                    [
                        {
                            "reason": "DisruptionBudget",
                            "message": f"The disruption budget {budgets[0]['name']} needs "
                            f"{status['desiredHealthy']} healthy pods and has {status['currentHealthy']} currently",
                        }
                    ],
                )
        pod["deleting_at"] = self.now + GRACE_SECONDS
        if pod.get("owner_kind") in ("Deployment", "ReplicaSet", "StatefulSet"):
            replacement = {
                **pod,
                "name": f"{pod['owner_name']}-{self.data['next_pod']:05d}",
                "node": "",
                "phase": "Pending",
                "deleting_at": None,
                "evicted_from": pod.get("node", ""),
                "start": None,
                "ready_at": None,
            }
            self.data["next_pod"] += 1
            self.data["pods"].append(replacement)
            self._schedule(replacement)
        return 201, {"kind": "Status", "apiVersion": "v1", "status": "Success", "code": 201}


def _amount(value: int | str, expected: int) -> int:
    if isinstance(value, str) and value.endswith("%"):
        return math.ceil(expected * int(value[:-1]) / 100)
    return int(value)


def _labels_match(labels: Mapping[str, str], query: Mapping[str, list[str]]) -> bool:
    for text in query.get("labelSelector", []):
        for term in filter(None, text.split(",")):
            key, _, value = term.partition("=")
            if labels.get(key) != value.lstrip("="):
                return False
    return True


class _Response:
    """What the kubernetes client reads of a urllib3 response."""

    def __init__(self, status: int, payload: dict) -> None:
        self.status = status
        self.reason = {200: "OK", 201: "Created", 404: "Not Found", 429: "Too Many Requests"}.get(status, "Error")
        self.data = json.dumps(payload).encode()
        self.headers = {"Content-Type": "application/json"}

    def getheaders(self):
        return self.headers

    def getheader(self, name, default=None):
        return self.headers.get(name, default)


class KubeTransport:
    """Stands in for the client's urllib3 PoolManager: `request(method, url, …)` → a response.
    `answer(method, path, query, body)` → (status, JSON body) is the API server."""

    def __init__(self, answer: Callable[[str, str, Mapping[str, list[str]], Any], tuple[int, dict]]) -> None:
        self.answer = answer
        self.requests: list[tuple[str, str]] = []

    def request(self, method: str, url: str, fields: Any = None, body: Any = None, headers: Any = None, **_: Any) -> _Response:
        parts = urlsplit(url)
        query = parse_qs(parts.query)
        for key, value in fields or ():
            query.setdefault(key, []).append(str(value))
        payload = json.loads(body) if isinstance(body, (str, bytes)) and body else body
        self.requests.append((method, parts.path))
        status, answer = self.answer(method, parts.path, query, payload)
        return _Response(status, answer)

    def clear(self) -> None:  # urllib3's PoolManager API, called when a client closes
        pass


class KubeWorld:
    """A standalone Kubernetes API (tests): its own state, nodes and clock."""

    def __init__(self, nodes: Mapping[str, Mapping[str, str]], clock: Callable[[], float]) -> None:
        self.data: dict = {}
        self.nodes = dict(nodes)
        self.clock = clock

    def state(self) -> KubeState:
        return KubeState(self.data, self.clock(), self.nodes)

    def answer(self, method: str, path: str, query: Mapping[str, list[str]], body: Any) -> tuple[int, dict]:
        return self.state().handle(method, path, query, body)

    def api_client(self) -> Any:
        return api_client(KubeTransport(self.answer))


def api_client(transport: KubeTransport, host: str = "https://kubernetes.simulator.invalid") -> Any:
    """A real kubernetes ApiClient whose requests `transport` answers."""
    with needed("eks"):
        from kubernetes import client  # noqa: PLC0415 - kubernetes (the eks extra): loaded by an EKS workload read only

    configuration = client.Configuration()
    configuration.host = host
    configuration.api_key = {"authorization": "simulator"}
    configuration.api_key_prefix = {"authorization": "Bearer"}
    api = client.ApiClient(configuration)
    api.rest_client.pool_manager = transport
    return api
