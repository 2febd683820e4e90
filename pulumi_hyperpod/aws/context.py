"""What the AWS stages need beyond the spec and the policy: HyperPod's typed context for the one
pipeline (core/cloud.py's `context`).

A front end fills in what it was given (`roles`, `lifecycle_dir`, `s3`, `quotas`, `slurm`,
`workload`, `prices`, `region`); `read_inputs` (aws/stages.py) returns it with what was learnt
(the Slurm roles from the lifecycle bundle, the workload view, the region of the client, notes),
and the plan, its sections, its preflight and its apply read it from there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.clients import S3Client, ServiceQuotasClient
    from pulumi_hyperpod.aws.cost.prices import PriceTable
    from pulumi_hyperpod.aws.workload.model import WorkloadView
    from pulumi_hyperpod.aws.workload.source import WorkloadSource
    from pulumi_hyperpod.slurm.spec import SlurmSpec

# a client, or a function returning one when it is first needed (a bundle to read, a quota to check)
S3 = Union["S3Client", Callable[[], "S3Client"]]
Quotas = Union["ServiceQuotasClient", Callable[[], "ServiceQuotasClient"]]


@dataclass(frozen=True, slots=True)
class AwsContext:
    # instance group → "Controller" | "Login" | "Compute", for Slurm groups without
    # SlurmConfig.NodeType; not given: learnt from the lifecycle bundle (and kept in a saved plan)
    roles: Mapping[str, str] | None = None
    lifecycle_dir: str | None = None  # a local bundle (provisioning_parameters.json) giving the roles
    s3: S3 | None = None  # read when a bundle has to be read
    quotas: Quotas | None = None  # the service quotas preflight checks
    slurm: SlurmSpec | None = None  # the Slurm spec wanted: the plan's Slurm section
    # a workload source (read against the cluster when planning; what a DrainNodes step drains
    # through at apply) or a WorkloadView already read
    workload: WorkloadSource | WorkloadView | None = None
    view: WorkloadView | None = None  # the WorkloadView the victims were ranked with (read_inputs; a saved plan's)
    prices: PriceTable | Mapping[str, float] | None = None  # a PriceTable, or a mapping merged over the shipped list prices
    region: str | None = None  # where the cluster is when no observation (whose ARN says it) is given
    notes: tuple[str, ...] = ()  # what read_inputs learnt to say (roles, unmatched workload nodes)
    # True: read the cluster's newest event before planning (a plan to be saved: its "acted"
    # premise, aws/planner/premise.py); a plan applied at once needs none
    events: bool = False
    cost: bool = True  # False: the plan without its cost section (`hyperpod delete` shows none)
    # apply's clock (None: time.sleep / time.monotonic): a provider's simulator runs on its own
    sleep: Callable[[float], object] | None = None
    monotonic: Callable[[], float] | None = None

    def role_map(self) -> dict[str, str]:
        return dict(self.roles or {})


if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.aws.observe import ClusterState
    from pulumi_hyperpod.aws.spec import ClusterSpec
    from pulumi_hyperpod.core.cloud import Prepared

    AwsPrepared = Prepared[ClusterSpec, ClusterState, AwsContext]  # a HyperPod plan with what it was made from
