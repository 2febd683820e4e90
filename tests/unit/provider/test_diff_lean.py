"""A preview of a stack with no change, in a fresh provider process standing in for the host
(check, then diff against the live cluster on the simulator), keeps the five cheap moves that make
a preview fast, and this test pins exactly those:

1. exit without teardown: an idle host leaves by `os._exit` once its work is done (provider/process.py);
2. the collector paused while check and diff run, and running again after (core/collector.py);
3. no boto3: clients are botocore's own, made without importing boto3 and s3transfer (aws/client.py);
4. the parsed-model cache: the sagemaker model is read parsed from the cache, its JSON file never opened (aws/modelcache.py);
5. checking on a cut model: `check` validates the spec on the spec's shapes (aws/specshapes.py), without
   botocore's session or the whole model; the diff then observes with the one real botocore client.
"""

from __future__ import annotations

import json

from tests.support.fresh import run_fresh
from tests.support.provider_specs import settled_world, slurm_spec

PREVIEW = """
import atexit, gc, json, sys
opened, collector = [], {"check": set(), "diff": set()}  # files opened; the collector's state at each audit event of a call
running = [None]


def audit(event, args):
    if event == "open" and isinstance(args[0], str):
        opened.append(args[0])
    if running[0]:
        collector[running[0]].add(gc.isenabled())


sys.addaudithook(audit)
atexit.register(lambda: print("normal shutdown", flush=True))  # runs only if the process tears down
from pulumi_hyperpod.sim.aws import Simulator
from pulumi_hyperpod.provider import process, register_simulator
from pulumi_hyperpod.provider.provider import ClusterProvider
from pulumi_hyperpod.aws import servicemodel
process.HOSTS = frozenset({None})  # `python -c` has no __main__ spec: stand in for the provider host
process.install()
path, props = json.loads(sys.stdin.read())
register_simulator("world", Simulator(path))
provider = ClusterProvider(simulator="world")
running[0] = "check"
checked = provider.check(props, props)
running[0] = None
at_check = {"session": "botocore.session" in sys.modules, "whole_model": servicemodel.service_model.cache_info().currsize}
running[0] = "diff"
result = provider.diff("arn", checked.inputs, checked.inputs)
running[0] = None
print(json.dumps({
    "changes": result.changes,
    "failures": len(checked.failures),
    "at_check": at_check,
    "collector": {call: sorted(states) for call, states in collector.items()},
    "collector_running": gc.isenabled(),
    "boto3": "boto3" in sys.modules,
    "client": "botocore.client" in sys.modules,
    "model_files": [p for p in opened if "sagemaker" in p and "service-2" in p],
}), flush=True)
"""


def test_a_no_change_preview_keeps_the_five_cheap_moves(tmp_path):
    path = tmp_path / "world.sqlite"
    settled_world(path, workers=2)
    props = {"spec": slurm_spec(workers=2), "backend": "fake"}
    last = run_fresh(PREVIEW, json.dumps([str(path), props]), cwd=tmp_path)
    assert last != "normal shutdown"  # 1: the idle host exited at once, its output flushed
    result = json.loads(last)
    assert result["changes"] is False and result["failures"] == 0  # the preview this test is about
    assert result["collector"] == {"check": [False], "diff": [False]} and result["collector_running"]  # 2
    assert result["boto3"] is False  # 3
    assert result["model_files"] == []  # 4: the model came parsed from the cache
    assert result["at_check"] == {"session": False, "whole_model": 0}  # 5: the check ran on the cut model
    assert result["client"] is True  # the diff observed through botocore's real client (the production path)
