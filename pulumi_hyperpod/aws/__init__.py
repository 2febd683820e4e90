"""Amazon SageMaker HyperPod as a `Cloud` (core/cloud.py): `aws.cloud.AWS`.

Its parts still live in their stage folders (spec/, observe/, plan/planner.py, cost/, preflight/,
apply/, fake/); this package is the one object that puts them behind the interface.
"""
