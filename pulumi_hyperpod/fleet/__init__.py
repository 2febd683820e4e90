"""Fleets (docs/fleet.md): many Pulumi stacks of clusters, across accounts and regions, planned and applied as one.

- spec.py: the fleet file (`fleet.yaml`), read by the one document reader and validated;
- preview.py: each stack's `pulumi preview` or `up` through Pulumi's Automation API (one pool), its plans gathered;
- summary.py: the fleet plan over those plans (pure): per stack its steps, victims and cost, and
  the fleet's preflight on quota per account × region × instance type;
- apply.py: `fleet apply`'s wave runner (waves in order, each bounded, stop at the first failed up or gate);
- gates.py: a wave's gates, read from the service with the project's client and observer.
"""
