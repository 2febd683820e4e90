"""An embedded simulator of the SageMaker HyperPod service, behind a real boto3 client.

    sim = Simulator(seed=0, scenario={"capacity": [...]})
    client = sim.client()            # real boto3 `sagemaker` client, answered at `before-send`
    client.create_cluster(...)
    sim.advance(600)                 # virtual time

Layout (imports point down this list, never back): `wire.py` (HTTP/JSON) → `sagemaker.py` (the
operation table) → `operations.py`/`node_operations.py`/`software.py`/`moves.py` (one function per
API operation) → `mutations.py` (shared write steps) → `reconcile.py` + `rolling_update.py` +
`provisioning.py` (time-driven rules) → `world.py`/`model.py` (state); beside them `store.py`
(memory or SQLite), `clock.py` (virtual time; the persistent world's wall clock and polls),
`slurm.py`, `billing.py`, `events.py`, `scenario.py`.
"""

from typing import TYPE_CHECKING

from pulumi_hyperpod._lazy import lazy_exports

if TYPE_CHECKING:  # pragma: no cover
    from pulumi_hyperpod.sim.aws.errors import ServiceError
    from pulumi_hyperpod.sim.aws.ids import short_hostname
    from pulumi_hyperpod.sim.aws.model import CONTROLLER, LOGIN, RUNNING, Cluster
    from pulumi_hyperpod.sim.aws.scenario import Scenario, load_scenario
    from pulumi_hyperpod.sim.aws.simulator import ClusterWorkloads, Simulator

# The package's public surface: what a user, the CLI and the workload simulator (sim/workload) use;
# the modules below it are the simulator's own. The scenario (a pydantic model) loads only when
# used: a read of a stored world does not need it.
__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "Simulator": "pulumi_hyperpod.sim.aws.simulator",
        "ClusterWorkloads": "pulumi_hyperpod.sim.aws.simulator",
        "Scenario": "pulumi_hyperpod.sim.aws.scenario",
        "ServiceError": "pulumi_hyperpod.sim.aws.errors",
        "load_scenario": "pulumi_hyperpod.sim.aws.scenario",
        "short_hostname": "pulumi_hyperpod.sim.aws.ids",  # a node's Slurm name, from its private IP
        **dict.fromkeys(["CONTROLLER", "LOGIN", "RUNNING", "Cluster"], "pulumi_hyperpod.sim.aws.model"),
    },
)

__all__ = [
    "CONTROLLER",
    "LOGIN",
    "RUNNING",
    "Cluster",
    "ClusterWorkloads",
    "Scenario",
    "ServiceError",
    "Simulator",
    "load_scenario",
    "short_hostname",
]
