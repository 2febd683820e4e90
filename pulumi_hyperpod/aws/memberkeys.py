"""How a key names a service-model member: case, `_` and `-` ignored, so `instance_groups`,
`InstanceGroups` and `instance-groups` all name InstanceGroups. Its own module, below both the
model's lookups (servicemodel.py) and the rules checked on them (servicerules.py), which share it."""

from __future__ import annotations


def fold(key: str) -> str:
    """The spelling-free form of a member's name (see the module's docstring)."""
    return key.replace("_", "").replace("-", "").lower()
