"""The EKS workload: nodes, pods and PodDisruptionBudgets read through the `kubernetes` client, and
the cordon and evictions apply needs (the Eviction API, as `kubectl drain` uses it).

For each HyperPod node (Kubernetes node `hyperpod-<instance id>`, aws/workload/match.py): its pods that
are not DaemonSet or mirror pods (those go with the node, as `kubectl drain --ignore-daemonsets`
treats them), each pod's owner (a ReplicaSet's Deployment, a StatefulSet, a Job), the budgets that
select it and whether they allow a disruption now, HyperPod's health label, and whether the node is
cordoned (with this tool's mark). Responses are read as JSON (`_preload_content=False`): the client's
model classes are not needed to read a few fields.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Callable, Mapping, Sequence

from pulumi_hyperpod.aws.observe import ClusterState
from pulumi_hyperpod.aws.workload.match import HEALTH_LABEL, eks_instance_id
from pulumi_hyperpod.aws.workload.model import NodeWorkload, Pod, WorkloadView
from pulumi_hyperpod.aws.workload.slurm import drain_started
from pulumi_hyperpod.aws.workload.source import WorkloadError
from pulumi_hyperpod.core.timestamps import TimestampError, from_epoch, read_time
from pulumi_hyperpod.core.extras import needed

DRAIN_ANNOTATION = "hyperpod.pulumi.io/scale-in-drain"  # the mark apply writes on a node it cordons
MIRROR_ANNOTATION = "kubernetes.io/config.mirror"
TERMINAL_PHASES = ("Succeeded", "Failed")
# the API server's answer (500) to the eviction of a pod more than one PodDisruptionBudget selects
MORE_THAN_ONE_BUDGET = "This pod has more than one PodDisruptionBudget"


def _utcnow() -> dt.datetime:
    return dt.datetime.now(dt.timezone.utc)


def _time(value: Any, where: str) -> dt.datetime | None:
    """A time of the API's answer, range-checked by the one reader (core/timestamps.py)."""
    if not isinstance(value, str) or not value:
        return None
    try:
        return read_time(value)
    except TimestampError as error:
        raise WorkloadError(f"{where}: {error}") from None


def _selects(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A LabelSelector (matchLabels and matchExpressions) against a pod's labels; an empty one selects all."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expression in selector.get("matchExpressions") or ():
        key, operator, values = expression.get("key"), expression.get("operator"), expression.get("values") or []
        present = key in labels
        if operator == "In" and (not present or labels[key] not in values):
            return False
        if operator == "NotIn" and present and labels[key] in values:
            return False
        if operator == "Exists" and not present:
            return False
        if operator == "DoesNotExist" and present:
            return False
    return True


def _owner(pod: Mapping[str, Any]) -> tuple[str, str]:
    refs = pod["metadata"].get("ownerReferences") or []
    ref = next((r for r in refs if r.get("controller")), refs[0] if refs else None)
    if ref is None:
        return "", ""
    kind, name = ref.get("kind", ""), ref.get("name", "")
    template_hash = (pod["metadata"].get("labels") or {}).get("pod-template-hash")
    if kind == "ReplicaSet" and template_hash and name.endswith("-" + template_hash):
        return "Deployment", name[: -len(template_hash) - 1]  # a Deployment names its ReplicaSets <name>-<hash>
    return kind, name


def _skipped(pod: Mapping[str, Any]) -> bool:
    """DaemonSet and mirror pods stay with the node; finished pods hold nothing."""
    if (pod["metadata"].get("annotations") or {}).get(MIRROR_ANNOTATION):
        return True
    if any(r.get("kind") == "DaemonSet" for r in pod["metadata"].get("ownerReferences") or ()):
        return True
    return (pod.get("status") or {}).get("phase") in TERMINAL_PHASES


def _end(pod: Mapping[str, Any]) -> dt.datetime | None:
    meta = pod.get("metadata") or {}
    where = f"Kubernetes API: pod {meta.get('namespace', '')}/{meta.get('name', '')}"
    deadline = (pod.get("spec") or {}).get("activeDeadlineSeconds")
    start = _time((pod.get("status") or {}).get("startTime"), f"{where}: status.startTime")
    if not (deadline and start) or isinstance(deadline, bool) or not isinstance(deadline, (int, float)):
        return None
    try:  # the start plus the deadline, in range too (a deadline of 1e20 s is no end time)
        return from_epoch(start.timestamp() + min(deadline, 2**53))  # (an int past a float's range is out of range anyway)
    except TimestampError as error:
        raise WorkloadError(f"{where}: status.startTime + spec.activeDeadlineSeconds: {error}") from None


@dataclass
class EksWorkload:
    """The workload of a HyperPod EKS cluster through a kubernetes ApiClient (`api_client`)."""

    api_client: Any
    clock: Callable[[], dt.datetime] = _utcnow
    orchestrator: str = "Eks"
    _core: Any = field(default=None, init=False, repr=False)
    _policy: Any = field(default=None, init=False, repr=False)

    def _apis(self) -> tuple[Any, Any]:
        if self._core is None:
            with needed("eks"):
                from kubernetes import client  # noqa: PLC0415 - kubernetes (the eks extra): loaded by an EKS workload read only

            self._core, self._policy = client.CoreV1Api(self.api_client), client.PolicyV1Api(self.api_client)
        return self._core, self._policy

    def _get(self, what: str, call: Callable[..., Any], **kwargs: Any) -> dict:
        with needed("eks"):
            from kubernetes.client.exceptions import ApiException  # noqa: PLC0415 - kubernetes (the eks extra): loaded by an EKS workload read only

        try:
            response = call(_preload_content=False, **kwargs)
        except ApiException as error:
            raise WorkloadError(f"Kubernetes API: {what}: {error.status} {_message(error)}") from None
        except OSError as error:  # connection refused, DNS: urllib3's errors are OSErrors
            raise WorkloadError(f"Kubernetes API: {what}: {error}") from None
        return json.loads(response.data)

    def read(self, state: ClusterState) -> WorkloadView:
        core, policy = self._apis()
        ours = {node.instance_id for node in state.nodes if node.instance_id}
        nodes = self._get("list nodes", core.list_node)["items"]
        pods = self._get("list pods", core.list_pod_for_all_namespaces, field_selector="status.phase!=Succeeded,status.phase!=Failed")[
            "items"
        ]
        budgets = self._get("list PodDisruptionBudgets", policy.list_pod_disruption_budget_for_all_namespaces)["items"]
        on_node: dict[str, list[Pod]] = {}
        for pod in pods:
            node = (pod.get("spec") or {}).get("nodeName")
            if node and not _skipped(pod):
                on_node.setdefault(node, []).append(self._pod(pod, budgets))
        matched, unmatched = [], []
        for node in nodes:
            name, labels = node["metadata"]["name"], node["metadata"].get("labels") or {}
            instance = eks_instance_id(name)
            if instance is None or instance not in ours:
                if instance is not None:
                    unmatched.append(name)  # another HyperPod cluster's node in the same EKS cluster
                continue
            mark = (node["metadata"].get("annotations") or {}).get(DRAIN_ANNOTATION, "")
            cordoned = bool((node.get("spec") or {}).get("unschedulable"))
            matched.append(
                NodeWorkload(
                    instance_id=instance,
                    name=name,
                    state="cordoned" if cordoned else "schedulable",
                    drained=cordoned,
                    drain_reason=mark if cordoned else "",
                    drain_started=drain_started(mark) if cordoned else None,
                    health=labels.get(HEALTH_LABEL, ""),
                    pods=tuple(sorted(on_node.get(name, ()), key=lambda p: (p.namespace, p.name))),
                )
            )
        return WorkloadView("Eks", self.clock(), tuple(matched), tuple(sorted(unmatched)), "the Kubernetes API")

    def _pod(self, pod: Mapping[str, Any], budgets: list[dict]) -> Pod:
        meta = pod["metadata"]
        labels = meta.get("labels") or {}
        covering = [
            b
            for b in budgets
            if b["metadata"].get("namespace") == meta.get("namespace") and _selects((b.get("spec") or {}).get("selector") or {}, labels)
        ]
        blocked = [b["metadata"]["name"] for b in covering if int((b.get("status") or {}).get("disruptionsAllowed") or 0) <= 0]
        if len(covering) > 1:  # the Eviction API refuses the pod whatever each budget allows (model.Pod.over_budgeted)
            blocked = [b["metadata"]["name"] for b in covering]
        kind, owner = _owner(pod)
        return Pod(
            namespace=meta.get("namespace", ""),
            name=meta["name"],
            owner_kind=kind,
            owner_name=owner,
            end_time=_end(pod),
            budgets=tuple(sorted(b["metadata"]["name"] for b in covering)),
            blocked_by=tuple(sorted(blocked)),
        )

    # ---- drain (apply) -------------------------------------------------------------------------
    def cordon(self, names: Sequence[str], reason: str) -> None:
        core, _ = self._apis()
        for name in names:
            body = {"spec": {"unschedulable": True}, "metadata": {"annotations": {DRAIN_ANNOTATION: reason}}}
            self._get(f"cordon {name}", core.patch_node, name=name, body=body, _content_type="application/merge-patch+json")

    def evict(self, names: Sequence[str]) -> list[str]:
        """One eviction per pod on these nodes; a 429 (a disruption budget) is reported, not forced."""
        with needed("eks"):
            from kubernetes.client.exceptions import ApiException  # noqa: PLC0415 - kubernetes (the eks extra): loaded by an EKS workload read only

        core, _ = self._apis()
        blocked = []
        for name in names:
            pods = self._get(
                f"list pods on {name}",
                core.list_pod_for_all_namespaces,
                field_selector=f"spec.nodeName={name},status.phase!=Succeeded,status.phase!=Failed",
            )["items"]
            for pod in pods:
                meta = pod["metadata"]
                if _skipped(pod) or meta.get("deletionTimestamp"):
                    continue
                body = {"apiVersion": "policy/v1", "kind": "Eviction", "metadata": {"name": meta["name"], "namespace": meta["namespace"]}}
                try:
                    core.create_namespaced_pod_eviction(name=meta["name"], namespace=meta["namespace"], body=body, _preload_content=False)
                except ApiException as error:
                    if error.status == 404:
                        continue  # gone meanwhile
                    if error.status == 429 or (error.status == 500 and MORE_THAN_ONE_BUDGET in _message(error)):
                        # a budget says not now (429), or more than one selects the pod (500: never,
                        # until the budgets change): reported and waited on, never forced
                        blocked.append(f"pod {meta['namespace']}/{meta['name']}: {_message(error)}")
                        continue
                    raise WorkloadError(
                        f"Kubernetes API: evict {meta['namespace']}/{meta['name']}: {error.status} {_message(error)}"
                    ) from None
        return blocked


def _message(error: Any) -> str:
    try:
        body = json.loads(error.body or "{}")
    except (TypeError, ValueError):
        return str(error.reason or "")
    causes = [c.get("message", "") for c in (body.get("details") or {}).get("causes") or ()]
    return " ".join(filter(None, [body.get("message", ""), *causes])) or str(error.reason or "")


def from_kubeconfig(path: str | None = None, context: str | None = None, clock: Callable[[], dt.datetime] = _utcnow) -> EksWorkload:
    """An EksWorkload with the credentials of a kubeconfig (its exec plugin, `aws eks get-token`, runs as kubectl runs it)."""
    with needed("eks"):
        from kubernetes import client, config  # noqa: PLC0415 - kubernetes (the eks extra): loaded by an EKS workload read only

    try:
        configuration = client.Configuration()
        config.load_kube_config(config_file=path, context=context, client_configuration=configuration)
    except (config.ConfigException, OSError) as error:
        raise WorkloadError(f"kubeconfig {path or '~/.kube/config'}: {error}") from None
    return EksWorkload(client.ApiClient(configuration), clock)
