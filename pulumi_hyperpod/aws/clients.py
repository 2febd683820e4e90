"""What the code calls on each AWS client, as typing Protocols: the SageMaker client (observe, plan's
preflight, apply, the waits, metering), Service Quotas (preflight) and S3 (the Slurm bundle).

Each is what `connect(service=…)` (client.py) returns, botocore's client class, or the simulator behind
it; botocore makes an operation's method from the service model, so the model is what checks the
arguments at run time (every request is validated against it before it is sent), and these say which
operations are used and that each answers a dict. tests/unit/aws/test_clients.py checks each operation
named here against botocore's model, and that a client `connect` makes satisfies its protocol.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable
from collections.abc import Iterable


class Paginator(Protocol):
    """botocore's Paginator: every page of one List* operation."""

    def paginate(self, **kwargs: Any) -> Iterable[dict[str, Any]]: ...


class ClientMeta(Protocol):
    """botocore's ClientMeta, as far as it is read: the region a client calls."""

    @property
    def region_name(self) -> str: ...


@runtime_checkable
class BotocoreClient(Protocol):
    """What every AWS client here offers: its meta and its paginators (by operation: "list_cluster_nodes")."""

    @property
    def meta(self) -> ClientMeta: ...

    def get_paginator(self, operation_name: str) -> Paginator: ...


@runtime_checkable
class SageMakerClient(BotocoreClient, Protocol):
    """The `sagemaker` client, the HyperPod operations the code calls. Paginated: ListClusters,
    ListClusterNodes, ListClusterEvents, ListTags, ListClusterExtensions. The mutating calls are made by their operation
    name (apply/executor.py: a Step's `operation`), so each one a plan can hold is listed here too."""

    # reads
    def describe_cluster(self, **kwargs: Any) -> dict[str, Any]: ...

    def describe_cluster_node(self, **kwargs: Any) -> dict[str, Any]: ...

    def describe_training_plan(self, **kwargs: Any) -> dict[str, Any]: ...

    def search_training_plan_offerings(self, **kwargs: Any) -> dict[str, Any]: ...

    def describe_cluster_event(self, **kwargs: Any) -> dict[str, Any]: ...

    def describe_cluster_operation(self, **kwargs: Any) -> dict[str, Any]: ...

    def list_cluster_events(self, **kwargs: Any) -> dict[str, Any]: ...

    def list_cluster_operations(self, **kwargs: Any) -> dict[str, Any]: ...

    def describe_cluster_extension(self, **kwargs: Any) -> dict[str, Any]: ...

    # the calls a Plan's steps make (plans/model.py: Step.operation)
    def create_cluster(self, **kwargs: Any) -> dict[str, Any]: ...

    def update_cluster(self, **kwargs: Any) -> dict[str, Any]: ...

    def delete_cluster(self, **kwargs: Any) -> dict[str, Any]: ...

    def batch_add_cluster_nodes(self, **kwargs: Any) -> dict[str, Any]: ...

    def batch_delete_cluster_nodes(self, **kwargs: Any) -> dict[str, Any]: ...

    def update_cluster_software(self, **kwargs: Any) -> dict[str, Any]: ...

    def batch_replace_cluster_nodes(self, **kwargs: Any) -> dict[str, Any]: ...

    def batch_reboot_cluster_nodes(self, **kwargs: Any) -> dict[str, Any]: ...

    def move_cluster_nodes(self, **kwargs: Any) -> dict[str, Any]: ...

    def add_tags(self, **kwargs: Any) -> dict[str, Any]: ...

    def delete_tags(self, **kwargs: Any) -> dict[str, Any]: ...

    def create_cluster_extension(self, **kwargs: Any) -> dict[str, Any]: ...

    def update_cluster_extension(self, **kwargs: Any) -> dict[str, Any]: ...

    def delete_cluster_extension(self, **kwargs: Any) -> dict[str, Any]: ...

    # deep health checks after a canary (apply/health.py)
    def start_cluster_health_check(self, **kwargs: Any) -> dict[str, Any]: ...


@runtime_checkable
class ServiceQuotasClient(BotocoreClient, Protocol):
    """The `service-quotas` client preflight reads: paginated ListServiceQuotas and
    ListAWSDefaultServiceQuotas (aws/preflight/quotas.py); no call of its own besides."""


@runtime_checkable
class S3Client(BotocoreClient, Protocol):
    """The `s3` client of the Slurm lifecycle bundle: read (aws/slurm/roles.py, aws/slurm/observed.py) and
    uploaded (aws/slurm/upload.py)."""

    def get_object(self, **kwargs: Any) -> dict[str, Any]: ...

    def put_object(self, **kwargs: Any) -> dict[str, Any]: ...

    def head_bucket(self, **kwargs: Any) -> dict[str, Any]: ...

    def create_bucket(self, **kwargs: Any) -> dict[str, Any]: ...
