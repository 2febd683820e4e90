"""What the AWS stages need beyond the spec and the policy: HyperPod's typed context for the one
pipeline (core/cloud.py's `context`).

A front end fills in what it was given (`roles`, `lifecycle_dir`, `s3`, `quotas`, `slurm`,
`workload`, `prices`, `region`); `read_inputs` (aws/stages.py) returns it with what was learnt
(the Slurm roles from the lifecycle bundle, the workload view, the region of the client, notes),
and the plan, its sections, its preflight and its apply read it from there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping


@dataclass(frozen=True, slots=True)
class AwsContext:
    # instance group → "Controller" | "Login" | "Compute", for Slurm groups without
    # SlurmConfig.NodeType; not given: learnt from the lifecycle bundle (and kept in a saved plan)
    roles: Mapping[str, str] | None = None
    lifecycle_dir: str | None = None  # a local bundle (provisioning_parameters.json) giving the roles
    s3: Any = None  # an S3 client, or a function returning one when a bundle has to be read
    quotas: Any = None  # a service-quotas client, or a function returning one (preflight)
    slurm: Any = None  # the Slurm spec wanted (pulumi_hyperpod.slurm.SlurmSpec): the plan's Slurm section
    # a pulumi_hyperpod.aws.workload source (read against the cluster when planning; what a DrainNodes
    # step drains through at apply) or a WorkloadView already read
    workload: Any = None
    view: Any = None  # the WorkloadView the victims were ranked with (read_inputs; a saved plan's)
    prices: Any = None  # a PriceTable, or a mapping merged over the shipped list prices
    region: str | None = None  # where the cluster is when no observation (whose ARN says it) is given
    notes: tuple[str, ...] = ()  # what read_inputs learnt to say (roles, unmatched workload nodes)
    # True: read the cluster's newest event before planning (a plan to be saved: its "acted"
    # premise, aws/planner/premise.py); a plan applied at once needs none
    events: bool = False
    cost: bool = True  # False: the plan without its cost section (`hyperpod delete` shows none)
    # apply's clock (None: time.sleep / time.monotonic): a provider's simulator runs on its own
    sleep: Callable[[float], Any] | None = None
    monotonic: Callable[[], float] | None = None

    def role_map(self) -> dict[str, str]:
        return dict(self.roles or {})
