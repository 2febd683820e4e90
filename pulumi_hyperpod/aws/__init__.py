"""Amazon SageMaker HyperPod as a `Cloud` (core/cloud.py): `aws.cloud.AWS`, and its stages —
`clusterspec/`, `observe/`, `cost/`, `preflight/`, `apply/`, `stages.py` behind the Cloud (`cloud.py`), the client
(`client.py`) and botocore's service model (`servicemodel.py`, `servicerules.py`) — with its
simulator behind botocore (`fake/`), and its planner (`planner/`), which fills the neutral Plan model
(`pulumi_hyperpod.plans`; docs/DESIGN.md, "A cloud").
"""
