"""The `wait` setting's values and the waiter each one runs (waiters.WAITER_MODEL's names).

A module of its own, without botocore: checking the setting (a provider's `check`) needs the names,
not botocore's waiter and docs modules that `waiters` imports.
"""

WAIT_POLICIES = {"none": None, "InService": "ClusterInService", "MinCount": "ClusterMinCount", "Target": "ClusterTarget"}
