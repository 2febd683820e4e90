"""The GCP training-cluster simulator: a world (world.py) behind a `requests` transport adapter
(wire.py), so URL building, JSON, pagination, error bodies and LRO polling run for real.

    from pulumi_hyperpod.sim.gcp import GcpSimulator
    session = GcpSimulator().session()      # an AuthorizedSession-like requests.Session
"""

from pulumi_hyperpod.sim.gcp.simulator import GcpSimulator, default_path

__all__ = ["GcpSimulator", "default_path"]
