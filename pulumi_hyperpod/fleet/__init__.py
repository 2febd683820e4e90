"""Fleets (docs/fleet.md): many Pulumi stacks of clusters, across accounts and regions, planned as one.

- spec.py: the fleet file (`fleet.yaml`), read by the one document reader and validated;
- preview.py: each stack's `pulumi preview` through Pulumi's Automation API, its plans gathered;
- summary.py: the fleet plan over those plans (pure): per stack its steps, victims and cost, and
  the fleet's preflight on quota per account × region × instance type.
"""
